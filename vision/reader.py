"""The card reader: a frame in, the belote cards on it out.

``CardReader.read(frame)`` runs one of two designs, chosen by the model file
(see ``vision/models/README.md`` for how they compare):

* B (shipped): a small ONNX detector boxes every corner index (rank + suit)
  in the frame and the 8-bit ONNX classifier names each box (a box its upright
  read already rules out is not read at its other quarter turns); a box it is
  unsure of gets a second look (the detector boxes the index again, closer up;
  the index is cut there smaller, larger and shifted, the readings pooled and
  calibrated apart), and so does a sure read another sure read contradicts
  (``rival_reads``); the two indices of a card give one detection, centred
  between them. Where indices that may be cards crowd one another (cards spread
  overlapping), the detector boxes that part of the frame again, closer up. A
  frame lit by a warm or red lamp is first brought back to white paper
  (``paper_balance``) and read at the grey thresholds; a frame with
  several indices on dark paper (a black deck) is also read on its negative
  (``paper_level``).
* A: card outlines (:mod:`vision.locate`), then the classifier reads the two
  corner indices cut from each outline.

Things that are not belote cards (backs, a 2-6, a joker, clutter) are left
out; a card the model is not sure of comes back with ``code=None`` so that
the caller waits for a better frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from vision.classify import (
    CAMERA_FINEST,
    CORNER_MODEL,
    STILL_FINEST,
    Box,
    CardClassifier,
    IndexDetector,
    box_intersection,
    check_reads,
)
from vision.imagefile import load_image as load_image  # its place before: re-exported
from vision.locate import corner_crops, find_cards, index_crop, look_crops, quad_center


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


class CardReader:
    """Locate and read every belote card in a frame."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1,
                 deck: str | Path | None = None, still: bool = False) -> None:
        """``still``: the pictures are still pictures, not the camera's frames
        (``vision read``, ``vision eval``): each is boxed down to its own pixels
        (``IndexDetector.finest``), slower, and smaller cards are read."""
        cv2.setNumThreads(threads)
        self.threads = threads
        # ``read_face``'s choice among a picture's sure reads of different cards (a card
        # cut out of a photo with its neighbours' indices): ``FACE_CHOICES``.
        self.face_choice = "placed"
        # ``read_face`` leaves unknown a number card named on a face whose middle is a
        # court's picture (``face_is_picture``); off, the read as it is (``face_rule.py``).
        self.face_check = True
        # When ``read_face`` takes a sure read of the picture stretched to the other shape
        # where the picture as it is was read only doubtfully: ``SHAPE_AGREEMENTS``.
        self.shape_agree = SHAPE_AGREE
        # What the frame as it is must have guessed where a card is named only once the
        # frame is sharpened (``sharpened_reads``): ``SHARPEN_AGREEMENTS``.
        self.sharpen_agree = SHARPEN_AGREE
        self._corner: CardReader | None = None
        self.classifier = CardClassifier(model_path, threads=threads)
        self.design = self.classifier.design
        self.detector: IndexDetector | None = None
        if self.design == "B":
            check_reads(self.classifier)  # refuses to start blind (ReaderCheckError)
            meta = self.classifier.meta
            self.detector = IndexDetector(self.classifier.model_path.with_name(meta["detector"]),
                                          threads=threads,
                                          heat_threshold=float(meta["heat_threshold"]),
                                          stride=int(meta["stride"]))
            if still:
                self.detector.finest = STILL_FINEST
        if deck is not None:
            self.use_deck(deck)

    def use_deck(self, path: str | Path | None) -> None:
        """Read the cards of the club's enrolled deck (``vision.deck``) through it; other
        cards as before. None: the general model alone. A bad deck file raises
        ``DeckError`` (a ValueError) saying why."""
        from vision.deck import Deck, DeckError

        if path is None:
            self.classifier.use_deck(None)
            return
        if self.detector is None:
            raise DeckError(f"{path} : un jeu enrôlé se lit avec le lecteur à détecteur "
                            f"d'index (design B) (a deck needs design B)")
        self.classifier.use_deck(Deck.load(path), str(path))

    def _to_gray(self, frame: np.ndarray) -> np.ndarray:
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3):
            raise ValueError("frame: expected an image array (H x W or H x W x 3)")
        if frame.ndim == 2:
            return frame
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)

    def read_quads(self, frame: np.ndarray, quads: list[np.ndarray]) -> list[Detection]:
        """Read the cards at known outlines; leave out those that are no belote card."""
        gray = self._to_gray(frame)
        if not quads:
            return []
        crops = np.stack([corner_crops(gray, q, self.classifier.region,
                                       self.classifier.crop_size) for q in quads])
        out = []
        for quad, read in zip(quads, self.classifier.read_pairs(crops), strict=True):
            if not read.is_card:
                continue
            out.append(Detection(read.code, read.confidence,
                                 [[float(x), float(y)] for x, y in quad], quad_center(quad)))
        return out

    def read(self, frame: np.ndarray, doubts: list[Detection] | None = None,
             sharpen: bool = True) -> list[Detection]:
        """Every belote card found in a BGR (or grey) frame, best reads first. ``doubts``,
        when given, gets the doubtful reads that are not among them (``read_indices``).
        ``sharpen``: a frame smeared by the camera's motion that leaves a card unsure is
        sharpened and read again (:meth:`sharpened_reads`)."""
        gray = self._to_gray(frame)  # fails early, with a clear message, on a bad frame
        if self.detector is not None:
            found = self.read_indices(gray, frame, doubts)
            if sharpen and any(d.code is None for d in found):
                added = [d for d in self.sharpened_reads(gray, frame, found)
                         if d.confidence >= SHARPENED_SURE]
                if added:
                    # The doubts a card named on the sharpened frame explains leave.
                    rest = [d for d in found
                            if d.code is not None or not any(_same_place(d, a) for a in added)]
                    found = _one_per_code(rest + added)
            return found
        detections = self.read_quads(frame, find_cards(frame))
        return _one_per_code(detections)

    def sharpened_reads(self, gray: np.ndarray, frame: np.ndarray,
                        found: list[Detection], depth: float | None = None,
                        agree: str | None = None) -> list[Detection]:
        """The cards the frame names once sharpened that ``found`` (its reads as it is) does
        not: none unless the frame is smeared along one line (``vision.motion.estimate``)
        at least SHARPEN_LENGTH pixels, its cepstrum's trough SHARPEN_DEPTH deep or more.
        The sharpened frame (``vision.motion.sharpen``) is read as a frame is; a card it
        names counts where no card of ``found`` is named over it and the doubts of ``found``
        there agree with it (``sharpen_agrees``, by ``agree`` or the reader's
        ``sharpen_agree``), whatever its confidence (``read`` keeps those at SHARPENED_SURE
        or more). ``depth``: another least depth (``vision.lab.sharpen_rule`` chooses
        SHARPEN_DEPTH and the agreement with these)."""
        from vision import motion

        streak = motion.estimate(gray)
        least = SHARPEN_DEPTH if depth is None else depth
        if streak.length < SHARPEN_LENGTH or streak.depth < least:
            return []
        sharp = motion.sharpen(frame, streak)
        named = [d for d in found if d.code is not None]
        codes = {d.code for d in named}
        doubts = [d for d in found if d.code is None]
        rule = self.sharpen_agree if agree is None else agree
        # As a deck does (``vision.deck``), the sharpened frame only makes sure what the
        # frame as it is guessed there (by the shipped agreement, a card of the suit it
        # guessed): a suit the smear hid can come back wrong, a rank less often.
        return [d for d in self.read_indices(self._to_gray(sharp), sharp)
                if d.code is not None and d.code not in codes
                and not any(_within(d.center, n.quad) for n in named)
                and sharpen_agrees(d.code, guesses_at(d, doubts), rule)]

    def read_indices(self, gray: np.ndarray, frame: np.ndarray | None = None,
                     doubts: list[Detection] | None = None) -> list[Detection]:
        """Design B: box every index in the grey frame, read each box, join a card's two indices.

        The boxes are read in colour from ``frame`` (BGR) when the classifier
        reads colour; a grey-only picture is read as grey in three channels. A black
        deck's doubtful reads on the frame's negative are left out; ``doubts``, when
        given, gets them (``read_face``).
        """
        assert self.detector is not None
        lamp = False
        if frame is not None and frame.ndim == 3 and self.classifier.channels == 3:
            # Under a warm or red lamp the white paper is tinted: the frame is brought back
            # to white paper (``paper_balance``), as the reader was trained on it. Its
            # colours come back only roughly (the blue the lamp left is raised, noise and
            # all): it is read at the grey frames' stricter thresholds.
            balanced = paper_balance(frame)
            if balanced is not None:
                frame, lamp = balanced, True
                gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        boxes = [box for box, _ in self.detector.detect(gray)]
        if not boxes:
            return []
        source = self._crop_source(gray, frame)
        grey = lamp or is_grey(source)
        # Every box's first read, once: it tells the frame's card indices from the rest.
        # An enrolled deck learnt its cards in colour: on a grey picture, where the suits
        # are told by their shape alone, the general model reads at its grey thresholds.
        with self.classifier.general_only(grey):
            probs = self._first_reads(source, boxes)
        # A deck printed on black paper (its signs in gold, silver or white ink): when
        # the frame shows several indices on dark paper, those are read on the frame made
        # negative, where they are dark on light as the reader learnt indices, in grey
        # (the inks say nothing of the suit), boxed there by the detector again. Several
        # boxes on dark paper say so; so do several of the boxes read as a card lying low
        # between their darkest and lightest, mostly: a checked cloth's many boxes, and
        # the cloth seen in a box of a card lying askew, would hide it from the first.
        levels = np.array([paper_level(gray, box) for box in boxes])
        dark = int((levels < DARK_INK).sum())
        named = probs.argmax(axis=1) != self.classifier.none_index
        named_dark = int((named & (levels < LIGHT_PAPER)).sum())
        by_ink = dark >= max(DARK_LEAST, DARK_SHARE * len(boxes))
        black = by_ink or named_dark >= max(DARK_LEAST, NAMED_DARK_SHARE * int(named.sum()))
        negative: list[Detection] = []
        extra: list[Box] = []
        if not black:
            # Card indices crowding one another (cards spread overlapping): boxed again
            # closer up, the boxes found there read too. (A black deck's indices are
            # boxed on its negative, where the strictest threshold reads them.)
            extra = self._crowded_boxes(gray, boxes, self._card_like(probs))
            if extra:
                with self.classifier.general_only(grey):
                    probs = np.concatenate([probs, self._first_reads(source, extra)])
                boxes = boxes + extra
        else:
            read, seen = self._read_negative(gray)
            # A card the frame as it is reads in another suit is left unknown (NEGATIVE_RIVAL).
            negative = [d for d in read
                        if d.code is not None and not self._rival_as_is(d, boxes, probs)]
            if doubts is not None:
                doubts.extend(d for d in read if d.code is None)
            # An index on dark paper that the negative boxed too is read there alone:
            # read as it is, light ink on dark paper, it is unlike every index the model
            # learnt, and a read of it can be sure and wrong.
            # So, in a frame told by its boxes on dark paper, is a box of the frame under
            # LIGHT_PAPER that overlaps (the centre of either in the other) a box the
            # negative reads as a card, surely or not: a loose box, an index on dark paper
            # with some of the card's picture, read as it is, named a sure wrong card too
            # (AS_IS_KEPT_LEVEL). Not any box the negative boxed: a white deck's dark court
            # pictures, boxed there and read as no card. Nor in a frame told black by its
            # boxes read as cards alone: white cards spread overlapping, their indices
            # read surely as they are and doubtfully on the negative.
            carded = [n for n in seen
                      if any((d.code or d.guess) and _overlaps(n, _span(d.quad)) for d in read)]
            keep = [i for i, (box, level) in enumerate(zip(boxes, levels, strict=True))
                    if (level >= DARK_INK or not any(_overlaps(box, n) for n in seen))
                    and (level >= AS_IS_KEPT_LEVEL or not by_ink
                         or not any(_overlaps(box, n) or _overlaps(n, box) for n in carded))]
            boxes = [boxes[i] for i in keep]
            if grey or self.classifier.deck is None:
                probs = probs[keep]
            else:  # read through the deck: the general model reads them again
                with self.classifier.general_only(True):
                    probs = self._first_reads(source, boxes)
        # The colour thresholds were calibrated on cards printed on white paper: a frame
        # showing a black deck (its boxes on light paper included) is read at the grey
        # thresholds, as the negative is.
        grey = grey or black
        with self.classifier.general_only(grey):
            found = self._read_boxes(gray, source, boxes, grey, probs=probs,
                                     closer=len(boxes) - len(extra))
        if not negative:
            return found
        # The cards named on the negative, and the frame's reads as it is, less its doubts
        # about those cards' indices.
        doubts_left = [d for d in found if d.code is not None
                       or not any(_within(d.center, n.quad) for n in negative)]
        return _one_per_code(doubts_left + negative)

    def _rival_as_is(self, read: Detection, boxes: list[Box], probs: np.ndarray) -> bool:
        """Whether the frame as it is (``boxes``, their first reads ``probs``) reads one of
        the indices a black deck's negative named ``read.code`` by as that rank in another
        suit, likelier than the named card and at least AS_IS_RIVAL: then the card is left
        unknown (NEGATIVE_RIVAL)."""
        assert read.code is not None
        classes = self.classifier.classes
        named = classes.index(read.code)
        rivals = [k for k, c in enumerate(classes)
                  if c != read.code and c[0] == read.code[0] and k != self.classifier.none_index]
        span = _span(read.quad, NEGATIVE_RIVAL_MARGIN)
        for box, p in zip(boxes, probs, strict=True):
            if not _overlaps(box, span):
                continue
            rival = float(p[rivals].max())
            if rival >= AS_IS_RIVAL and rival > float(p[named]):
                return True
        return False

    def _card_like(self, probs: np.ndarray) -> np.ndarray:
        """Which first reads may be a card's index (bool per box): those whose likeliest
        card reaches the second look's floor (``vision.lab.train.look_floor``); pips,
        pictures, a score pad's figures the first read all but rules out do not."""
        look = self.classifier.second_look
        floor = float(look.get("floor", 0.0)) if look is not None else 0.0
        top: np.ndarray = np.delete(probs, self.classifier.none_index, axis=1).max(axis=1)
        return top >= floor

    def _crowded_boxes(self, gray: np.ndarray, boxes: list[Box],
                       cards: np.ndarray | None = None) -> list[Box]:
        """The index boxes the detector finds again closer up where ``boxes`` crowd.

        Cards spread overlapping (a fan, a row) show one index each, side by side: two
        indices under two of the detector's cells apart make one peak of its heat map,
        and one of them goes unboxed. Where CROWD_LEAST boxes or more that may be a
        card's index (``cards``, all when None) lie within CROWD_SPAN box sides of one
        another, one to the next, the part of the frame around them (CROWD_MARGIN sides
        more on every side) is boxed again at CROWD_ZOOM times the first level's scale;
        every box found there is added, one boxing an index ``boxes`` box too (each box
        of an index is read; ``join_reads`` counts the index once). Boxes already large
        at the first level (over CROWD_LARGEST pixels at the zoomed scale) are told
        apart without it.
        """
        assert self.detector is not None
        if len(boxes) < 2:
            return []
        h, w = gray.shape
        first = self.detector.work_scale(w, h)
        scale = first * CROWD_ZOOM
        b = np.array(boxes, np.float64)
        side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        small = side * scale <= CROWD_LARGEST
        if cards is not None:
            small &= cards
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        apart = np.hypot(cx[:, None] - cx[None, :], cy[:, None] - cy[None, :]) \
            / np.maximum(side[:, None], side[None, :])
        near = (apart <= CROWD_SPAN) & small[:, None] & small[None, :]
        np.fill_diagonal(near, False)
        # Groups of CROWD_LEAST boxes or more near one another (connected), each boxed
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
            if len(members) < CROWD_LEAST:
                continue
            m = float(np.median(side[members])) * CROWD_MARGIN
            regions.append((float(b[members, 0].min() - m), float(b[members, 1].min() - m),
                            float(b[members, 2].max() + m), float(b[members, 3].max() + m)))
        added: list[Box] = []
        for region in regions:
            added += [box for box, _ in self.detector.detect_closer(gray, region, scale)]
        return added

    def _read_negative(self, gray: np.ndarray) -> tuple[list[Detection], list[Box]]:
        """The cards printed on dark paper in ``gray``, read on its negative: boxed there
        by the detector (only boxes not on light paper), read as a grey frame at the
        strictest threshold the model has, by the general model alone (an enrolled deck
        learnt its cards as they are); and the boxes read there."""
        assert self.detector is not None
        negative = cv2.bitwise_not(gray)
        boxes = [box for box, _ in self.detector.detect(negative)
                 if paper_level(gray, box) < LIGHT_PAPER]
        if not boxes:
            return [], []
        with self.classifier.general_only(True):
            return self._read_boxes(negative, self._crop_source(negative, None), boxes, True,
                                    strictest=True), boxes

    def _first_reads(self, source: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """The first read of each box of ``source``: its calibrated probabilities."""
        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        crops = np.stack([index_crop(source, b, size, pad) for b in boxes])
        # Pips, pictures and the table, ruled out by their upright read, are not turned:
        # the full read drops them too (``CardClassifier.first_probabilities``).
        return self.classifier.first_probabilities(crops)

    def _read_boxes(self, gray: np.ndarray, source: np.ndarray, boxes: list[Box],
                    grey: bool, strictest: bool = False, probs: np.ndarray | None = None,
                    closer: int | None = None) -> list[Detection]:
        """Read ``boxes`` (their first reads ``probs`` when already made, in the same
        mode), with the second look and the pair rule: one detection per card. The boxes
        from ``closer`` on were found only closer up (``_crowded_boxes``), at a scale the
        thresholds were not calibrated on, and such a box may hold part of an index
        its neighbour's box holds: a first read of one is sure only at the look's
        threshold, and under it the box gets the second look."""
        assert self.detector is not None
        if not boxes:  # all of a frame's boxes left to its negative, say
            return []
        probs = self._first_reads(source, boxes) if probs is None else probs.copy()
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
            # pictures the first read all but rules out (``vision.lab.train.look_floor``).
            doubted = probs.max(axis=1) < first_threshold
            if closer is not None:
                doubted[closer:] = probs[closer:].max(axis=1) < look_threshold
            unsure = np.nonzero(doubted & self._card_like(probs))[0]
            if len(unsure):
                probs[unsure] = self._look(gray, source, [boxes[i] for i in unsure], grey)
                thresholds[unsure] = look_threshold
            # A sure read the frame contradicts (``rival_reads``) gets a closer look
            # too. The look decides when it is sure, or when it gives another card a
            # real chance (RIVAL_DOUBT): the index may be the rival's. A look that
            # only doubts whether an index is there leaves the first read as it was.
            looked = set(unsure.tolist())
            rivals = [i for i in rival_reads(boxes, probs, thresholds, self.classifier.classes,
                                             self.classifier.none_index) if i not in looked]
            if rivals:
                second = self._look(gray, source, [boxes[i] for i in rivals], grey)
                none = self.classifier.none_index
                for i, p in zip(rivals, second, strict=True):
                    other = p.copy()
                    other[[int(probs[i].argmax()), none]] = 0.0
                    if p.max() >= look_threshold or other.max() >= RIVAL_DOUBT:
                        probs[i] = p
                        thresholds[i] = look_threshold
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
        # On a black deck's negative the wrong cards two doubtful indices named were all
        # spades: a spade's pair counts for less there (NEGATIVE_SPADE_PAIR_EXPONENT).
        spades = {"S": NEGATIVE_SPADE_PAIR_EXPONENT} if strictest else None
        return join_reads(boxes, probs, thresholds, self.classifier.classes,
                          self.classifier.none_index, self.classifier.pair_exponent(grey),
                          suit_exponents=spades)

    def _look(self, gray: np.ndarray, source: np.ndarray, boxes: list[Box],
              grey: bool = False) -> np.ndarray:
        """The second look's probabilities for each box: boxed again closer up by the
        detector, cut there smaller, larger and shifted, read every way up (at the grey
        frames' calibration when ``grey``)."""
        assert self.detector is not None
        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        looks = np.stack([look_crops(source, self.detector.refine(gray, box) or box, size, pad)
                          for box in boxes])
        return self.classifier.look_probabilities(looks, grey)

    def _crop_source(self, gray: np.ndarray, frame: np.ndarray | None) -> np.ndarray:
        """The picture index boxes are cut from: ``frame`` (BGR) when the classifier
        reads colour, a grey-only picture as grey in three channels; else ``gray``."""
        if self.classifier.channels != 3:
            return gray
        if frame is not None and frame.ndim == 3:
            return frame
        return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)

    def index_sizes(self, frame: np.ndarray) -> tuple[list[float], float]:
        """How large the card indices in ``frame`` are, against what the reader needs.

        Returns the longer side of each index box the classifier takes for a
        belote card (sure or not), as a share of the frame's height, largest
        first; and the smallest share it reads surely (``IndexDetector.MIN_READ_SIDE``
        at this frame's size). ``belote-table calibrate`` uses it to tell an
        organiser whether the camera is low enough. Design B only.
        """
        gray = self._to_gray(frame)
        if self.detector is None:
            raise ValueError("index sizes need the index detector (design B)")
        h, w = gray.shape
        needed = self.detector.MIN_READ_SIDE / (self.detector.floor_scale(w, h) * h)
        boxes = [box for box, _ in self.detector.detect(gray)]
        if not boxes:
            return [], needed
        source = self._crop_source(gray, frame)
        crops = np.stack([index_crop(source, b, int(self.classifier.meta["crop"]),
                                     float(self.classifier.meta["pad"])) for b in boxes])
        named = self.classifier.probabilities(crops).argmax(axis=1) != self.classifier.none_index
        sides = [float(max(b[2] - b[0], b[3] - b[1]) / h)
                 for b, card in zip(boxes, named, strict=True) if card]
        return sorted(sides, reverse=True), float(needed)

    def read_face(self, image: np.ndarray) -> Detection | None:
        """Read an image that is a single card face filling the picture (a warped card).

        A picture much larger than the cards the reader was trained on (over
        ``FACE_LARGE`` times ``FACE_SIDE`` pixels on its longer side) is read first
        brought down to ``FACE_SIDE`` (the detector boxes a big index poorly), then,
        with no sure read there, as it is (a photo with a wide margin, where the card is
        smaller than the picture).

        Each time, design B's detector and classifier look for the indices anywhere in
        the picture (a warp that cut an index off still has one somewhere). Of several
        cards read surely (a card cut out of a photo shows its neighbours' indices too),
        the one read where the card filling the picture has its indices is taken
        (``face_choice``, ``face_spots``). Where B reads nothing surely, design A's corner
        model (shipped beside B's, trained on drawn cards only) reads the picture's
        corners, the whole picture being the card's outline; its sure read is taken only
        where B found no index at all, or where B's likeliest card for one of the
        indices it doubts is the same card: A alone misreads courts of real designs it
        never saw (a queen with a crown read as a ten), which B reads right or leaves
        unknown.

        A number card (7 to 10) named on a picture whose middle looks like a court's
        picture (``face_is_picture``) is left unknown: a court's index taken for a
        number's (a jack's for an 8, a looped Q for a 9).

        Where nothing is read surely, a card read doubtfully at both its indices, one at
        each of two opposite corners where the picture's card has them, is named when the
        two together are sure enough (``face_pair``).

        A warp can also get the card's sides wrong: a card lying across the
        photo, warped into an upright picture, has its long side squeezed onto
        the short one and its indices squashed to two thirds of their width.
        So when nothing is read surely, the picture is read again stretched to
        the other shape (``w x h`` as ``h x w``). With no sure read at all, the
        first doubtful answer is given.
        """
        image = np.asarray(image)
        self._to_gray(image)  # a bad picture fails early, with a clear message
        if self.detector is None:
            return self._read_face(image)
        # A card filling the picture has large indices: a still picture's finer level
        # (``still``) is for a scene's small cards, and is not used here.
        finest, self.detector.finest = self.detector.finest, CAMERA_FINEST
        try:
            found = self._read_face(image)
        finally:
            self.detector.finest = finest
        if (self.face_check and found is not None and found.code is not None
                and found.code[0] in NUMBER_RANKS and face_is_picture(image)):
            # A number card named on a face whose middle is a court's picture: the index
            # is a court's that the reader took for a number (a jack's for an 8, a looped
            # Q for a 9 or an 8): left unknown.
            return Detection(None, found.confidence, found.quad, found.center,
                             guess=found.code, indices=found.indices)
        return found

    def _read_face(self, image: np.ndarray) -> Detection | None:
        h, w = image.shape[:2]
        k = FACE_SIDE / max(h, w)
        doubt = None
        if max(h, w) > FACE_LARGE * FACE_SIDE:
            size = (max(int(round(w * k)), 1), max(int(round(h * k)), 1))
            small = self._read_face_shapes(cv2.resize(image, size, interpolation=cv2.INTER_AREA))
            if small is not None and small.code is not None:
                return _scaled(small, w / size[0], h / size[1])
            doubt = None if small is None else _scaled(small, w / size[0], h / size[1])
        found = self._read_face_shapes(image)
        if found is not None and found.code is not None:
            return found
        return doubt if doubt is not None else found

    def _read_face_shapes(self, image: np.ndarray) -> Detection | None:
        """The picture read as it is, then (with no sure read) at the other shape."""
        h, w = image.shape[:2]
        first = self._read_face_once(image)
        if first is not None and first.code is not None or min(h, w) < 2:
            return first
        other = self._read_face_once(cv2.resize(image, (h, w), interpolation=cv2.INTER_LINEAR))
        if (other is not None and other.code is not None
                and shape_agrees(other.code, first, self.shape_agree)):
            return _scaled(other, w / h, h / w)  # positions back in the picture's pixels
        return first

    def _read_face_once(self, image: np.ndarray) -> Detection | None:
        reads: list[Detection] = []
        if self.design == "B":
            negative: list[Detection] = []  # a black deck's doubts on its negative
            reads = self.read(image, negative, sharpen=False)  # best first
            if any(d.code is not None for d in reads):
                card = self._face_card(reads, image.shape[1], image.shape[0])
                if card.code is not None:
                    return card
                doubt: Detection | None = card  # a doubtful read placed better: unknown
            else:
                doubt = reads[0] if reads else None
            # Not on a grey picture, nor with a lamp's reads (paper not white, or a black
            # deck's gold ink: its negative's reads only): there a card's two indices slip
            # to the same wrong suit together (FACE_PAIR_ACCEPT).
            if not is_grey(image):
                doubts = negative if paper_gains(image) is not None else reads + negative
                both = face_pair(doubts, image.shape[1], image.shape[0])
                if both is not None:
                    return both
        # Design A's corner model knows nothing of an enrolled deck, but a picture B leaves
        # unsure is still read by it as without one: a deck never reads a picture worse.
        corner = self._corner_reader()
        if corner is None:
            return reads[0] if reads else None
        h, w = image.shape[:2]
        quad = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        if w > h:  # lying on its side: start on a short edge
            quad = np.roll(quad, -1, axis=0)
        found = corner.read_quads(image, [quad])
        a = found[0] if found else None
        if corner is self:
            return a
        if a is not None and a.code is not None and (
                not reads or a.code in {d.guess for d in reads}):
            return a
        return doubt if doubt is not None else a

    def _face_card(self, reads: list[Detection], w: int, h: int) -> Detection:
        """The picture's card among its reads (best first, one at least sure), by
        ``face_choice``. "placed": the sure read nearest where the picture's card has its
        indices, unless a doubtful read of another card lies ``FACE_DOUBT_NEARER`` nearer
        (the card itself read doubtfully, a neighbour surely): then that doubtful read."""
        if self.face_choice not in FACE_CHOICES:
            raise ValueError(f"face_choice: {self.face_choice!r} is none of {FACE_CHOICES}")
        sure = [d for d in reads if d.code is not None]
        if self.face_choice == "placed":
            spots, height = face_spots(w, h)
            off = [face_misplacement(d, spots, height) for d in reads]
            card, card_off = min(((d, o) for d, o in zip(reads, off, strict=True)
                                  if d.code is not None), key=lambda x: x[1])
            doubts = [(d, o) for d, o in zip(reads, off, strict=True)
                      if d.code is None and d.guess != card.code
                      and o < card_off - FACE_DOUBT_NEARER]
            return min(doubts, key=lambda x: x[1])[0] if doubts else card
        if self.face_choice == "pairs_first":
            return max(sure, key=lambda d: d.indices)
        return sure[0]

    def _corner_reader(self) -> CardReader | None:
        if self.design == "A":
            return self
        if self._corner is None:
            path = self.classifier.model_path.with_name(CORNER_MODEL.name)
            if not path.is_file():
                return None
            self._corner = CardReader(path, threads=self.threads)
        return self._corner


