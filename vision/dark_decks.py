"""Decks printed on black paper (their signs in gold, silver or white ink): telling such
a frame, and the rules for reading it on its negative.

Light ink on dark paper is unlike every index the reader learnt; on the frame made
negative the indices are dark on light, as it learnt them, and are read there in grey
(the inks say nothing of the suit) at the strictest threshold the model has. The frame
reader (:mod:`vision.frame`) does the reading; here are its decisions.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.classify import Box, IndexDetector
from vision.detection import Detection, overlaps
from vision.paper import paper_level
from vision.settings import ReaderSettings


def black_frame(levels: np.ndarray, named: np.ndarray, settings: ReaderSettings) -> bool:
    """Whether a frame whose boxes lie at paper ``levels`` (:func:`paper_level`), those
    read as a card ``named``, shows a deck printed on black paper. By its ink:
    ``dark_least`` boxes or more, and ``dark_share`` of them, under ``dark_ink``. Or by its
    cards: ``dark_least`` and ``named_dark_share`` of the boxes read as a card (sure or
    not) under ``light_paper``, mostly: a checked cloth's many boxes, and the cloth seen in
    a box of a card lying askew, would hide it from the first."""
    dark = int((levels < settings.dark_ink).sum())
    named_dark = int((named & (levels < settings.light_paper)).sum())
    by_ink = dark >= max(settings.dark_least, settings.dark_share * len(levels))
    return by_ink or named_dark >= max(settings.dark_least,
                                       settings.named_dark_share * int(named.sum()))


def read_negative(gray: np.ndarray, detector: IndexDetector,
                  read: Callable[[np.ndarray, list[Box]], list[Detection]],
                  settings: ReaderSettings) -> tuple[list[Detection], list[Box]]:
    """The cards printed on dark paper in ``gray``, read on its negative: boxed there by
    the detector (only boxes not on light paper), read by ``read(negative, boxes)`` (the
    frame reader's grey read at the strictest threshold the model has, by the general
    model alone: an enrolled deck learnt its cards as they are); and the boxes read
    there."""
    negative = cv2.bitwise_not(gray)
    boxes = [box for box, _ in detector.detect(negative)
             if paper_level(gray, box) < settings.light_paper]
    if not boxes:
        return [], []
    return read(negative, boxes), boxes


def kept_as_is(boxes: list[Box], levels: np.ndarray, seen: list[Box],
               settings: ReaderSettings) -> list[int]:
    """Which of a black deck's frame's ``boxes`` (at paper ``levels``) are still read as
    they are beside the boxes ``seen`` on its negative.

    An index on dark paper that the negative boxed too is read there alone: read as it
    is, light ink on dark paper, it is unlike every index the model learnt, and a read
    of it can be sure and wrong."""
    return [i for i, (box, level) in enumerate(zip(boxes, levels, strict=True))
            if level >= settings.dark_ink or not any(overlaps(box, n) for n in seen)]
