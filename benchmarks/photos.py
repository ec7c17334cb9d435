"""Benchmark of the card reader on photos larger than the camera's frames.

The camera at the table gives 1280 x 720 frames, which the reader boxes from half their
size. A photo (a phone's, read by ``belote-table vision read`` or ``vision eval``) has
more pixels: brought down to 640 pixels wide as a frame is, its smaller cards' indices
are lost. Such a photo is boxed at one level more, twice as large, at most half its own
size (``vision.classify.IndexDetector.fine_scale``); an index under the floor the
thresholds were calibrated on, but above it at that level, is read at the strictest
threshold the model has.

Photos of 4 cards lying apart (as ``benchmarks/card_size.py`` draws them: a slight tilt,
the renderer's camera faults, saved and read back as JPEG), at each card size (a share
of the photo's height) and each photo size, in turn one of the four deck designs never
trained on (``vision.lab.decks.HELD_OUT``, bridge and piquet size) and one of the drawn
styles; seeds 7801... (never used by training or to choose anything here). Each photo is
read twice, with the finer level and without it (as before it): cards read right, cards
invented, and the time a photo takes (one thread).

``enlarged``: 1280 x 720 frames enlarged twice (2560 x 1440, bicubic), as a digital zoom
does: the finer level then shows nothing the frame did not, and the floor's promise
(an index that large is sharp) does not hold.

Prints the figures and writes ``benchmarks/photos.json``.

    .venv/bin/python benchmarks/photos.py [--frames 16] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.lab import decks, render  # noqa: E402
from vision.lab.evaluate import as_saved, design_styles  # noqa: E402
from vision.lab.render import render_cards_apart  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "photos.json"
SHARES = (0.07, 0.085, 0.10, 0.12, 0.14, 0.17, 0.24)
SIZES = {"1920x1080": (1920, 1080), "2560x1440": (2560, 1440), "4032x3024": (4032, 3024),
         "enlarged": (1280, 720)}
ENLARGE = 2.0
CARDS = 4


def photo(rng: np.random.Generator, size: tuple[int, int], share: float, style: str,
          enlarge: float = 1.0) -> tuple[np.ndarray, set[str]]:
    """One photo of ``CARDS`` cards of ``style`` lying apart, ``share`` of its height."""
    frame, codes = render_cards_apart(rng, size, share, style, CARDS)
    if enlarge != 1.0:
        frame = cv2.resize(frame, None, fx=enlarge, fy=enlarge, interpolation=cv2.INTER_CUBIC)
    return as_saved(frame), set(codes)


def read_each_way(reader: CardReader, pictures: Iterator[tuple[np.ndarray, set[str]]],
                  ways: dict[str, Callable[[], None]], unit: str = "photo"
                  ) -> dict[str, dict[str, Any]]:
    """Each picture ``(frame, codes)`` read once each way (``ways``: a name, and what sets
    the reader so): cards read right, invented, and the milliseconds a picture."""
    counts = {way: {"cards": 0, "read": 0, "invented": 0, "seconds": 0.0} for way in ways}
    n = 0
    for frame, codes in pictures:
        n += 1
        for way, set_up in ways.items():
            set_up()
            t0 = time.perf_counter()
            named = {d.code for d in reader.read(frame) if d.code}
            c = counts[way]
            c["seconds"] += time.perf_counter() - t0
            c["cards"] += len(codes)
            c["read"] += len(named & codes)
            c["invented"] += len(named - codes)
    return {way: {"read": c["read"], "cards": c["cards"], "invented": c["invented"],
                  f"ms_per_{unit}": round(1000 * c["seconds"] / max(n, 1), 1)}
            for way, c in counts.items()}


def measure(reader: CardReader, styles: list[str], name: str, share: float, frames: int,
            seed: int) -> dict[str, Any]:
    size = SIZES[name]
    enlarge = ENLARGE if name == "enlarged" else 1.0
    rng = np.random.default_rng([seed, round(share * 1000)])
    detector = reader.detector
    assert detector is not None
    was = detector.fine
    pictures = (photo(rng, size, share, styles[k % len(styles)], enlarge) for k in range(frames))
    try:
        ways = read_each_way(reader, pictures, {
            "fine": lambda: setattr(detector, "fine", True),
            "before": lambda: setattr(detector, "fine", False)})
    finally:
        detector.fine = was
    return {"share": share, **ways}


def parse(doc: str, sizes: list[str], seed: int, out: Path, argv: list[str] | None,
          unit: str = "photo") -> tuple[argparse.Namespace, list[str]]:
    """The arguments of this benchmark and of ``stills.py`` (one card size and picture
    size a cell), and the styles drawn in turn: each held-out design's, then a drawn
    style. Exits, saying why, on a bad argument or with no deck designs cached."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--frames", type=int, default=16, help=f"{unit}s per card size and "
                   f"{unit} size (%(default)s)")
    p.add_argument("--sizes", nargs="+", default=sizes, choices=sizes)
    p.add_argument("--shares", type=float, nargs="+", default=list(SHARES))
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--out", default=str(out))
    args = p.parse_args(argv)
    if args.frames < 1:
        p.error("--frames: expected a whole number from 1")
    manifest = decks.manifest_or_exit(p)
    render.art_styles(held_out=True)
    held = [s for d in manifest["held_out"] for s in design_styles(d)]
    drawn = [s.name for s in render.STYLES]
    return args, [s for pair in zip(held, drawn[:len(held)], strict=True) for s in pair]


def main(argv: list[str] | None = None) -> int:
    args, styles = parse(__doc__, list(SIZES), 7801, OUT, argv)
    reader = CardReader(threads=1)
    t0 = time.time()
    result: dict[str, Any] = {
        "benchmark": "photos larger than the camera's frames: 4 cards apart, by card size",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": reader.classifier.model_path.name, "frames_per_cell": args.frames,
        "seed": args.seed, "cards_per_photo": CARDS, "styles": styles,
        "enlarged": f"1280x720 frames enlarged {ENLARGE:g} times (bicubic)",
        "fine": "read with the finer level (shipped)",
        "before": "read without it (IndexDetector.fine = False)", "sizes": {}}
    for name in args.sizes:
        # Each photo size draws from a seed of its own (its place in SIZES), whichever
        # sizes are asked for.
        k = list(SIZES).index(name)
        rows = []
        for share in args.shares:
            row = measure(reader, styles, name, share, args.frames, args.seed + k)
            rows.append(row)
            f, b = row["fine"], row["before"]
            print(f"{name}, cards {100 * share:4.1f} % of its height: read {f['read']} of "
                  f"{f['cards']} ({f['invented']} invented, {f['ms_per_photo']} ms); before "
                  f"{b['read']} ({b['invented']} invented, {b['ms_per_photo']} ms)", flush=True)
        result["sizes"][name] = {"rows": rows, "total": totals(rows, ("fine", "before"))}
    return write(result, args.out, t0)


def totals(rows: list[dict[str, Any]], ways: Iterable[str]) -> dict[str, dict[str, int]]:
    """A picture size's cards, read and invented, each way, over its card sizes."""
    return {way: {m: sum(r[way][m] for r in rows) for m in ("read", "cards", "invented")}
            for way in ways}


def write(result: dict[str, Any], out: str, t0: float) -> int:
    """The figures, with the seconds since ``t0``, written to ``out`` (JSON)."""
    result["seconds"] = round(time.time() - t0, 1)
    Path(out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
