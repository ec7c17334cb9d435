"""Reading a frame with design B: every corner index boxed by the detector, each box
read by the classifier, a card's two indices joined into one detection.

A box the first read is unsure of gets a second look (boxed again closer up, cut
smaller, larger and shifted). Where indices that may be cards crowd one another (cards
spread overlapping), that part of the frame is boxed again closer up. A grey frame is
read at the grey thresholds (``vision.paper``); a frame showing a black deck is also
read on its negative (``vision.dark_decks``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.classify import Box, CardClassifier, IndexDetector
from vision.dark_decks import black_frame, kept_as_is, read_negative
from vision.detection import Detection, one_per_code, within
from vision.join import join_reads
from vision.locate import index_crop, look_crops
from vision.paper import is_grey, paper_level
from vision.settings import ReaderSettings


class FrameReader:
    """Design B's reading of one frame, by ``classifier`` and ``detector`` with the
    reader's ``settings`` (a :class:`vision.reader.CardReader` makes one per frame)."""

    def __init__(self, classifier: CardClassifier, detector: IndexDetector,
                 settings: ReaderSettings) -> None:
        self.classifier = classifier
        self.detector = detector
        self.settings = settings

    def read(self, gray: np.ndarray, frame: np.ndarray | None = None,
             doubts: list[Detection] | None = None) -> list[Detection]:
        """Design B: box every index in the grey frame, read each box, join a card's two indices.

        The boxes are read in colour from ``frame`` (BGR) when the classifier
        reads colour; a grey-only picture is read as grey in three channels. A black
        deck's doubtful reads on the frame's negative are left out; ``doubts``, when
        given, gets them (``read_face``).
        """
        settings = self.settings
        boxes = [box for box, _ in self.detector.detect(gray)]
        if not boxes:
            return []
        source = self.crop_source(gray, frame)
        grey = is_grey(source, settings)
        # Every box's first read, once: it tells the frame's card indices from the rest.
        # An enrolled deck learnt its cards in colour: on a grey picture, where the suits
        # are told by their shape alone, the general model reads at its grey thresholds.
        with self.classifier.general_only(grey):
            probs = self.first_reads(source, boxes)
        # A deck printed on black paper (its signs in gold, silver or white ink): when
        # the frame shows several indices on dark paper, those are read on the frame made
        # negative, where they are dark on light as the reader learnt indices, in grey
        # (the inks say nothing of the suit), boxed there by the detector again
        # (``vision.dark_decks``).
        levels = np.array([paper_level(gray, box) for box in boxes])
        named = probs.argmax(axis=1) != self.classifier.none_index
        black = black_frame(levels, named, settings)
        negative: list[Detection] = []
        extra: list[Box] = []
        if not black:
            # Card indices crowding one another (cards spread overlapping): boxed again
            # closer up, the boxes found there read too. (A black deck's indices are
            # boxed on its negative, where the strictest threshold reads them.)
            extra = self.crowded_boxes(gray, boxes, self.card_like(probs))
            if extra:
                with self.classifier.general_only(grey):
                    probs = np.concatenate([probs, self.first_reads(source, extra)])
                boxes = boxes + extra
        else:
            read, seen = read_negative(gray, self.detector, self.read_negative, settings)
            negative = [d for d in read if d.code is not None]
            if doubts is not None:
                doubts.extend(d for d in read if d.code is None)
            # Some of the frame's boxes are read on the negative alone.
            keep = kept_as_is(boxes, levels, seen, settings)
            boxes = [boxes[i] for i in keep]
            if grey or self.classifier.deck is None:
                probs = probs[keep]
            else:  # read through the deck: the general model reads them again
                with self.classifier.general_only(True):
                    probs = self.first_reads(source, boxes)
        # The colour thresholds were calibrated on cards printed on white paper: a frame
        # showing a black deck (its boxes on light paper included) is read at the grey
        # thresholds, as the negative is.
        grey = grey or black
        with self.classifier.general_only(grey):
            found = self.read_boxes(gray, source, boxes, grey, probs=probs,
                                     closer=len(boxes) - len(extra))
        if not negative:
            return found
        # The cards named on the negative, and the frame's reads as it is, less its doubts
        # about those cards' indices.
        doubts_left = [d for d in found if d.code is not None
                       or not any(within(d.center, n.quad) for n in negative)]
        return one_per_code(doubts_left + negative)

    def card_like(self, probs: np.ndarray) -> np.ndarray:
        """Which first reads may be a card's index (bool per box): those whose likeliest
        card reaches the second look's floor (calibrated with the model); pips,
        pictures, a score pad's figures the first read all but rules out do not."""
        look = self.classifier.second_look
        floor = float(look.get("floor", 0.0)) if look is not None else 0.0
        top: np.ndarray = np.delete(probs, self.classifier.none_index, axis=1).max(axis=1)
        return top >= floor

    def crowded_boxes(self, gray: np.ndarray, boxes: list[Box],
                       cards: np.ndarray | None = None) -> list[Box]:
        """The index boxes the detector finds again closer up where ``boxes`` crowd.

        Cards spread overlapping (a fan, a row) show one index each, side by side: two
        indices under two of the detector's cells apart make one peak of its heat map,
        and one of them goes unboxed. Where ``crowd_least`` boxes or more that may be a
        card's index (``cards``, all when None) lie within ``crowd_span`` box sides of one
        another, one to the next, the part of the frame around them (``crowd_margin``
        sides more on every side) is boxed again at ``crowd_zoom`` times the first
        level's scale; every box found there is added, one boxing an index ``boxes`` box
        too (each box of an index is read; ``join_reads`` counts the index once). Boxes
        already large at the first level (over ``crowd_largest`` pixels at the zoomed
        scale) are told apart without it. Only boxes whose first read may be a card take
        part.
        """
        settings = self.settings
        if len(boxes) < 2:
            return []
        h, w = gray.shape
        first = self.detector.work_scale(w, h)
        scale = first * settings.crowd_zoom
        b = np.array(boxes, np.float64)
        side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        small = side * scale <= settings.crowd_largest
        if cards is not None:
            small &= cards
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        apart = np.hypot(cx[:, None] - cx[None, :], cy[:, None] - cy[None, :]) \
            / np.maximum(side[:, None], side[None, :])
        near = (apart <= settings.crowd_span) & small[:, None] & small[None, :]
        np.fill_diagonal(near, False)
        # Groups of ``crowd_least`` boxes or more near one another (connected), each boxed
        # again as one region.
        grouped = np.zeros(len(b), bool)
        regions: list[Box] = []
        for i in np.nonzero(near.any(axis=1))[0]:
            if grouped[i]:
                continue
            grouped[i], todo, members = True, [int(i)], [int(i)]
            while todo:
                for j in np.nonzero(near[todo.pop()] & ~grouped)[0]:
                    grouped[j] = True
                    todo.append(int(j))
                    members.append(int(j))
            if len(members) < settings.crowd_least:
                continue
            m = float(np.median(side[members])) * settings.crowd_margin
            regions.append((float(b[members, 0].min() - m), float(b[members, 1].min() - m),
                            float(b[members, 2].max() + m), float(b[members, 3].max() + m)))
        added: list[Box] = []
        for region in regions:
            added += [box for box, _ in self.detector.detect_closer(gray, region, scale)]
        return added

    def read_negative(self, negative: np.ndarray, boxes: list[Box]) -> list[Detection]:
        """``boxes`` of a frame's negative (``vision.dark_decks.read_negative``) read as a
        grey frame at the strictest threshold the model has, by the general model alone
        (an enrolled deck learnt its cards as they are)."""
        with self.classifier.general_only(True):
            return self.read_boxes(negative, self.crop_source(negative, None), boxes, True,
                                   strictest=True)

    def first_reads(self, source: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """The first read of each box of ``source``: its calibrated probabilities."""
        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        crops = np.stack([index_crop(source, b, size, pad) for b in boxes])
        # Pips, pictures and the table, ruled out by their upright read, are not turned:
        # the full read drops them too (``CardClassifier.first_probabilities``).
        return self.classifier.first_probabilities(crops)

    def read_boxes(self, gray: np.ndarray, source: np.ndarray, boxes: list[Box],
                    grey: bool, strictest: bool = False, probs: np.ndarray | None = None,
                    closer: int | None = None) -> list[Detection]:
        """Read ``boxes`` (their first reads ``probs`` when already made, in the same
        mode), with the second look and the pair rule: one detection per card. The boxes
        from ``closer`` on were found only closer up (``crowded_boxes``), at a scale the
        thresholds were not calibrated on, and such a box may hold part of an index
        its neighbour's box holds: a first read of one is sure only at the look's
        threshold, and under it the box gets the second look."""
        settings = self.settings
        if not boxes:  # all of a frame's boxes left to its negative, say
            return []
        probs = self.first_reads(source, boxes) if probs is None else probs.copy()
        # A grey frame (a black-and-white camera) gets stricter thresholds: its suits
        # are told by their shape alone.
        first_threshold, look_threshold = self.classifier.thresholds(grey)
        if strictest:
            # Patches unlike any the thresholds were calibrated on (a black deck's
            # negative): the strictest of them, for the first read and the look alike.
            first_threshold = look_threshold = max(first_threshold, look_threshold)
        thresholds = np.full(len(boxes), first_threshold)
        look = self.classifier.second_look
        if look is not None:
            # A box the first read is unsure of (card or none) gets a second look: the
            # detector boxes the index again, closer up (a loose box is the usual
            # reason for an unsure read), and the index is cut again at that box,
            # smaller, larger and shifted, and read every way up.
            # Not a box whose likeliest card is under the look's floor: pips and
            # pictures the first read all but rules out.
            doubted = probs.max(axis=1) < first_threshold
            if closer is not None:
                doubted[closer:] = probs[closer:].max(axis=1) < look_threshold
            unsure = np.nonzero(doubted & self.card_like(probs))[0]
            if len(unsure):
                probs[unsure] = self.look(gray, source, [boxes[i] for i in unsure], grey)
                thresholds[unsure] = look_threshold
        # An index smaller than any the thresholds were calibrated on is never read
        # surely: the table waits (and the camera should come lower, see the README).
        h, w = gray.shape
        tiny = np.array([self.detector.too_small(b, w, h) for b in boxes], bool)
        thresholds[tiny] = np.inf
        # A photo larger than the camera's frames, and a still picture, are boxed at a
        # finer level too (``IndexDetector.fine_scale``), where the floor is counted. An
        # index under the first level's floor but over that one, sharp in the photo's own
        # pixels, is read at the strictest threshold the model has: a soft photo
        # (enlarged, out of focus) shows such an index with less in it than its size
        # says. So is an index of a picture smaller than the camera's frames with fewer
        # pixels of its own than the calibration's floor (``under_calibrated``). (On the
        # camera's 1280 x 720 frames the floors are one: there is no such index.)
        if self.detector.floors_differ(w, h):
            between = ~tiny & np.array([self.detector.under_calibrated(b, w, h)
                                        for b in boxes], bool)
            if between.any():
                strict = max(*self.classifier.thresholds(True),
                             *self.classifier.thresholds(grey))
                thresholds[between] = np.maximum(thresholds[between], strict)
        # On a black deck's negative the wrong cards two doubtful indices named were
        # spades: a spade's pair counts for less there.
        spades = {"S": settings.negative_spade_pair_exponent} if strictest else None
        return join_reads(boxes, probs, thresholds, self.classifier.classes,
                          self.classifier.none_index, self.classifier.pair_exponent(grey),
                          suit_exponents=spades, settings=settings)

    def look(self, gray: np.ndarray, source: np.ndarray, boxes: list[Box],
              grey: bool = False) -> np.ndarray:
        """The second look's probabilities for each box: boxed again closer up by the
        detector, cut there smaller, larger and shifted, read every way up (at the grey
        frames' calibration when ``grey``)."""
        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        cuts = self.settings.look_cuts
        looks = np.stack([look_crops(source, self.detector.refine(gray, box) or box, size, pad,
                                     cuts) for box in boxes])
        return self.classifier.look_probabilities(looks, grey)

    def crop_source(self, gray: np.ndarray, frame: np.ndarray | None) -> np.ndarray:
        """The picture index boxes are cut from: ``frame`` (BGR) when the classifier
        reads colour, a grey-only picture as grey in three channels; else ``gray``."""
        if self.classifier.channels != 3:
            return gray
        if frame is not None and frame.ndim == 3:
            return frame
        return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
