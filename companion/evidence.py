"""The camera's evidence for a card it plays: the picture it read, small.

When the tracker decides a play, the pipeline keeps the part of that frame
where the card was read (the detection's outline, a little margin around it),
scaled down to ``SIDE`` pixels and saved as a JPEG of a few kB, beside the
card and its confidence in the store. It is made once per card played, not
per frame, so the frame loop does not slow down.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# The longest side of a kept picture, in pixels, and its JPEG quality: enough
# to tell a 9 from a 10 on the organiser's phone, a few kB in the store.
SIDE = 120
QUALITY = 75
MARGIN = 0.15


def pick(detections: Iterable[Any], card: str | None) -> Any | None:
    """The detection of ``card`` in the frame (each card is in the deck once);
    for an unknown card, the one the reader could not name, when there is one."""
    found = [d for d in detections if getattr(d, "code", None) == card]
    if not found:
        return None
    return max(found, key=lambda d: float(getattr(d, "confidence", 0.0) or 0.0))


def crop_jpeg(frame: Any, quad: Any, side: int = SIDE, quality: int = QUALITY) -> bytes | None:
    """The frame's region around ``quad`` (4 corners in pixels) as a JPEG whose
    longest side is at most ``side``; None when the region is empty."""
    import cv2
    import numpy as np

    points = np.asarray(quad, dtype=np.float32).reshape(-1, 2)
    if frame is None or points.size < 4:
        return None
    height, width = frame.shape[:2]
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    pad_x, pad_y = (x1 - x0) * MARGIN, (y1 - y0) * MARGIN
    left, top = max(0, int(x0 - pad_x)), max(0, int(y0 - pad_y))
    right, bottom = min(width, int(np.ceil(x1 + pad_x))), min(height, int(np.ceil(y1 + pad_y)))
    if right - left < 2 or bottom - top < 2:
        return None
    region = frame[top:bottom, left:right]
    scale = min(1.0, side / max(region.shape[0], region.shape[1]))
    if scale < 1.0:
        region = cv2.resize(region, (max(1, round(region.shape[1] * scale)),
                                     max(1, round(region.shape[0] * scale))),
                            interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", region, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return bytes(data.tobytes()) if ok else None


def evidence(detections: Iterable[Any], frame: Any, card: str | None) -> bytes | None:
    """The picture of ``card`` in ``frame`` as a small JPEG, or None when the
    frame does not show it (the crop is evidence, never a reason to stop)."""
    found = pick(detections, card)
    if found is None:
        return None
    try:
        return crop_jpeg(frame, getattr(found, "quad", None))
    except (ValueError, TypeError, ArithmeticError):
        return None


def warm_up() -> None:
    """Load the JPEG encoder once, so the first card played does not wait for it."""
    import numpy as np

    crop_jpeg(np.zeros((8, 8, 3), np.uint8), [[0, 0], [7, 0], [7, 7], [0, 7]])
