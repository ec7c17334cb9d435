"""What a narrower index classifier, or one reading smaller patches, would save a frame.

Cuts the shipped float classifier to narrower widths (``vision.lab.train.prune_classifier``,
the start ``python -m vision.lab.bulk --widths`` trains from), makes each 8-bit as the
shipped one is made (``quantize_classifier``), and times the reader's batches of patches
through onnxruntime on one thread, beside the shipped 8-bit and float classifiers. Only the
speed: a cut classifier reads nothing well until it is trained (``vision.lab.bulk --widths``;
what such runs read: ``benchmarks/choose.json``, key ``narrow``). The same for the shipped weights
reading their patches brought down to a share of their side (``vision.lab.train.rescaled``,
the start of ``bulk --scale``). Needs torch (the ``train`` extra). Prints the figures and
writes them to ``benchmarks/narrow.json``.

    .venv/bin/python benchmarks/narrow.py [--widths 16,24,32,48,128 ...] [--scales 0.75 ...]
        [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

OUT = ROOT / "benchmarks" / "narrow.json"
WIDTHS = ((32, 48, 64, 96, 128), (24, 32, 48, 64, 128), (16, 24, 32, 48, 128))
SCALES = (0.75, 0.625)
BATCH = 64  # patches a run: about what the reader reads of a frame in one go


def multiply_adds(widths: tuple[int, ...], size: int = 32) -> int:
    """The classifier's multiply-adds a patch: five 3x3 convolutions, the first two each
    followed by a 2x2 pooling, the fourth too (``vision.lab.train.Classifier``)."""
    sides = (size, size // 2, size // 4, size // 4, size // 8)
    ins = (3, *widths[:4])
    return sum(9 * c_in * c_out * s * s for c_in, c_out, s in zip(ins, widths, sides, strict=True))


def _ms_per_patch(path: Path, x: np.ndarray, repeats: int) -> float:
    from vision.classify import make_session

    session = make_session(path, 1)
    for _ in range(5):
        session.run(None, {"image": x})
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        session.run(None, {"image": x})
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000 / len(x)


def run(widths: tuple[tuple[int, ...], ...] = WIDTHS, repeats: int = 60, frames: int = 4,
        out: Path | None = OUT, scales: tuple[float, ...] = SCALES) -> dict[str, Any]:
    """Measure and return the figures (and write them to ``out`` unless it is None)."""
    from benchmarks.vision import cpu
    from vision.classify import DEFAULT_MODEL, model_input
    from vision.lab import dataset as ds
    from vision.lab import train

    # The patches the reader meets: the shipped detector's boxes on rendered frames.
    crops, _, _, _ = ds.detector_samples(11, frames, DEFAULT_MODEL.with_name("index_detector.onnx"))
    x = model_input(crops[:BATCH], 1)
    shipped = train.classifier_from_onnx(DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER), crops)
    result: dict[str, Any] = {
        "benchmark": "index classifier time per patch on one thread, the shipped one, "
                     "narrower ones cut from it and the same reading smaller patches, made "
                     "8-bit the same way (speed only)",
        "measured": time.strftime("%Y-%m-%d"), **cpu(), "batch": int(len(x)),
        "repeats": repeats,
        "shipped": {"widths": list(shipped.widths),
                    "multiply_adds": multiply_adds(shipped.widths),
                    "ms_per_patch_8bit": round(_ms_per_patch(DEFAULT_MODEL, x, repeats), 4),
                    "ms_per_patch_float": round(_ms_per_patch(
                        DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER), x, repeats), 4)},
        "narrower": [], "smaller": []}

    def timed(model: Any, entry: dict[str, Any]) -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as tmp:
            f, q = Path(tmp) / "float.onnx", Path(tmp) / "8bit.onnx"
            train.export_classifier(model, f)
            train.quantize_classifier(f, q, crops, crops)
            entry.update({"ms_per_patch_8bit": round(_ms_per_patch(q, x, repeats), 4),
                          "ms_per_patch_float": round(_ms_per_patch(f, x, repeats), 4),
                          "bytes_8bit": q.stat().st_size})
        entry["times_faster_8bit"] = round(result["shipped"]["ms_per_patch_8bit"]
                                           / entry["ms_per_patch_8bit"], 2)
        return entry

    for w in widths:
        result["narrower"].append(timed(train.prune_classifier(shipped, w, crops),
                                        {"widths": list(w), "multiply_adds": multiply_adds(w)}))
    for scale in scales:
        side = int(train.INDEX_CROP * scale)  # torch's interpolate floors the side
        result["smaller"].append(timed(train.rescaled(shipped, scale), {
            "scale": scale, "side": side, "widths": list(shipped.widths),
            "multiply_adds": multiply_adds(shipped.widths, side)}))
    named = [("shipped", result["shipped"]),
             *((",".join(map(str, e["widths"])), e) for e in result["narrower"]),
             *((f"shipped at {e['side']} pixels", e) for e in result["smaller"])]
    for name, e in named:
        print(f"{name}: {e['multiply_adds'] / 1e6:.1f} M multiply-adds, "
              f"{e['ms_per_patch_8bit']:.3f} ms a patch 8-bit, "
              f"{e['ms_per_patch_float']:.3f} float")
    if out is not None:
        out.write_text(json.dumps(result, indent=2) + "\n")
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from vision.lab.bulk import parse_widths

    p.add_argument("--widths", type=parse_widths, nargs="+", default=list(WIDTHS))
    p.add_argument("--scales", type=float, nargs="*", default=list(SCALES),
                   help="shares of the patch's side the shipped weights read at")
    p.add_argument("--repeats", type=int, default=60)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats: at least 1")
    if not all(0.0 < s < 1.0 for s in args.scales):
        p.error("--scales: shares of the patch's side, over 0 and under 1")
    run(tuple(args.widths), repeats=args.repeats, out=args.out, scales=tuple(args.scales))
    return 0


if __name__ == "__main__":
    sys.exit(main())
