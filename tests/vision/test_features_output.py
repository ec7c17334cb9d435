"""The shipped classifier's second output, ``features`` (vision/lab/add_features.py), adds
an output and changes no logit."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classify import DEFAULT_MODEL
from vision.lab.add_features import FEATURES

onnx = pytest.importorskip("onnx", reason="the onnx package (train extra) edits the graph")
ort = pytest.importorskip("onnxruntime")


def _without_features(model):
    """The shipped graph as a file exported before the second output: the features output
    out, and its node (the script's Identity) or, where the export named the head's input
    ``features`` itself, that tensor under another name."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    outputs = [o for o in copy.graph.output if o.name != FEATURES]
    del copy.graph.output[:]
    copy.graph.output.extend(outputs)
    producer = next(n for n in copy.graph.node if FEATURES in n.output)
    if producer.op_type == "Identity":
        nodes = [n for n in copy.graph.node if n is not producer]
        del copy.graph.node[:]
        copy.graph.node.extend(nodes)
        return copy
    for node in copy.graph.node:
        for names in (node.input, node.output):
            for i, name in enumerate(names):
                if name == FEATURES:
                    names[i] = "head_input"
    return copy


def test_shipped_classifier_gives_logits_then_features():
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    assert [o.name for o in session.get_outputs()][1] == FEATURES
    x = np.random.default_rng(0).random((7, 3, 32, 32), dtype=np.float32)
    logits, features = session.run(None, {"image": x})
    assert logits.shape == (7, 33)
    assert features.shape == (7, 128) and features.dtype == np.float32


def test_adding_features_keeps_the_logits_identical(tmp_path):
    from vision.lab.add_features import add_features

    shipped = onnx.load(str(DEFAULT_MODEL))
    before = _without_features(shipped)
    assert [o.name for o in before.graph.output] == ["out"]
    after = add_features(_without_features(shipped))
    onnx.checker.check_model(after)
    x = np.random.default_rng(1).random((64, 3, 32, 32), dtype=np.float32)
    run = {}
    for name, model in (("before", before), ("after", after)):
        path = tmp_path / f"{name}.onnx"
        onnx.save(model, str(path))
        run[name] = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
            None, {"image": x})
    assert np.array_equal(run["before"][0], run["after"][0])
    # The shipped file's features are the head's input, as the script gives them.
    ours = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    logits, features = ours.run(None, {"image": x})
    assert np.array_equal(logits, run["before"][0])
    assert np.array_equal(features, run["after"][1])
    # A second run changes nothing.
    assert add_features(after).SerializeToString() == after.SerializeToString()

