"""Give an index classifier ONNX file a second output, ``features``.

Deck enrollment (:mod:`vision.deck`) compares patches by the classifier's
penultimate embedding: the input of its last Linear layer (``Gemm`` or
``MatMul``), N x D float32. Models trained from now on export it themselves as
output 1; this script adds it to a file exported before, without touching
any weight, so the logits (output 0) stay exactly what they were.

    python -m vision.lab.add_features vision/models/index_classifier.onnx [OUT]

Needs the ``onnx`` package (the ``train`` extra). Running it on a file that
has the output already changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FEATURES = "features"


def _last_linear(graph):
    """The graph's last Gemm/MatMul node: the classifier's head."""
    for node in reversed(graph.node):
        if node.op_type in ("Gemm", "MatMul"):
            return node
    raise ValueError("no Gemm or MatMul node: not a classifier with a linear head")


def _width(graph, node) -> int | None:
    """D, the embedding's width, read from the head's weight when it is an initializer
    (directly or through a DequantizeLinear), else None."""
    inits = {i.name: list(i.dims) for i in graph.initializer}
    producers = {o: n for n in graph.node for o in n.output}
    weight = node.input[1]
    while weight not in inits and weight in producers and \
            producers[weight].op_type == "DequantizeLinear":
        weight = producers[weight].input[0]
    dims = inits.get(weight)
    if not dims or len(dims) != 2:
        return None
    trans_b = any(a.name == "transB" and a.i == 1 for a in node.attribute)
    return int(dims[1] if (node.op_type == "Gemm" and trans_b) else dims[0])


def add_features(model):
    """The ONNX model (``onnx.ModelProto``) with ``features`` as its second output;
    the same model when it has it already."""
    from onnx import TensorProto, helper

    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        return model
    head = _last_linear(graph)
    batch = graph.output[0].type.tensor_type.shape.dim[0]
    width = _width(graph, head)
    graph.node.append(helper.make_node("Identity", [head.input[0]], [FEATURES],
                                       name="features_Identity"))
    first = batch.dim_param or (batch.dim_value if batch.dim_value else None)
    graph.output.append(helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT,
                                                      [first, width]))
    return model


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.lab.add_features",
                                description=__doc__.splitlines()[0])
    p.add_argument("model", help="classifier .onnx")
    p.add_argument("out", nargs="?", help="where to write it (default: in place)")
    args = p.parse_args(argv)
    import onnx

    src = Path(args.model)
    if not src.is_file():
        print(f"{src}: no such model file", file=sys.stderr)
        return 2
    model = add_features(onnx.load(str(src)))
    onnx.checker.check_model(model)
    out = Path(args.out) if args.out else src
    onnx.save(model, str(out))
    print(f"{out}: outputs {[o.name for o in model.graph.output]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
