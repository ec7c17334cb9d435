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

``--held-out`` does the same on the deck designs held out of training: the frames
``benchmarks/real_decks.py --choose 1`` reads (each design's seed plus 1, never the
frames it reports), read by the general model and with the design's deck enrolled from
one clean picture of each card, as ``real_decks.py`` enrols it, and by the general model
without the sharpened pass for a smeared frame (``unsharpened``), each way timed. Each
card the general model misses is also told by what the detector and the classifier made
of its index: the most a detector box overlaps one of its readable index boxes, and the
general model's chance of the card on the best of those true boxes. Writes them under
``held_out`` in ``benchmarks/misses.json``.

    .venv/bin/python benchmarks/misses.py [--frames N] [--jobs 2]
    .venv/bin/python benchmarks/misses.py --held-out [--frames 40] [--jobs 2]
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
OUT = ROOT / "benchmarks" / "misses.json"

from benchmarks import write_figures  # noqa: E402
from benchmarks.accuracy import GROUPS, SYNTHETIC  # noqa: E402
from vision.lab.evaluate import (  # noqa: E402
    SAVED_QUALITY,
    cards_in_sight,
    miss_breakdown,
    synthetic_frames,
)

DATA = ROOT / "vision" / "data"
#: ``--held-out``: the frames of each design's seed plus this (``real_decks.py --choose 1``).
HELD_OUT_OFFSET = 1
# How ``--held-out`` reads each frame: the general model (a smeared frame sharpened when it
# leaves a card unsure, as ``CardReader.read`` does), the same without that pass, and
# with the design's deck.
WAYS = ("general", "unsharpened", "deck")
HELD_OUT_FRAMES = 40
#: A missed card's index counts as boxed when a detector box overlaps it this much (IoU),
#: and as read surely on its true box at this chance.
BOXED = 0.4
SURE_ON_TRUE_BOX = 0.9
#: Motion blur lengths (pixels) told apart: from, below, name.
MOTION_BANDS = ((0, 6, "3-5 px"), (6, 100, "6-8 px"))


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
        cards += card_rows(f"{name}/{image}", things, read, faults, frame.shape[0])
    return {"cards": cards, "invented": invented, "compared": compared, "matched": matched}


def card_rows(frame_name: str, things: list[dict], read: set[str], faults: dict,
              frame_height: int) -> list[dict]:
    """One row per readable belote card of a frame, as ``miss_breakdown`` takes them."""
    return [{"frame": frame_name, "code": a["code"], "read": a["code"] in read,
             "blur": faults["blur"], "blur_px": faults["blur_px"],
             "share": round(card_share(a["quad"], frame_height), 4),
             "shown": max(s for s, r in zip(a["index_shown"], a["index_readable"], strict=True)
                          if r)}
            for a in things if a["belote"] and a["readable"]]


def index_check(reader, frame, boxes: list, thing: dict) -> dict:
    """What the detector (its ``boxes`` in ``frame``) and the general model made of one
    card's index: the most a box overlaps one of its readable index boxes (IoU), and the
    general model's chance of the card on the best of those true boxes."""
    import numpy as np

    from vision.classify import iou
    from vision.locate import index_crop

    classifier = reader.classifier
    size, pad = int(classifier.meta["crop"]), float(classifier.meta["pad"])
    true = [b for b, r in zip(thing["index_boxes"], thing["index_readable"], strict=True) if r]
    overlap = max((iou(t, b) for t in true for b in boxes), default=0.0)
    probs = classifier.probabilities(np.stack([index_crop(frame, t, size, pad) for t in true]))
    chance = float(probs[:, classifier.classes.index(thing["code"])].max())
    return {"box_overlap": round(overlap, 3), "true_box_chance": round(chance, 4)}


def read_held_out(design: str, n: int) -> dict:
    """Worker: one held-out design's ``--held-out`` frames, read by the general model
    (each missed card with its :func:`index_check`) and with the design's deck."""
    import tempfile

    import cv2

    from benchmarks.real_decks import seed_of
    from vision.deck import DEFAULT_HEAD
    from vision.lab import render
    from vision.lab.deck_rules import enroll_design
    from vision.lab.evaluate import design_scenes, design_styles
    from vision.reader import CardReader

    render.art_styles(held_out=None, french_art=True)
    reader = CardReader()
    out: dict = {way: {"cards": [], "invented": [], "ms": []} for way in WAYS}
    with tempfile.TemporaryDirectory() as tmp:
        deck = enroll_design(reader, design, Path(tmp), DEFAULT_HEAD)
    scenes = design_scenes(design_styles(design), n, seed_of(design) + HELD_OUT_OFFSET)
    try:
        for k, (frame, things, faults) in enumerate(scenes):
            name = f"{design}-{k:04d}"
            present = cards_in_sight(things)[1]
            for way, use, sharpen in (("general", None, True), ("unsharpened", None, False),
                                      ("deck", deck, True)):
                reader.classifier.use_deck(use)
                t0 = time.perf_counter()
                read = {d.code for d in reader.read(frame, sharpen=sharpen) if d.code is not None}
                out[way]["ms"].append(1000.0 * (time.perf_counter() - t0))
                out[way]["invented"] += [{"frame": name, "code": c, "blur": faults["blur"]}
                                         for c in sorted(read - present)]
                rows = card_rows(name, things, read, faults, frame.shape[0])
                if way == "general" and not all(r["read"] for r in rows):
                    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
                    assert reader.detector is not None
                    boxes = [box for box, _ in reader.detector.detect(gray)]
                    by_code = {a["code"]: a for a in things if a["belote"] and a["readable"]}
                    for r in rows:
                        if not r["read"]:
                            r.update(index_check(reader, frame, boxes, by_code[r["code"]]))
                out[way]["cards"] += rows
    finally:
        reader.classifier.use_deck(None)
    return out