# How far apart two index boxes of one card lie, in index sizes (box centre to box
# centre, over the box's longer side): the span holds the pairs of the rendered frames
# and of the real photos' labels, widened on both sides because the detector's boxes
# are looser than the labels.
PAIR_SPAN = (2.5, 6.5)
# Two sure boxes sharing half the smaller one's area are one index read twice.
OVERLAP = 0.5
#: A frame smeared by the camera's motion (``vision.motion``) is sharpened and read again
#: when it leaves a card unsure and its streak is SHARPEN_LENGTH pixels long or more (the
#: first reads miss few cards under it: ``benchmarks/misses-held-out.json``), its trough
#: in the cepstrum SHARPEN_DEPTH deep or more; a card named only on the sharpened frame
#: needs SHARPENED_SURE. The depth and the threshold: ``python -m vision.lab.sharpen_rule``,
#: on the training designs' frames, the pair naming the most readable cards and none that
#: is not there, sharpening at most a tenth of the unsure frames the camera did not smear.
SHARPEN_LENGTH = 4.5
SHARPEN_DEPTH = 2.5
SHARPENED_SURE = 0.917
#: What the frame as it is must have guessed where a card is named only on the sharpened
#: frame (strictest first): a doubt there guessing that "card"; one guessing a card of its
#: "suit" (the smear hid the rank, the suit still seen); a "doubt" there, whatever it
#: guessed; "any": no card named there is enough. Chosen with the gate and the threshold
#: by ``python -m vision.lab.sharpen_rule``.
SHARPEN_AGREEMENTS = ("card", "suit", "doubt", "any")
SHARPEN_AGREE = "suit"
# Crowded indices (``CardReader._crowded_boxes``): CROWD_LEAST boxes or more whose
# centres lie within CROWD_SPAN box sides of one another (a fan shows several; two
# overlapping cards of a game show two, and pairs would run the pass on most game frames
# for nothing) are boxed again, with CROWD_MARGIN sides around them, at CROWD_ZOOM times
# the first level's scale, when their sides come to at most CROWD_LARGEST pixels there;
# every box found there joins the frame's, those over one of its boxes too (both read; one
# index read twice counts once: ``join_reads``). Only boxes whose first read may be a
# card take part (``CardReader._card_like``). Chosen on spread frames never reported
# (seeds 19951 and 19952: drawn styles, training designs) and the speed benchmark's game
# frames; every box joining since 2026-11-29 (before: only those overlapping none of the
# frame's by 0.4, intersection over union).
CROWD_SPAN = 2.0
CROWD_MARGIN = 1.5
CROWD_ZOOM = 2.0
CROWD_LARGEST = 64.0
CROWD_LEAST = 3
# A closer look that gives another card this chance contradicts a sure read.
RIVAL_DOUBT = 0.1


