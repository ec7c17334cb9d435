"""Benchmark of the card reader on still pictures (``vision read``, ``vision eval``).

The camera at the table gives 1280 x 720 frames, boxed from half their size (640 pixels
wide), fast enough for every frame. A still picture, read once, is boxed down to its own
pixels (``CardReader(still=True)``: ``vision.classify.STILL_FINEST``), where a webcam's
640 x 480 picture, a picture exported 640 x 640 as image collections are, or a 1280 x
720 one show the indices of cards smaller than the camera's mount gives. An index with
fewer pixels of its own than the calibration frames' floor is read at the strictest
threshold (``IndexDetector.under_calibrated``), in every picture.

Pictures of 4 cards lying apart (``benchmarks/photos.py``'s: a slight tilt, the
renderer's camera faults, saved and read back as JPEG), at each card size (a share of the
picture's height) and picture size, in turn one of the four deck designs never trained on
(``vision.lab.decks.HELD_OUT``) and one of the drawn styles; seeds 8101... (the finest
level and the floor were chosen on other frames: drawn styles alone, seed 5). Each picture
is read four ways:

* ``before``: as any picture was before 2026-11-29 (the camera's levels, the floor
  counted at the picture's first level: ``IndexDetector.calibrated`` 1.0, one box an
  index);
* ``camera``: as ``run`` reads the camera's frames now;
* ``still``: as ``vision read`` and ``vision eval`` read a picture now: the first level's
  box of an index that gave way to the finer level's read too
  (``IndexDetector.both_levels``);
* ``still_one_box``: the same, one box an index (``both_levels`` off), as up to
  commit 4ce624e.

Cards read right, cards invented and the time a picture takes (one thread).

Prints the figures and writes ``benchmarks/stills.json``.

    .venv/bin/python benchmarks/stills.py [--frames 16] [--out FILE]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.photos import CARDS, parse, photo, read_each_way, totals, write  # noqa: E402
from vision.classify import CAMERA_FINEST, STILL_FINEST  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "stills.json"
SIZES = {"640x480": (640, 480), "640x640": (640, 640), "1280x720": (1280, 720),
         "1920x1080": (1920, 1080)}
# Each way: the detector's finest level, the scale its calibrated floor is counted at, and
# whether the first level's boxes that gave way to the finer level's are read too.
WAYS = {"before": (CAMERA_FINEST, 1.0, False), "camera": (CAMERA_FINEST, CAMERA_FINEST, True),
        "still": (STILL_FINEST, CAMERA_FINEST, True),
        "still_one_box": (STILL_FINEST, CAMERA_FINEST, False)}


def measure(reader: CardReader, styles: list[str], size: tuple[int, int], share: float,
            frames: int, seed: int) -> dict[str, Any]:
    """Read ``frames`` pictures of ``size``, cards ``share`` of its height, each way."""
    rng = np.random.default_rng([seed, round(share * 1000)])
    detector = reader.detector
    assert detector is not None
    was = detector.finest, detector.calibrated, detector.both_levels

    def way(finest: float, calibrated: float, both: bool) -> Callable[[], None]:
        def set_up() -> None:
            detector.finest, detector.calibrated, detector.both_levels = finest, calibrated, both
        return set_up

    pictures = (photo(rng, size, share, styles[k % len(styles)]) for k in range(frames))
    try:
        ways = read_each_way(reader, pictures, {name: way(*s) for name, s in WAYS.items()},
                             unit="picture")
    finally:
        detector.finest, detector.calibrated, detector.both_levels = was
    return {"share": share, **ways}


def main(argv: list[str] | None = None) -> int:
    args, styles = parse(__doc__, list(SIZES), 8101, OUT, argv, unit="picture")
    reader = CardReader(threads=1)
    t0 = time.time()
    result: dict[str, Any] = {
        "benchmark": "still pictures at or under the camera's size: 4 cards apart, by card "
                     "size, read four ways",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": reader.classifier.model_path.name, "frames_per_cell": args.frames,
        "seed": args.seed, "cards_per_picture": CARDS, "styles": styles,
        "before": "as before 2026-11-29: camera levels, floor at the picture's first level",
        "camera": "as run reads the camera's frames (CardReader())",
        "still": "as vision read and vision eval read a picture (CardReader(still=True))",
        "still_one_box": "the same, one box an index (IndexDetector.both_levels off), "
                         "as up to commit 4ce624e",
        "sizes": {}}
    for name in args.sizes:
        k = list(SIZES).index(name)  # each size its own seed, whichever sizes are asked
        rows = []
        for share in args.shares:
            row = measure(reader, styles, SIZES[name], share, args.frames, args.seed + k)
            rows.append(row)
            print(f"{name}, cards {100 * share:4.1f} % of its height: " + "; ".join(
                f"{way} {row[way]['read']} of {row[way]['cards']} ({row[way]['invented']} "
                f"invented, {row[way]['ms_per_picture']} ms)" for way in WAYS), flush=True)
        total = totals(rows, WAYS)
        result["sizes"][name] = {"rows": rows, "total": total}
        print(f"{name}, all: " + "; ".join(
            f"{way} {t['read']} of {t['cards']} ({t['invented']} invented)"
            for way, t in total.items()), flush=True)
    return write(result, args.out, t0)


if __name__ == "__main__":
    sys.exit(main())
