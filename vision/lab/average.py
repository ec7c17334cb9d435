"""The mean of two trained index classifiers' weights (float ONNX), as shipped since run 6.

A classifier trained further on new data (run 6: the KDE designs, French indices printed
over the designs' art) reads what it was trained on better and the held-out designs a
little worse; the mean of its weights and those of the model it started from keeps most
of both (weight-space ensembling of a fine-tuned model with its start, "WiSE-FT",
Wortsman et al., 2022). Both files must have the same graph, as models trained one from
the other by ``vision train --init`` have. The mean is then made 8-bit and calibrated by
``vision train --only quantize``.

    python -m vision.lab.average START.onnx TRAINED.onnx OUT.onnx [--share 0.5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def average(start: Path, trained: Path, out: Path, share: float = 0.5) -> int:
    """Write ``out``: ``trained``'s graph with each float weight ``share`` of
    ``trained``'s plus the rest of ``start``'s; returns the number of weights mixed."""
    import onnx
    from onnx import numpy_helper

    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share: expected 0 to 1, got {share}")
    a, b = onnx.load(str(start)), onnx.load(str(trained))
    first = {i.name: numpy_helper.to_array(i) for i in a.graph.initializer}
    mixed = 0
    for init in b.graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype.kind != "f":
            continue
        s = first.get(init.name)
        if s is None or s.shape != w.shape:
            raise ValueError(f"{start}: no weight {init.name} of shape {w.shape}: "
                             f"not the model {trained} was trained from")
        mean = share * w.astype(np.float64) + (1.0 - share) * s.astype(np.float64)
        init.CopyFrom(numpy_helper.from_array(mean.astype(w.dtype), init.name))
        mixed += 1
    if not mixed:
        raise ValueError(f"{trained}: no float weights (an 8-bit model?)")
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(b, str(out))
    return mixed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("start")
    p.add_argument("trained")
    p.add_argument("out")
    p.add_argument("--share", type=float, default=0.5, help="the trained model's share")
    args = p.parse_args(argv)
    n = average(Path(args.start), Path(args.trained), Path(args.out), args.share)
    print(f"{args.out}: {n} weights mixed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