#: A single card's picture larger than this (pixels, its longer side) is read first brought
#: down to it: the height of a card in the frames the reader was trained on (17 to 36 %
#: of a 720-pixel frame: 122 to 260 pixels). Chosen on the faces of the designs trained
#: on (``benchmarks/card_faces.py``), among 300, 240, 200 and 160. A picture up to
#: FACE_LARGE times as large is read as it is: brought down by less, the phone photos of
#: those designs' faces (252 pixels) were misread more often, for few cards more read.
FACE_SIDE = 200
FACE_LARGE = 1.5
#: How ``read_face`` picks the picture's card where it reads several surely (a card cut
#: out of a photo at its outline's bounding box also shows its neighbours' indices):
#: "placed" (shipped, 2026-11-29), the card whose reading lies where the card filling the
#: picture has its indices (``face_spots``); "pairs_first", a card read at both its indices
#: before one read at one, the surest first (shipped earlier on 2026-11-29); "surest".
FACE_CHOICES = ("placed", "pairs_first", "surest")
#: The card filling a picture (``face_spots``): its width over its height (bridge 0.72,
#: piquet 0.64), the picture's margin around it each side over the picture's side, and an
#: index's centre from its card's corner over the card's width and height. Chosen with the
#: rule on table frames of the designs trained on, cut out per card (seeds 5881 and 5882,
#: never reported), among margins of 0, 0.03 and 0.05.
FACE_ASPECT = 0.69
FACE_MARGIN = 0.03
FACE_INSET = (0.09, 0.12)
#: A doubtful read of another card lying this much nearer (over the card's height) where
#: the picture's card has its indices than the best placed sure read: the picture's card
#: is taken to be read doubtfully, and the sure read a neighbour's (nothing named). 0: any
#: nearer. Chosen on the same crops and on crops of cards spread overlapping (a fan or a
#: row, seed 5883: the card lying over the picture's read whole), most right less misread
#: of 0.1 (chosen on the first crops alone, 2026-11-29), 0.05, 0.02 and 0 (12-01).
FACE_DOUBT_NEARER = 0.0
#: How a sure read of a picture of one card stretched to the other shape (``read_face``:
#: a card lying across a photo, squeezed into an upright picture) must agree with the
#: picture's doubtful read as it is to be taken: "any" guess, one of the same "rank", or
#: the same "card" (nothing boxed as it is: taken). ``benchmarks/shape_rule.py``.
SHAPE_AGREEMENTS = ("any", "rank", "card")
SHAPE_AGREE = "any"


