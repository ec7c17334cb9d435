"""What the classifier's ONNX models give, named: the class of no belote card, the
output of the penultimate embedding, and the softmax turning logits into chances.

Below both :mod:`vision.deck` (an enrolled deck judges these outputs) and
:mod:`vision.classify` (which runs the models), so neither imports the other's way.
"""

from __future__ import annotations

import numpy as np

NONE = "none"
# The model output that gives the penultimate embedding (deck enrollment reads it).
FEATURES = "features"


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits."""
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    probs: np.ndarray = p / p.sum(axis=1, keepdims=True)
    return probs
