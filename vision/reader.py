"""The card reader: a frame in, the belote cards on it out.

``CardReader.read(frame)`` runs one of two designs, chosen by the model file
(see ``vision/models/README.md`` for how they compare):

* B (shipped): a small ONNX detector boxes every corner index (rank + suit) in the
  frame, the 8-bit ONNX classifier names each box, and a card's two indices give one
  detection (:mod:`vision.frame`, :mod:`vision.join`); a grey frame is read at the grey
  thresholds (:mod:`vision.paper`), a black deck on the frame's negative too
  (:mod:`vision.dark_decks`), and a frame smeared by the camera's motion that leaves a
  card unsure is sharpened and read again (:mod:`vision.sharpened`).
* A: card outlines (:mod:`vision.locate`), then the classifier reads the two
  corner indices cut from each outline.

``CardReader.read_face(picture)`` reads a picture of one card (:mod:`vision.face`).

Every tuned value of these rules comes from the model's JSON, as one frozen record
(:class:`vision.settings.ReaderSettings`, the reader's ``settings``): a retrained model
brings its own.

Things that are not belote cards (backs, a 2-6, a joker, clutter) are left
out; a card the model is not sure of comes back with ``code=None`` so that
the caller waits for a better frame.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import face
from vision.classify import (
    CORNER_MODEL,
    DEFAULT_MODEL,
    CardClassifier,
    IndexDetector,
    calibration_path,
    check_reads,
)
from vision.deck import Deck, DeckError
from vision.detection import Detection as Detection  # the names below: re-exported
from vision.detection import one_per_code, same_place
from vision.face import FACE_CHOICES as FACE_CHOICES
from vision.face import face_misplacement as face_misplacement
from vision.face import face_pair as face_pair
from vision.face import face_spots as face_spots
from vision.face import shape_agrees as shape_agrees
from vision.frame import FrameReader
from vision.imagefile import load_image as load_image
from vision.join import indices_apart as indices_apart
from vision.join import join_reads as join_reads
from vision.join import sort_reads as sort_reads
from vision.locate import LocateParams, corner_crops, find_cards, index_crop, quad_center
from vision.paper import is_grey as is_grey
from vision.paper import paper_balance as paper_balance
from vision.paper import paper_gains as paper_gains
from vision.paper import paper_level as paper_level
from vision.paper import white_paper as white_paper
from vision.settings import SHAPE_AGREEMENTS as SHAPE_AGREEMENTS
from vision.settings import SHARPEN_AGREEMENTS as SHARPEN_AGREEMENTS
from vision.settings import ReaderSettings, load_settings
from vision.sharpened import guesses_at as guesses_at
from vision.sharpened import sharpen_agrees as sharpen_agrees
from vision.sharpened import sharpened_reads


class CardReader:
    """Locate and read every belote card in a frame."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1,
                 deck: str | Path | None = None, still: bool = False,
                 settings: ReaderSettings | None = None) -> None:
        """``still``: the pictures are still pictures, not the camera's frames
        (``vision read``, ``vision eval``): each is boxed down to its own pixels
        (``IndexDetector.finest``), slower, and smaller cards are read. ``settings``:
        the rules' tuned values (None: the model's own, from its JSON; design A's corner
        model, compared beside the index classifier, goes by the index classifier's)."""
        cv2.setNumThreads(threads)
        self.threads = threads
        self._corner: CardReader | None = None
        self.classifier = CardClassifier(model_path, threads=threads)
        self.design = self.classifier.design
        if settings is None:
            path = self.classifier.model_path
            if self.design == "A":
                path = path.with_name(DEFAULT_MODEL.name)
            settings = load_settings(calibration_path(path))
        self._settings = settings
        self.classifier.NONE_FIRST = settings.none_first
        self.classifier.deck_sure = settings.deck_sure
        self.still = still
        self.detector: IndexDetector | None = None
        #: Design B's frame reading (:class:`vision.frame.FrameReader`), by this reader's
        #: models and settings; None for design A.
        self.frames: FrameReader | None = None
        if self.design == "B":
            check_reads(self.classifier)  # refuses to start blind (ReaderCheckError)
            meta = self.classifier.meta
            self.detector = IndexDetector(self.classifier.model_path.with_name(meta["detector"]),
                                          threads=threads,
                                          heat_threshold=float(meta["heat_threshold"]),
                                          stride=int(meta["stride"]), settings=settings)
            if still:
                self.detector.finest = settings.still_finest
            self.frames = FrameReader(self.classifier, self.detector, settings)
        if deck is not None:
            self.use_deck(deck)

    def use_deck(self, path: str | Path | None) -> None:
        """Read the cards of the club's enrolled deck (``vision.deck``) through it; other
        cards as before. None: the general model alone. A bad deck file raises
        ``DeckError`` (a ValueError) saying why."""
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

    @property
    def settings(self) -> ReaderSettings:
        """The rules' tuned values (a frozen record: ``dataclasses.replace`` makes another,
        to set here)."""
        return self._settings

    @settings.setter
    def settings(self, value: ReaderSettings) -> None:
        self._settings = value
        self.classifier.NONE_FIRST = value.none_first
        self.classifier.deck_sure = value.deck_sure
        if self.detector is not None:
            self.detector.use_settings(value)
            self.detector.finest = value.still_finest if self.still else value.camera_finest
        if self.frames is not None:
            self.frames.settings = value

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
        sharpened and read again (:meth:`sharpened_reads`); a card named only there
        needs the settings' ``sharpened_sure``."""
        gray = self._to_gray(frame)  # fails early, with a clear message, on a bad frame
        if self.detector is not None:
            found = self.read_indices(gray, frame, doubts)
            if sharpen and any(d.code is None for d in found):
                added = [d for d in self.sharpened_reads(gray, frame, found)
                         if d.confidence >= self.settings.sharpened_sure]
                if added:
                    # The doubts a card named on the sharpened frame explains leave.
                    rest = [d for d in found
                            if d.code is not None or not any(same_place(d, a) for a in added)]
                    found = one_per_code(rest + added)
            return found
        detections = self.read_quads(frame, find_cards(frame, LocateParams.of(self.settings)))
        return one_per_code(detections)

    def read_indices(self, gray: np.ndarray, frame: np.ndarray | None = None,
                     doubts: list[Detection] | None = None) -> list[Detection]:
        """Design B: box every index in the grey frame, read each box, join a card's two
        indices (:meth:`vision.frame.FrameReader.read`)."""
        assert self.frames is not None
        return self.frames.read(gray, frame, doubts)

    def sharpened_reads(self, gray: np.ndarray, frame: np.ndarray,
                        found: list[Detection], depth: float | None = None,
                        agree: str | None = None) -> list[Detection]:
        """The cards the frame names once sharpened that ``found`` does not
        (:func:`vision.sharpened.sharpened_reads`)."""
        assert self.frames is not None
        return sharpened_reads(self.frames, gray, frame, found, depth, agree)

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
        assert self.frames is not None
        source = self.frames.crop_source(gray, frame)
        crops = np.stack([index_crop(source, b, int(self.classifier.meta["crop"]),
                                     float(self.classifier.meta["pad"])) for b in boxes])
        named = self.classifier.probabilities(crops).argmax(axis=1) != self.classifier.none_index
        sides = [float(max(b[2] - b[0], b[3] - b[1]) / h)
                 for b, card in zip(boxes, named, strict=True) if card]
        return sorted(sides, reverse=True), float(needed)

    def read_face(self, image: np.ndarray) -> Detection | None:
        """Read an image that is a single card face filling the picture (a warped card):
        :func:`vision.face.read_face`."""
        image = np.asarray(image)
        self._to_gray(image)  # a bad picture fails early, with a clear message
        return face.read_face(self, image)

    def corner_reader(self) -> CardReader | None:
        """Design A's corner model beside this reader's (this reader when it is design A;
        None when the model is not there), with this reader's settings."""
        if self.design == "A":
            return self
        if self._corner is None:
            path = self.classifier.model_path.with_name(CORNER_MODEL.name)
            if not path.is_file():
                return None
            self._corner = CardReader(path, threads=self.threads, settings=self.settings)
        return self._corner