def shape_agrees(code: str, first: Detection | None, agree: str = SHAPE_AGREE) -> bool:
    """Whether ``read_face`` takes ``code``, read surely on a picture stretched to the
    other shape, beside ``first``, the picture's doubtful read as it is (None: nothing
    boxed, and the other shape's read is taken): ``agree`` (``SHAPE_AGREEMENTS``) "any",
    whatever ``first`` guessed; "rank", its guess of the same rank; "card", the same card."""
    if agree not in SHAPE_AGREEMENTS:
        raise ValueError(f"shape_agree: {agree!r} is none of {SHAPE_AGREEMENTS}")
    if first is None or first.guess is None or agree == "any":
        return True
    if agree == "rank":
        return first.guess[0] == code[0]
    return first.guess == code


def sharpen_agrees(code: str, guesses: list[str | None],
                   agree: str = SHARPEN_AGREE) -> bool:
    """Whether a card ``code`` named on a sharpened frame counts beside ``guesses``, what
    the doubts of the frame as it is at that place guessed (``guesses_at``), by ``agree``
    (``SHARPEN_AGREEMENTS``)."""
    if agree not in SHARPEN_AGREEMENTS:
        raise ValueError(f"sharpen_agree: {agree!r} is none of {SHARPEN_AGREEMENTS}")
    if agree == "any":
        return True
    if agree == "doubt":
        return bool(guesses)
    if agree == "suit":
        return any(g is not None and g[1:] == code[1:] for g in guesses)
    return code in guesses


