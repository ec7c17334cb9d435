"""Benchmark of the card reader by the cards' size in the frame.

The reader scales every frame to at most 640 pixels wide, so whether a card is
read depends on its share of the frame's height, not on the camera's
resolution. For each share, rendered 1280x720 frames of 4 belote cards lying
apart (every deck style, table cloth, light, a slight tilt, and a camera's
blur, noise and JPEG: ``vision.lab.render.degrade``) are read by the shipped
reader; the cards read right and the cards invented are counted. The figures
back the camera mount (hardware/camera-mount.md) and what ``belote-table
calibrate`` says about the cards' size.

Prints the figures and writes them to ``benchmarks/card_size.json``.

    .venv/bin/python benchmarks/card_size.py [--frames 80] [--shares 0.17 0.24]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision.lab.render import STYLES, render_cards_apart  # noqa: E402
from vision.reader import CardReader  # noqa: E402

SHARES = (0.07, 0.085, 0.10, 0.12, 0.14, 0.17, 0.19, 0.20, 0.22, 0.24, 0.27, 0.30, 0.35)
SIZE = (1280, 720)
CARDS = 4


def measure(reader: CardReader, share: float, frames: int, seed: int) -> dict:
    """Cards read right and invented on ``frames`` frames of cards ``share`` of the height."""
    rng = np.random.default_rng([seed, round(share * 1000)])
    read = invented = 0
    for k in range(frames):
        frame, codes = render_cards_apart(rng, SIZE, share, STYLES[k % len(STYLES)], CARDS)
        named = {d.code for d in reader.read(frame) if d.code}
        read += len(named & set(codes))
        invented += len(named - set(codes))
    return {"share": share, "cards": frames * CARDS, "read": read, "invented": invented,
            "read_share": round(read / (frames * CARDS), 4)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=80, help="frames per size (%(default)s)")
    p.add_argument("--shares", type=float, nargs="+", default=list(SHARES),
                   help="cards' heights over the frame's")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", help="card reader model (default: the shipped one)")
    p.add_argument("--floor", type=float, help="smallest index side read surely, pixels at "
                   "the first level (default: the reader's, IndexDetector.MIN_READ_SIDE; "
                   "0: none)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "card_size.json"))
    args = p.parse_args(argv)
    reader = CardReader(args.model)
    if args.floor is not None and reader.detector is not None:
        reader.detector.MIN_READ_SIDE = args.floor
    rows = []
    for share in args.shares:
        row = measure(reader, share, args.frames, args.seed)
        rows.append(row)
        print(f"cards {100 * share:4.1f} % of the frame's height: read {row['read']} of "
              f"{row['cards']}, invented {row['invented']}", flush=True)
    result = {"benchmark": "card_size", "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                  time.gmtime()),
              "model": reader.classifier.model_path.name, "frame": f"{SIZE[0]}x{SIZE[1]}",
              "floor_px": reader.detector.MIN_READ_SIDE if reader.detector else None,
              "cards_per_frame": CARDS, "frames_per_size": args.frames, "seed": args.seed,
              "sizes": rows}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
