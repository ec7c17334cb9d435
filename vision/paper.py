"""What a picture's paper says: whether it has colour to tell the suits by
(:func:`is_grey`), whether a warm or red lamp tints its white paper and the picture
brought back to white paper (:func:`paper_balance`), and how light an index box's
paper is against its ink (:func:`paper_level`, a black deck's light ink on dark paper).

Each takes the reader's settings (None: the shipped model's).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.classify import Box
from vision.settings import ReaderSettings, shipped_settings


def is_grey(image: np.ndarray, settings: ReaderSettings | None = None) -> bool:
    """Whether ``image`` (grey, or BGR) carries no colour to tell the suits by: fewer than
    ``grey_share`` of a sample of its pixels (every 7th each way) have their largest
    channel ``grey_spread`` levels or more above their smallest. (A mean over all pixels
    would take a colour photo of a grey table with red cards on it for grey.)"""
    settings = settings or shipped_settings()
    if image.ndim != 3 or image.shape[2] == 1:
        return True
    # OpenCV's per-pixel max and min of the three planes: numpy's max and min over a
    # 3-wide axis cost several times as much, on every frame.
    b, g, r = cv2.split(np.ascontiguousarray(image[::7, ::7, :3]))
    spread = cv2.max(cv2.max(b, g), r) - cv2.min(cv2.min(b, g), r)
    coloured = int(np.count_nonzero(spread >= settings.grey_spread))
    return bool(coloured < settings.grey_share * spread.size)


def paper_gains(image: np.ndarray, settings: ReaderSettings | None = None
                ) -> np.ndarray | None:
    """The gain of each channel (B, G, R) that makes the white paper of ``image`` white
    again, or None when its light is white enough (or too dark to tell): the grey-world
    idea, on the cards' paper only (the table's felt is no white). The paper's colour is
    the mean of the brightest ``paper_share`` of a sample of the pixels (every 8th each
    way, at least ``paper_least``); a paper whose weakest channel is under ``paper_cast``
    of its strongest is lit by a coloured lamp, each channel raised to the strongest's
    level (at most ``paper_gain`` times); a paper under ``paper_dark`` says nothing."""
    settings = settings or shipped_settings()
    sample = np.ascontiguousarray(image[::8, ::8, :3]).reshape(-1, 3)
    if len(sample) < settings.paper_least:
        return None
    lum = sample.astype(np.int32).sum(axis=1)
    k = max(int(settings.paper_share * len(sample)), settings.paper_least)
    brightest = np.argpartition(lum, len(lum) - k)[len(lum) - k:]
    paper = sample[brightest].astype(np.float32).mean(axis=0)
    top = float(paper.max())
    if top < settings.paper_dark or float(paper.min()) >= settings.paper_cast * top:
        return None
    gains: np.ndarray = np.minimum(top / np.maximum(paper, 1.0), settings.paper_gain)
    return gains


def paper_balance(image: np.ndarray, settings: ReaderSettings | None = None
                  ) -> np.ndarray | None:
    """``image`` (BGR) with its white paper made white again (:func:`paper_gains`), or
    None when its light is white enough."""
    gains = paper_gains(image, settings)
    if gains is None:
        return None
    # One look-up table per channel: each level times its channel's gain.
    table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains + 0.5, 0, 255)
    out: np.ndarray = cv2.LUT(np.ascontiguousarray(image[:, :, :3]),
                              table.astype(np.uint8).reshape(256, 1, 3))
    return out


def white_paper(image: np.ndarray, settings: ReaderSettings | None = None) -> np.ndarray:
    """``image`` (BGR) brought back to white paper where a lamp tints it, else itself."""
    balanced = paper_balance(image, settings)
    return balanced if balanced is not None else image


def paper_level(gray: np.ndarray, box: Box) -> float:
    """Where the mean grey level of ``box`` in ``gray`` lies between its darkest and its
    lightest (5th and 95th percentiles; 0 to 1, 1 for an empty or flat box): an index
    printed dark on light paper lies high (paper fills most of the box), one printed in
    light ink on dark paper low."""
    h, w = gray.shape[:2]
    x1, y1 = max(int(box[0]), 0), max(int(box[1]), 0)
    x2, y2 = min(int(np.ceil(box[2])), w), min(int(np.ceil(box[3])), h)
    # Every other pixel each way, the two percentiles by rank (a partial sort): every box
    # of every frame is measured.
    flat = gray[y1:y2:2, x1:x2:2].ravel()
    if flat.size == 0:
        return 1.0
    k5, k95 = int(0.05 * (flat.size - 1)), int(0.95 * (flat.size - 1))
    ranked = np.partition(flat, (k5, k95))
    lo, hi = float(ranked[k5]), float(ranked[k95])
    if hi - lo < 1.0:
        return 1.0
    return float((flat.mean() - lo) / (hi - lo))