def guesses_at(read: Detection, doubts: list[Detection]) -> list[str | None]:
    """What the doubtful reads ``doubts`` lying at ``read``'s place guessed (None: no
    guess)."""
    return [d.guess for d in doubts if _same_place(read, d)]


def face_spots(w: int, h: int) -> tuple[np.ndarray, float]:
    """Where a card filling a ``w`` x ``h`` picture has its corner indices, and its height.

    The picture is taken as the bounding box of one card (``FACE_ASPECT``), ``FACE_MARGIN``
    more each side, its long side along the picture's: a card tilted by t fills a box of
    sides ``(a cos t + sin t, a sin t + cos t)`` times its height, so the picture's shape
    gives the tilt, but not which way: the centres of the four corners' indices
    (``FACE_INSET`` from each corner) are given for both ways (8 rows of x, y), and the
    picture's centre last. A picture narrower than the card (cut by the photo's edge) is
    taken as an upright card.
    """
    inner_w, inner_h = w / (1 + 2 * FACE_MARGIN), h / (1 + 2 * FACE_MARGIN)
    short, long = sorted((inner_w, inner_h))
    a = FACE_ASPECT
    ratio = short / max(long, 1e-6)
    tilt = float(np.arctan2(max(ratio - a, 0.0), 1.0 - ratio * a))
    height = long / (a * np.sin(tilt) + np.cos(tilt))
    half = np.array([a * height * (0.5 - FACE_INSET[0]), height * (0.5 - FACE_INSET[1])])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * half
    rows = []
    for t in (tilt, -tilt):
        turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        rows.append(corners @ turn.T)
    spots = np.concatenate(rows)
    if inner_w > inner_h:  # lying: the card's long side along x
        spots = spots[:, ::-1]
    spots = np.concatenate([spots, [[0.0, 0.0]]]) + [w / 2, h / 2]
    return spots, float(height)


