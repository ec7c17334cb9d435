"""One card seen in a frame (:class:`Detection`), and the plane geometry of boxes and
quads the reader's parts share.

A box is ``(x1, y1, x2, y2)`` in frame pixels; a quad is a card's 4 corners (x, y).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.classify import Box, box_intersection


@dataclass(frozen=True)
class Detection:
    """One card seen in a frame."""

    code: str | None  # "JH"; None = a belote card the model is not sure of
    confidence: float  # calibrated probability of the answer
    quad: list[list[float]]  # 4 corners (x, y) in frame pixels, portrait order
    center: tuple[float, float] = field(default=(0.0, 0.0))
    # A doubtful read's likeliest card (``code`` is None then): never shown as read, but
    # another reading of the same card may agree with it.
    guess: str | None = None
    # How many of the card's corner indices a read was made or placed from (1 or 2;
    # design A's reads, from the card's outline, count 1).
    indices: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "confidence": round(self.confidence, 4),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
        }


def overlaps(a: Box, b: Box) -> bool:
    """Whether the centre of box ``a`` lies in box ``b`` (x1, y1, x2, y2)."""
    return within(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), [[b[0], b[1]], [b[2], b[3]]])


def span(quad: list[list[float]], margin: float = 0.0) -> Box:
    """The box spanned by ``quad``'s corners, ``margin`` pixels wider on every side."""
    xs, ys = [x for x, _ in quad], [y for _, y in quad]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def box_quad(box: Box) -> list[list[float]]:
    """``box``'s four corners, clockwise from its top-left (a Detection's quad)."""
    x1, y1, x2, y2 = box
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def within(point: tuple[float, float], quad: list[list[float]]) -> bool:
    """Whether ``point`` lies in the box spanned by ``quad``'s corners."""
    xs, ys = [x for x, _ in quad], [y for _, y in quad]
    return min(xs) <= point[0] <= max(xs) and min(ys) <= point[1] <= max(ys)


def same_place(a: Detection, b: Detection) -> bool:
    """Whether two reads are of one place: the centre of either lies in the other's span."""
    return within(a.center, b.quad) or within(b.center, a.quad)


def one_per_code(detections: list[Detection]) -> list[Detection]:
    """A deck holds each card once: keep the surest read of each code."""
    detections = sorted(detections, key=lambda d: -d.confidence)
    seen: set[str] = set()
    out = []
    for d in detections:
        if d.code is not None:
            if d.code in seen:
                continue
            seen.add(d.code)
        out.append(d)
    return out


def scaled(found: Detection, sx: float, sy: float) -> Detection:
    """``found`` with its positions scaled by ``sx``, ``sy``."""
    return Detection(found.code, found.confidence, [[x * sx, y * sy] for x, y in found.quad],
                     (found.center[0] * sx, found.center[1] * sy), found.guess, found.indices)


def overlap(a: Box, b: Box) -> float:
    """The share of the smaller of two boxes that lies inside the other."""
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return box_intersection(a, b) / max(smaller, 1e-6)


def gap(a: Box, b: Box) -> float:
    """Centre-to-centre distance of two boxes over the longer side of either."""
    side = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1], 1e-6)
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2)) / side