def held_out_figures(cards: list[dict], invented: list[dict]) -> dict:
    """``miss_breakdown``'s figures, with motion-blurred frames split by the blur's length."""
    out = miss_breakdown(cards, invented)
    out["motion by length"] = {}
    for low, high, name in MOTION_BANDS:
        rows = [c for c in cards if c["blur"] == "motion" and low <= c["blur_px"] < high]
        out["motion by length"][name] = {"cards": len(rows),
                                         "missed": sum(not c["read"] for c in rows)}
    return out


def held_out(args: argparse.Namespace) -> dict:
    """``--held-out``: the held-out designs' frames, general model and deck enrolled."""
    import numpy as np

    from vision.lab import decks

    designs = [d for d in decks.BENCH_DESIGNS if d in decks.HELD_OUT]
    n = args.frames or HELD_OUT_FRAMES
    t0 = time.time()
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            runs = list(pool.map(read_held_out, designs, [n] * len(designs)))
    else:
        runs = [read_held_out(d, n) for d in designs]
    result: dict = {
        "benchmark": "readable cards of the held-out designs missed on real_decks.py's "
                     "--choose 1 frames, general model (with and without the sharpened "
                     "pass) and deck enrolled, by camera blur; "
                     "the general model's misses by what the detector and classifier made "
                     "of the index",
        "measured": time.strftime("%Y-%m-%d"),
        "designs": designs, "frames_per_design": n, "seed_offset": HELD_OUT_OFFSET}
    for way in WAYS:
        cards = [c for r in runs for c in r[way]["cards"]]
        invented = [c for r in runs for c in r[way]["invented"]]
        ms = np.array([t for r in runs for t in r[way]["ms"]])
        result[way] = {"breakdown": held_out_figures(cards, invented),
                       "missed": [c for c in cards if not c["read"]], "invented": invented,
                       "ms_per_frame": {"mean": round(float(ms.mean()), 1),
                                        "p90": round(float(np.percentile(ms, 90)), 1),
                                        "max": round(float(ms.max()), 1)}}
    missed = result["general"]["missed"]
    no_box = [c for c in missed if c["box_overlap"] < BOXED]
    boxed = [c for c in missed if c["box_overlap"] >= BOXED]
    result["general_missed_by_index"] = {
        "missed": len(missed),
        "no_box_over_the_index": len(no_box),
        "no_box_true_box_read_surely": sum(c["true_box_chance"] >= SURE_ON_TRUE_BOX
                                           for c in no_box),
        "boxed_true_box_read_surely": sum(c["true_box_chance"] >= SURE_ON_TRUE_BOX
                                          for c in boxed),
        "boxed_true_box_unsure": sum(c["true_box_chance"] < SURE_ON_TRUE_BOX for c in boxed),
        "boxed_true_box_unsure_motion": sum(c["true_box_chance"] < SURE_ON_TRUE_BOX
                                            and c["blur"] == "motion" for c in boxed),
        "boxed_at_overlap": BOXED, "sure_at": SURE_ON_TRUE_BOX}
    result["seconds"] = round(time.time() - t0, 1)
    for way in WAYS:
        b = result[way]["breakdown"]
        print(f"{way}: {b['all']['cards']} readable cards, {b['all']['missed']} missed, "
              f"{b['all']['invented']} invented; by camera blur: "
              + ", ".join(f"{k} {f['missed']} of {f['cards']}"
                          for k, f in b["by camera blur"].items())
              + "; motion " + ", ".join(f"{k} {f['missed']} of {f['cards']}"
                                        for k, f in b["motion by length"].items())
              + f"; ms a frame (one core, {args.jobs} at once): "
              + json.dumps(result[way]["ms_per_frame"]))
    print(f"general model's misses by index: {json.dumps(result['general_missed_by_index'])}")
    return result


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
    ap.add_argument("--held-out", action="store_true",
                    help="the held-out designs' --choose frames, with and without their deck")
    ap.add_argument("--out", type=Path, default=None,
                    help="the figures alone to this file (default: benchmarks/misses.json, "
                         "--held-out's under held_out)")
    args = ap.parse_args(argv)
    if args.held_out:
        from vision.lab import decks

        decks.manifest_or_exit(ap)  # the designs' art is cached by `belote-table vision decks`
        found = held_out(args)
        print(f"written to {write_figures(args.out, OUT, found, part='held_out')}")
        return found
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
    print(f"written to {write_figures(args.out, OUT, result, parts=('held_out',))}")
    return result


if __name__ == "__main__":
    main()