#: A picture of one card with no card read surely: two doubtful reads of one card, one at
#: each of two opposite corners where the card filling the picture has its indices (each
#: within FACE_PAIR_NEAR of the card's height of it), name that card when their joint
#: chance, 1 - (1 - p1)(1 - p2), is FACE_PAIR_ACCEPT or more (``face_pair``): a black
#: deck's card, read on its negative at the strictest threshold, mostly. The loosest of
#: 0.9, 0.95, 0.98 and 0.99 naming no wrong card (nor a 2-6) on the pictures of the
#: designs trained on and of the drawn styles in black but ``lights.py``'s four, printed,
#: as photos, flattened and cut out of table frames (8,027; 2026-12-01): 152 more named
#: right; at 0.95, 221 and 5 wrong (black diamonds read as spades, a JC as 8C; up to 0.971).
#: Not on grey pictures: those designs' faces turned grey (8,064) gained 94 right and 5
#: wrong, suits slipping at 0.988-0.998 (9S as 9C, 7D as 7S, 9D as 9S, AD as AS twice);
#: nor lit by a lamp (but a black deck's negative): warm, red (896 each) +23, +1 (9S as 9C).
FACE_PAIR_NEAR = 0.1
FACE_PAIR_ACCEPT = 0.98


#: A picture of one card that ``read_face`` names a number card (7 to 10) is left unknown
#: when the middle of the picture looks like a court's picture on light paper
#: (``face_middle``): from FACE_LIGHT_FROM to less than FACE_LIGHT_BELOW of it as light as
#: the paper, and more than FACE_BUSY_ABOVE of it print with edges. A number card's middle
#: is mostly paper between its pips; a black deck's is dark, plain on its own face, and
#: with no paper at all where its table frame's cut shows more. Chosen by ``python
#: benchmarks/face_rule.py`` on pictures of the designs and drawn styles trained on
#: (``benchmarks/face_rule.json``).
NUMBER_RANKS = "789T"
FACE_LIGHT_FROM = 0.02
FACE_LIGHT_BELOW = 0.3
FACE_BUSY_ABOVE = 0.4
#: ``face_middle``: the picture brought down to this longer side; its middle, this share
#: of each side off each edge; light: at least this share of the paper's level (the 95th
#: percentile of the picture's grey); print with edges: darker than that, where the mean
#: gradient over 5 x 5 pixels is over FACE_EDGE.
FACE_MIDDLE_SIDE = 200
FACE_MIDDLE_INSET = 0.22
FACE_PAPER_SHARE = 0.8
FACE_EDGE = 40.0


def face_middle(image: np.ndarray) -> tuple[float, float]:
    """How the middle of a picture of one card looks: the share of it as light as the
    card's paper, and the share of it that is print with edges (``FACE_*``)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape[:2]
    k = FACE_MIDDLE_SIDE / max(h, w, 1)
    size = (max(int(round(w * k)), 8), max(int(round(h * k)), 8))
    small = cv2.GaussianBlur(cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
                             .astype(np.float32), (0, 0), 1.0)
    edges = cv2.blur(cv2.magnitude(cv2.Sobel(small, cv2.CV_32F, 1, 0),
                                   cv2.Sobel(small, cv2.CV_32F, 0, 1)), (5, 5))
    sh, sw = small.shape
    y0, y1 = int(FACE_MIDDLE_INSET * sh), int(round((1 - FACE_MIDDLE_INSET) * sh))
    x0, x1 = int(FACE_MIDDLE_INSET * sw), int(round((1 - FACE_MIDDLE_INSET) * sw))
    paper = FACE_PAPER_SHARE * float(np.percentile(small, 95))
    middle, middle_edges = small[y0:y1, x0:x1], edges[y0:y1, x0:x1]
    light = float((middle >= paper).mean())
    busy = float(((middle < paper) & (middle_edges > FACE_EDGE)).mean())
    return light, busy


def middle_is_picture(light: float, busy: float, light_from: float = FACE_LIGHT_FROM,
                      light_below: float = FACE_LIGHT_BELOW,
                      busy_above: float = FACE_BUSY_ABOVE) -> bool:
    """Whether a middle ``light`` and ``busy`` (``face_middle``) is a court's picture on
    light paper, by the rule's thresholds (``benchmarks/face_rule.py`` tries others)."""
    return light_from <= light < light_below and busy > busy_above


def face_is_picture(image: np.ndarray) -> bool:
    """Whether the middle of a picture of one card looks like a court's picture on light
    paper (``middle_is_picture``)."""
    return middle_is_picture(*face_middle(image))


def face_pair(reads: list[Detection], w: int, h: int) -> Detection | None:
    """The card read doubtfully at both its indices where the card filling a ``w`` x ``h``
    picture has them (``face_spots``: opposite corners, one tilt), by ``FACE_PAIR_NEAR``
    and ``FACE_PAIR_ACCEPT``; None if no two reads are so."""
    spots, height = face_spots(w, h)
    corners = spots[:-1]
    placed: list[tuple[Detection, int]] = []
    for d in reads:
        if d.code is not None or d.guess is None or d.indices != 1:
            continue
        far = np.hypot(*(corners - np.asarray(d.center)).T) / max(height, 1e-6)
        k = int(far.argmin())
        if far[k] <= FACE_PAIR_NEAR:
            placed.append((d, k))
    best: Detection | None = None
    for i, (a, ka) in enumerate(placed):
        for b, kb in placed[i + 1:]:
            # Opposite corners of one tilt's four: 0-2, 1-3 (and 4-6, 5-7).
            if a.guess != b.guess or ka // 4 != kb // 4 or (ka - kb) % 4 != 2:
                continue
            joint = 1.0 - (1.0 - a.confidence) * (1.0 - b.confidence)
            if joint < FACE_PAIR_ACCEPT or best is not None and joint <= best.confidence:
                continue
            best = Detection(a.guess, joint, _box_quad(_span(a.quad + b.quad)),
                             ((a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2),
                             indices=2)
    return best


def face_misplacement(found: Detection, spots: np.ndarray, height: float) -> float:
    """How far ``found`` lies from where the picture's card would be read (``face_spots``),
    over the card's height: a card read at both its indices, from the picture's centre; at
    one, from the nearest corner index."""
    at = spots[-1:] if found.indices >= 2 else spots[:-1]
    return float(np.hypot(*(at - np.asarray(found.center)).T).min() / max(height, 1e-6))


def _scaled(found: Detection, sx: float, sy: float) -> Detection:
    """``found`` with its positions scaled by ``sx``, ``sy``."""
    return Detection(found.code, found.confidence, [[x * sx, y * sy] for x, y in found.quad],
                     (found.center[0] * sx, found.center[1] * sy), found.guess, found.indices)


def rival_reads(boxes: list[Box], probs: np.ndarray, thresholds: np.ndarray,
                classes: list[str], none_index: int) -> list[int]:
    """The sure reads one card's two indices would contradict.

    Box ``i`` is listed when it is the only sure box of its card and either
    another sure box naming the same rank in another suit lies as far from it
    as a card's two indices (``PAIR_SPAN``: if the two are one card's indices,
    one of them is wrong), or a sure box naming another card covers half of it
    or lies half inside it (``OVERLAP``: one index read twice, once wrong).
    Two cards of one rank side by side are common in a pile, so the reader
    does not drop such reads: it looks at each again, closer up.
    """
    sure: list[tuple[int, str]] = []
    for i, (p, threshold) in enumerate(zip(probs, thresholds, strict=True)):
        k = int(p.argmax())
        if k != none_index and p[k] >= threshold:
            sure.append((i, classes[k]))
    count: dict[str, int] = {}
    for _, code in sure:
        count[code] = count.get(code, 0) + 1
    out = []
    for i, code in sure:
        if count[code] != 1:
            continue
        a = boxes[i]
        for j, other in sure:
            if other == code:
                continue
            b = boxes[j]
            if other[0] == code[0] and indices_apart(a, b) \
                    or _overlap(a, b) >= OVERLAP:
                out.append(i)
                break
    return out


def _overlap(a: Box, b: Box) -> float:
    """The share of the smaller of two boxes that lies inside the other."""
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return box_intersection(a, b) / max(smaller, 1e-6)


def _gap(a: Box, b: Box) -> float:
    """Centre-to-centre distance of two boxes over the longer side of either."""
    side = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1], 1e-6)
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2)) / side


