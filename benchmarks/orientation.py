"""Benchmark of the reader on photos taken upright: the same frames, turned a quarter.

A phone held in portrait gives a frame taller than wide. The reader sizes a frame by its
short side (``IndexDetector.work_scale``), so such a photo should read as the same photo
held sideways. Frames of the first drawn styles (``fr-grimaud``, ``en-bicycle``,
``fr-ducale``; seed 4242, never trained on), read as they are (1280 x 720) and turned a
quarter each way (720 x 1280): the cards a person could read, those read right, and the
cards named that are not in the frame. Nothing here is tuned on. Prints the figures and
writes ``benchmarks/orientation.json``.

    .venv/bin/python benchmarks/orientation.py [--frames 30] [--model PATH] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision.lab.evaluate import design_frames  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "orientation.json"
STYLES = ["fr-grimaud", "en-bicycle", "fr-ducale"]
SEED = 4242
# Quarter turns counter-clockwise: as held sideways, then upright both ways.
TURNS = {"landscape": 0, "upright_left": 1, "upright_right": 3}


def run(reader: CardReader, frames: int) -> dict[str, Any]:
    counts = {name: {"cards": 0, "read_right": 0, "invented": 0} for name in TURNS}
    for frame, readable, present in design_frames(STYLES, frames, SEED):
        for name, turns in TURNS.items():
            picture = np.ascontiguousarray(np.rot90(frame, turns))
            read = {d.code for d in reader.read(picture) if d.code is not None}
            c = counts[name]
            c["cards"] += len(readable)
            c["read_right"] += len(read & readable)
            c["invented"] += len(read - present)
    for c in counts.values():
        c["recall"] = round(c["read_right"] / c["cards"], 4) if c["cards"] else None
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--model", help="classifier .onnx (default: the shipped model)")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    if args.frames < 1:
        p.error("--frames: expected a whole number from 1")
    t0 = time.time()
    result: dict[str, Any] = {
        "benchmark": "the same frames read sideways and upright (turned a quarter)",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": args.model or "shipped", "styles": STYLES, "seed": SEED,
        "frames": args.frames, **run(CardReader(args.model), args.frames)}
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for name in TURNS:
        c = result[name]
        print(f"{name}: {c['read_right']}/{c['cards']} read, {c['invented']} invented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
