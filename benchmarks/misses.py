"""Where the card reader misses cards on the random test scenes.

``benchmarks/accuracy.py`` counts the cards missed on the unseen random scenes
(``eval-fr``, ``eval-en``, ``eval2-fr``, ``eval2-en``). This renders the same
frames again from their seeds (``vision.lab.evaluate.synthetic_frames``: the
renderer also says which camera faults each frame got and how much of each
index is seen), checks them against the saved test frames when those are on
disk, reads each with the shipped reader, and sorts the cards a person could
read by camera blur (none, focus, motion), by the card's size in the frame and
by how much of its index is seen (``vision.lab.evaluate.miss_breakdown``).

Prints the figures and writes them to ``benchmarks/misses.json``.

    .venv/bin/python benchmarks/misses.py [--frames N] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.accuracy import GROUPS, SYNTHETIC  # noqa: E402
from vision.lab.evaluate import SAVED_QUALITY, miss_breakdown, synthetic_frames  # noqa: E402

DATA = ROOT / "vision" / "data"


def card_share(quad: list[list[float]], frame_height: int) -> float:
    """A card's height over the frame's, from its face's corners (clockwise from
    the face's top-left)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad
    left = ((x3 - x0) ** 2 + (y3 - y0) ** 2) ** 0.5
    right = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
    return (left + right) / 2 / frame_height


def read_set(name: str, seed: int, decks: str, n: int) -> dict:
    """Render one test set again, read it, and describe each readable card."""
    import cv2

    from vision.reader import CardReader

    reader = CardReader()
    stored = DATA / name
    cards: list[dict] = []
    invented: list[dict] = []
    matched = compared = 0
    for image, frame, things, faults in synthetic_frames(n, seed, decks):
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
        if not ok:
            raise RuntimeError(f"{name}/{image}: cannot encode the frame")
        if (stored / image).exists():
            compared += 1
            matched += (stored / image).read_bytes() == buf.tobytes()
        seen = cv2.imdecode(buf, cv2.IMREAD_COLOR)  # what `vision eval` reads from disk
        read = {d.code for d in reader.read(seen) if d.code is not None}
        present = {a["code"] for a in things
                   if a["belote"] and (a["index_boxes"] or a["visible_fraction"] > 0)}
        invented += [{"frame": f"{name}/{image}", "code": c, "blur": faults["blur"]}
                     for c in sorted(read - present)]
        for a in things:
            if not (a["belote"] and a["readable"]):
                continue
            cards.append({"frame": f"{name}/{image}", "code": a["code"], "read": a["code"] in read,
                          "blur": faults["blur"], "blur_px": faults["blur_px"],
                          "share": round(card_share(a["quad"], frame.shape[0]), 4),
                          "shown": max(s for s, r in zip(a["index_shown"], a["index_readable"],
                                                         strict=True) if r)})
    return {"cards": cards, "invented": invented, "compared": compared, "matched": matched}


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text}")
    return value


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=_positive, default=None,
                    help="frames of each set (default: all of them, as accuracy.py)")
    ap.add_argument("--jobs", type=_positive, default=2,
                    help="sets read at once (one core each)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "misses.json")
    args = ap.parse_args(argv)
    sets = [s for s in SYNTHETIC if s[0] in GROUPS["random scenes"]]
    t0 = time.time()
    work = list(zip(*[(name, seed, decks, args.frames or n) for name, seed, decks, n in sets],
                    strict=True))
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            runs = list(pool.map(read_set, *work))
    else:
        runs = list(map(read_set, *work))
    cards = [c for r in runs for c in r["cards"]]
    invented = [c for r in runs for c in r["invented"]]
    result = {
        "benchmark": "readable cards missed on the random test scenes, by camera blur, "
                     "card size and index seen",
        "measured": time.strftime("%Y-%m-%d"),
        "sets": {name: {"seed": seed, "decks": decks, "frames": args.frames or n}
                 for name, seed, decks, n in sets},
        "stored_frames": {"compared": sum(r["compared"] for r in runs),
                          "identical": sum(r["matched"] for r in runs)},
        "breakdown": miss_breakdown(cards, invented),
        "missed": [{k: c[k] for k in ("frame", "code", "blur", "blur_px", "share", "shown")}
                   for c in cards if not c["read"]],
        "invented": invented,
        "seconds": round(time.time() - t0, 1),
    }
    b = result["breakdown"]
    print(f"random scenes: {b['all']['cards']} readable cards, {b['all']['missed']} missed, "
          f"{b['all']['invented']} invented, {b['all']['read_right']} % read right")
    for group in ("by camera blur", "by card size", "by index seen"):
        print(f" {group}:")
        for name, f in b[group].items():
            print(f"  {name}: {f['cards']} cards, {f['missed']} missed, "
                  f"{f['invented']} invented, {f['read_right']} % read right")
    f = b["sharp, index fully seen"]
    print(f" sharp, index fully seen: {f['cards']} cards, {f['missed']} missed, "
          f"{f['invented']} invented, {f['read_right']} % read right")
    sf = result["stored_frames"]
    print(f"frames identical to the saved test frames: {sf['identical']} of {sf['compared']}")
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written to {args.out}")
    return result


if __name__ == "__main__":
    main()