def indices_apart(a: Box, b: Box) -> bool:
    """Whether boxes ``a`` and ``b`` lie as far apart as one card's two indices
    (``PAIR_SPAN``, in box sides)."""
    return PAIR_SPAN[0] <= _gap(a, b) <= PAIR_SPAN[1]


#: A picture is read as grey when fewer than GREY_SHARE of a sample of its pixels (every
#: 7th each way) have colour: their largest channel above their smallest by GREY_SPREAD
#: levels of 255 or more. A black-and-white camera's frame has none (0 levels everywhere);
#: a colour camera's has its noise and any red ink (the real photos' calibration bursts: a
#: thousandth of their pixels at 8 to 16 levels with black cards alone, 33 and more with
#: red ones). A mean over all pixels, used before, took a colour photo of a grey table
#: with red cards on it for grey.
GREY_SPREAD = 6
GREY_SHARE = 0.001


def is_grey(image: np.ndarray) -> bool:
    """Whether ``image`` (grey, or BGR) carries no colour to tell the suits by."""
    if image.ndim != 3 or image.shape[2] == 1:
        return True
    # OpenCV's per-pixel max and min of the three planes: numpy's max and min over a
    # 3-wide axis cost several times as much, on every frame.
    b, g, r = cv2.split(np.ascontiguousarray(image[::7, ::7, :3]))
    spread = cv2.max(cv2.max(b, g), r) - cv2.min(cv2.min(b, g), r)
    coloured = int(np.count_nonzero(spread >= GREY_SPREAD))
    return bool(coloured < GREY_SHARE * spread.size)


#: The paper's colour: the mean of the brightest PAPER_SHARE of a sample of the frame's
#: pixels (every 8th each way; at least PAPER_LEAST of them), the white of the cards. A
#: frame whose paper's weakest channel is under PAPER_CAST of its strongest is lit by a
#: coloured lamp: each channel is raised to the strongest's level there (at most
#: PAPER_GAIN times). The real photos' paper (window light, a phone's white balance)
#: sits at 0.84 or more, the renderer's at 0.98 or more: those frames are read as they
#: are. A paper darker than PAPER_DARK (of 255) says nothing of the light.
PAPER_SHARE = 0.005
PAPER_LEAST = 20
PAPER_CAST = 0.8
PAPER_GAIN = 4.0
PAPER_DARK = 80.0


def paper_gains(image: np.ndarray) -> np.ndarray | None:
    """The gain of each channel (B, G, R) that makes the white paper of ``image`` white
    again, or None when its light is white enough (or too dark to tell): the grey-world
    idea, on the cards' paper only (the table's felt is no white)."""
    sample = np.ascontiguousarray(image[::8, ::8, :3]).reshape(-1, 3)
    if len(sample) < PAPER_LEAST:
        return None
    lum = sample.astype(np.int32).sum(axis=1)
    k = max(int(PAPER_SHARE * len(sample)), PAPER_LEAST)
    brightest = np.argpartition(lum, len(lum) - k)[len(lum) - k:]
    paper = sample[brightest].astype(np.float32).mean(axis=0)
    top = float(paper.max())
    if top < PAPER_DARK or float(paper.min()) >= PAPER_CAST * top:
        return None
    gains: np.ndarray = np.minimum(top / np.maximum(paper, 1.0), PAPER_GAIN)
    return gains


def paper_balance(image: np.ndarray) -> np.ndarray | None:
    """``image`` (BGR) with its white paper made white again (:func:`paper_gains`), or
    None when its light is white enough."""
    gains = paper_gains(image)
    if gains is None:
        return None
    # One look-up table per channel: each level times its channel's gain.
    table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains + 0.5, 0, 255)
    out: np.ndarray = cv2.LUT(np.ascontiguousarray(image[:, :, :3]),
                              table.astype(np.uint8).reshape(256, 1, 3))
    return out


def white_paper(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR) brought back to white paper where a lamp tints it, else itself."""
    balanced = paper_balance(image)
    return balanced if balanced is not None else image


#: Where an index box's mean grey level lies between its darkest and lightest (5th and 95th
#: percentiles): an index printed dark on light paper lies high (paper fills most of the
#: box), one printed in light ink on dark paper low. Under DARK_INK the box is of a dark
#: card: of the detector's boxes on the four held-out designs' frames 0.1 %, on the real
#: photos 0.9 % (exposure does not move it); of its boxes on the negative of black decks
#: in gold or silver ink, three quarters. A frame with DARK_LEAST such boxes or more, and
#: DARK_SHARE of its boxes or more, holds a deck printed on black paper. On its negative,
#: the boxes under LIGHT_PAPER are read (the held-out designs' index boxes: 95 % above).
DARK_INK = 0.35
LIGHT_PAPER = 0.5
DARK_LEAST = 3
DARK_SHARE = 0.1
#: Or when of the boxes read as a card (sure or not), DARK_LEAST or more and NAMED_DARK_SHARE
#: or more lie under LIGHT_PAPER.
NAMED_DARK_SHARE = 0.5
#: Two doubtful indices naming a spade on a black deck's negative: the wrong cards such pairs
#: named on the other drawn styles in black were all spades (seeds 19851, 32 frames a style:
#: 3 of 365 at the grey exponent; 29851: 3 of 149). The loosest of 0.9, 0.8, 0.7, 0.6
#: naming no wrong spade on seeds 19851 (the other suits keep the grey exponent).
NEGATIVE_SPADE_PAIR_EXPONENT = 0.7
#: NEGATIVE_RIVAL: a card named on a black deck's negative is left unknown when the frame as
#: it is reads one of its indices (a box of the frame whose centre lies within
#: NEGATIVE_RIVAL_MARGIN pixels of the read's indices) as the same rank in another suit,
#: likelier than the named card and at least AS_IS_RIVAL. The two wrong cards fresh draws of
#: the other styles in black named (seeds 29851, 39851, 16 frames a style: a KD and a QD in
#: silver ink named spades on the negative) were read so as they are, at 0.91 and 0.93.
#: Of 0.5, 0.7, 0.85 and 0.9, the loosest costing at most 1 % of the cards the negative
#: names right on the frames the black rules were chosen on (seeds 19851, 32 frames a
#: style: 23 of 2,349; benchmarks/lights.json).
AS_IS_RIVAL = 0.85
NEGATIVE_RIVAL_MARGIN = 4.0
#: The boxes of a black deck's frame that overlap one the negative reads as a card are read
#: as they are only from this level up. DARK_INK before: 3 cards named wrong by boxes
#: between 0.38 and 0.52 on a fresh draw of the other styles in black (seed 49851); the two
#: under LIGHT_PAPER are no longer named (benchmarks/lights-other-49851.json).
AS_IS_KEPT_LEVEL = LIGHT_PAPER


def paper_level(gray: np.ndarray, box: Box) -> float:
    """Where the mean grey level of ``box`` in ``gray`` lies between its darkest and its
    lightest (0 to 1; 1 for an empty or flat box)."""
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


class PairCandidate(NamedTuple):
    """Two doubtful boxes guessing the same card, as far apart as a card's two indices
    (``doubtful[a]``, ``doubtful[b]`` of :func:`sort_reads`)."""
    code: str
    a: int
    b: int
    chances: tuple[float, float]
    threshold: float  # the stricter of the two boxes' thresholds


def sort_reads(boxes: list[Box], probs: np.ndarray, thresholds: np.ndarray,
               classes: list[str], none_index: int
               ) -> tuple[dict[str, list[tuple[Box, float]]], list[tuple[Box, float, str, float]]]:
    """The boxes read surely, by card (box, chance), and the doubtful ones (box, chance,
    likeliest card, threshold); boxes likeliest ``none`` are in neither."""
    by_code: dict[str, list[tuple[Box, float]]] = {}
    doubtful: list[tuple[Box, float, str, float]] = []
    for box, p, threshold in zip(boxes, probs, thresholds, strict=True):
        k = int(p.argmax())
        if k == none_index:
            continue
        code = classes[k]
        if p[k] >= threshold:
            by_code.setdefault(code, []).append((box, float(p[k])))
        else:
            doubtful.append((box, float(p[k]), code, float(threshold)))
    return by_code, doubtful


def pair_candidates(by_code: dict[str, list[tuple[Box, float]]],
                    doubtful: list[tuple[Box, float, str, float]]) -> list[PairCandidate]:
    """Every pair of doubtful boxes that could be one card's two indices: the same
    guess, read surely nowhere else, a card's two indices apart (``PAIR_SPAN``)."""
    by_guess: dict[str, list[int]] = {}
    for i, (_, _, code, _) in enumerate(doubtful):
        if code not in by_code:
            by_guess.setdefault(code, []).append(i)
    out = []
    for code, ids in by_guess.items():
        for a_pos, a in enumerate(ids):
            for b in ids[a_pos + 1:]:
                (ba, pa, _, ta), (bb, pb, _, tb) = doubtful[a], doubtful[b]
                if indices_apart(ba, bb):
                    out.append(PairCandidate(code, a, b, (pa, pb), max(ta, tb)))
    return out


