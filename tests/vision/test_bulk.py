"""The bulk trainer (``vision.lab.bulk``): rendered shards, worker batches, the float model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.classify import MODELS


@pytest.fixture()
def tiny_shards(monkeypatch):
    from vision.lab import bulk, decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    monkeypatch.setattr(bulk, "SHARD", 2)
    return bulk


def test_bulk_training_writes_a_float_model_trained_from_the_start(tiny_shards, tmp_path):
    import onnx
    from onnx import numpy_helper

    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--out", str(tmp_path), "--frames", "6",
                             "--steps", "3", "--batch", "8", "--workers", "2"]) == 0
    summary = json.loads((tmp_path / "bulk_summary.json").read_text())
    assert summary["frames"] == 6 and summary["shards"] == "0-2" and summary["steps"] == 3
    assert summary["patches"] > summary["real_patches"] > 0
    trained = {t.name: numpy_helper.to_array(t)
               for t in onnx.load(str(tmp_path / "index_classifier_fp32.onnx")).graph.initializer}
    before = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(start)).graph.initializer}
    assert trained.keys() == before.keys()
    assert any(not np.array_equal(trained[k], before[k]) for k in trained)


def test_bulk_training_refuses_too_few_frames(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--frames", "1"])
    assert "--frames" in capsys.readouterr().err
