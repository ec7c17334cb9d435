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
from vision.detection import Detection, overlaps, span
from vision.paper import paper_level
from vision.settings import ReaderSettings


def black_frame(levels: np.ndarray, named: np.ndarray, settings: ReaderSettings
                ) -> tuple[bool, bool]:
    """Whether a frame whose boxes lie at paper ``levels`` (:func:`paper_level`), those
    read as a card ``named``, shows a deck printed on black paper: ``(by_ink, black)``.
    By its ink: ``dark_least`` boxes or more, and ``dark_share`` of them, under
    ``dark_ink``. Or by its cards: ``dark_least`` and ``named_dark_share`` of the boxes
    read as a card (sure or not) under ``light_paper``, mostly: a checked cloth's many
    boxes, and the cloth seen in a box of a card lying askew, would hide it from the first."""
    dark = int((levels < settings.dark_ink).sum())
    named_dark = int((named & (levels < settings.light_paper)).sum())
    by_ink = dark >= max(settings.dark_least, settings.dark_share * len(levels))
    black = by_ink or named_dark >= max(settings.dark_least,
                                        settings.named_dark_share * int(named.sum()))
    return by_ink, black


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


def rival_as_is(read: Detection, boxes: list[Box], probs: np.ndarray, classes: list[str],
                none_index: int, settings: ReaderSettings) -> bool:
    """Whether the frame as it is (``boxes``, their first reads ``probs``) reads one of
    the indices a black deck's negative named ``read.code`` by (a box within
    ``negative_rival_margin`` pixels of the read) as that rank in another suit, likelier
    than the named card and at least ``as_is_rival``: then the card is left unknown."""
    assert read.code is not None
    named = classes.index(read.code)
    rivals = [k for k, c in enumerate(classes)
              if c != read.code and c[0] == read.code[0] and k != none_index]
    around = span(read.quad, settings.negative_rival_margin)
    for box, p in zip(boxes, probs, strict=True):
        if not overlaps(box, around):
            continue
        rival = float(p[rivals].max())
        if rival >= settings.as_is_rival and rival > float(p[named]):
            return True
    return False


def kept_as_is(boxes: list[Box], levels: np.ndarray, seen: list[Box], read: list[Detection],
               by_ink: bool, settings: ReaderSettings) -> list[int]:
    """Which of a black deck's frame's ``boxes`` (at paper ``levels``) are still read as
    they are beside the negative's reads ``read`` of its boxes ``seen``.

    An index on dark paper that the negative boxed too is read there alone: read as it
    is, light ink on dark paper, it is unlike every index the model learnt, and a read
    of it can be sure and wrong. So, in a frame told by its ink, is a box under
    ``as_is_kept_level`` that overlaps (the centre of either in the other) a box the
    negative reads as a card, surely or not: a loose box, an index on dark paper with
    some of the card's picture. Not any box the negative boxed: a white deck's dark court
    pictures, boxed there and read as no card. Nor in a frame told black by its cards
    alone: white cards spread overlapping, their indices read surely as they are and
    doubtfully on the negative."""
    carded = [n for n in seen
              if any((d.code or d.guess) and overlaps(n, span(d.quad)) for d in read)]
    return [i for i, (box, level) in enumerate(zip(boxes, levels, strict=True))
            if (level >= settings.dark_ink or not any(overlaps(box, n) for n in seen))
            and (level >= settings.as_is_kept_level or not by_ink
                 or not any(overlaps(box, n) or overlaps(n, box) for n in carded))]