def join_reads(boxes: list[Box], probs: np.ndarray, thresholds: np.ndarray,
               classes: list[str], none_index: int, pair_exponent: float = 1.0,
               suit_exponents: dict[str, float] | None = None) -> list[Detection]:
    """One detection per card from the reads of its index boxes, best first.

    ``probs[i]`` is box i's calibrated probabilities, ``thresholds[i]`` the
    confidence its read needs (the first read's or the second look's). A deck
    holds each card once, so the sure boxes of one code are its two indices.
    Two doubtful boxes naming the same card, as far apart as a card's two
    indices, are two separate readings of it: they name it surely when the
    chance that both are wrong, ``((1 - p1) * (1 - p2)) ** pair_exponent``, is
    within the stricter of their two thresholds. The two indices of one card are
    printed and lit alike, so their errors go together: an exponent under 1
    (calibrated per model on grey frames, ``CardClassifier.pair_exponent``)
    counts them as less than two independent readings; ``suit_exponents`` (suit letter:
    exponent) replaces it for the cards of a suit. Any other doubtful box
    becomes a ``code=None`` detection (a card the table waits on), unless its
    guess was read surely elsewhere (then it is most likely that card's other
    index, and places the card when that one was read at one index only), or it
    lies half inside a box read surely or a surer doubtful box (``OVERLAP``: one
    index boxed twice, one card).
    """
    by_code, doubtful = sort_reads(boxes, probs, thresholds, classes, none_index)
    paired: set[int] = set()
    best_of: dict[str, tuple[float, int, int]] = {}
    for pair in pair_candidates(by_code, doubtful):
        exponent = (suit_exponents or {}).get(pair.code[-1], pair_exponent)
        joint = 1.0 - ((1.0 - pair.chances[0]) * (1.0 - pair.chances[1])) ** exponent
        best = best_of.get(pair.code)
        if joint >= pair.threshold and (best is None or joint > best[0]):
            best_of[pair.code] = (joint, pair.a, pair.b)
    for code, (joint, a, b) in best_of.items():
        paired.update((a, b))
        by_code[code] = [(doubtful[a][0], joint), (doubtful[b][0], joint)]
    out = []
    for code, hits in by_code.items():
        # One index boxed twice (a still picture's two levels, ``IndexDetector.detect``;
        # on any frame, a box lying half inside another) and read surely at both counts
        # once, the surer: the card's other index may be a doubtful box that places it.
        once: list[tuple[Box, float]] = []
        for hit in sorted(hits, key=lambda h: -h[1]):
            if all(_overlap(hit[0], o[0]) < OVERLAP for o in once):
                once.append(hit)
        hits = once[:2]
        sure = max(h[1] for h in hits)
        if len(hits) == 1:
            # Read surely at one index only: a doubtful box guessing the same card, a card's
            # two indices away, is most likely its other index. It places the card (its
            # outline and centre) and adds nothing to how sure the read is.
            other = [(chance, box) for box, chance, guess, _ in doubtful
                     if guess == code and indices_apart(hits[0][0], box)]
            if other:
                hits.append(max(other)[::-1])
        # The card's centre lies halfway between its two indices.
        xs = [c for b, _ in hits for c in (b[0], b[2])]
        ys = [c for b, _ in hits for c in (b[1], b[3])]
        quad = _box_quad((min(xs), min(ys), max(xs), max(ys)))
        center = (float(np.mean([(b[0] + b[2]) / 2 for b, _ in hits])),
                  float(np.mean([(b[1] + b[3]) / 2 for b, _ in hits])))
        out.append(Detection(code, sure, quad, center, indices=len(hits)))
    # The boxes read: one index boxed twice (a still picture's two levels, a crowded
    # part boxed again) and doubtful at one box is one card, told once: the sure read's,
    # or the surer doubtful box's.
    told = [box for hits in by_code.values() for box, _ in hits]
    for i in sorted(range(len(doubtful)), key=lambda i: -doubtful[i][1]):
        box, conf, code, _ = doubtful[i]
        if i in paired or code in by_code:
            continue
        if any(_overlap(box, other) >= OVERLAP for other in told):
            continue
        told.append(box)
        quad = [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]
        out.append(Detection(None, conf, quad, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
                             guess=code))
    return sorted(out, key=lambda d: -d.confidence)


def _overlaps(a: Box, b: Box) -> bool:
    """Whether the centre of box ``a`` lies in box ``b`` (x1, y1, x2, y2)."""
    return _within(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), [[b[0], b[1]], [b[2], b[3]]])


def _span(quad: list[list[float]], margin: float = 0.0) -> Box:
    """The box spanned by ``quad``'s corners, ``margin`` pixels wider on every side."""
    xs, ys = [x for x, _ in quad], [y for _, y in quad]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def _box_quad(box: Box) -> list[list[float]]:
    """``box``'s four corners, clockwise from its top-left (a Detection's quad)."""
    x1, y1, x2, y2 = box
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def _within(point: tuple[float, float], quad: list[list[float]]) -> bool:
    """Whether ``point`` lies in the box spanned by ``quad``'s corners."""
    xs, ys = [x for x, _ in quad], [y for _, y in quad]
    return min(xs) <= point[0] <= max(xs) and min(ys) <= point[1] <= max(ys)


def _same_place(a: Detection, b: Detection) -> bool:
    """Whether two reads are of one place: the centre of either lies in the other's span."""
    return _within(a.center, b.quad) or _within(b.center, a.quad)


def _one_per_code(detections: list[Detection]) -> list[Detection]:
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
