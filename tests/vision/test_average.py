"""The mean of two classifiers' weights (vision.lab.average), as the shipped one was made."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classify import MODELS

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

from vision.lab.average import average  # noqa: E402

FLOAT = MODELS / "index_classifier_fp32.onnx"


def _weights(path: Path) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def _scaled(path: Path, out: Path, factor: float) -> None:
    model = onnx.load(str(path))
    for init in model.graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype.kind == "f":
            init.CopyFrom(numpy_helper.from_array((w * factor).astype(w.dtype), init.name))
    onnx.save(model, str(out))


def test_each_weight_is_the_share_weighted_mean_of_the_two(tmp_path):
    tripled = tmp_path / "tripled.onnx"
    _scaled(FLOAT, tripled, 3.0)
    out = tmp_path / "mean.onnx"
    assert average(FLOAT, tripled, out, share=0.25) > 0
    start, got = _weights(FLOAT), _weights(out)
    for name, w in start.items():
        if w.dtype.kind == "f":
            np.testing.assert_allclose(got[name], 1.5 * w, rtol=1e-5, atol=1e-7)


def test_a_model_of_another_shape_is_refused(tmp_path):
    other = MODELS / "card_corner.onnx"
    with pytest.raises(ValueError, match="not the model"):
        average(other, FLOAT, tmp_path / "mean.onnx")
    with pytest.raises(ValueError, match="share"):
        average(FLOAT, FLOAT, tmp_path / "mean.onnx", share=1.5)
