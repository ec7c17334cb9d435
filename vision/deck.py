"""Deck enrollment: teach the reader a club's own deck from a picture of each card.

A deck file (``.npz``) holds, for each enrolled card, the looks of its corner
indices: each index cut as the reader cuts it (:func:`vision.locate.index_crop`),
shifted, scaled, blurred, lit differently, and as a camera over the table shows
it (small, soft, noisy, JPEG), each turned every quarter turn, then embedded. The
reader compares each index box it reads with them (:meth:`Deck.judge`): a box
much like one enrolled card, clearly more like it than like any other, that the
general model already takes for that card with a fair chance and hardly for no
belote card, is read surely as that card; any other box keeps the general
model's read.
So the deck never names another card than the general model would: it makes
sure the reads of its own cards that the general model doubts.

A whole deck (32 cards) also gets a linear read (:class:`Linear`): the classifier's last
layer fitted again on the deck's looks, a softmax regression in numpy
(:func:`fit_linear`), on the looks above and on the card laid in table frames as the
reader cuts its indices there (:func:`table_looks`: the reader's own detector boxes them,
small, soft and loosely boxed, as at the table). A box the general model takes for a card
is also read surely as that card when this linear read names the same card with a
fair chance (``LINEAR_RULES``, per kind, chosen on the training designs).

Two heads can embed the looks (``HEADS``; see ``benchmarks/enroll.py`` for how
they compare):

* ``prototype``: the classifier's penultimate embedding (its ``features``
  output), compared by cosine;
* ``template``: the grey patch itself, mean removed, compared by normalised
  cross-correlation (template matching).

The file records the version of its format and the SHA-256 of the classifier
it was made with: features of another model mean nothing, so a deck made
with another model is refused with a message saying to enrol again.

Only numpy, OpenCV and onnxruntime are used (the Pi has no torch).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import cv2
import numpy as np

from scorer.cards import RANK_INDEX_FR, SUIT_NAMES_FR, Card, InvalidCardError
from vision.classify import FEATURES, NONE, softmax
from vision.errors import ExplainedError
from vision.imagefile import IMAGE_SUFFIXES
from vision.locate import index_crop, moved_box

if TYPE_CHECKING:
    from vision.classify import CardClassifier
    from vision.reader import CardReader

# 2: the looks as the camera shows an index, and the rule's floor on the general model's
# chance (``Rule.general``). 3: a rule of its own for courts and aces (``COURT_RULES``).
# A deck of an earlier version still reads as it did: by the one rule written in it (with
# no floor for version 1).
# 4: a linear read fitted per deck (``Linear``, ``LINEAR_RULES``) on the looks and on the
# card laid in table frames (``table_looks``, not kept among the looks).
VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in frame pixels


class Rule(NamedTuple):
    """When a box is read as an enrolled card (see ``Deck.judge``): its similarity to
    that card's nearest look is at least ``accept`` and exceeds its similarity to any
    other enrolled card's looks by ``margin``; that card is the general model's best
    card guess, with a chance of at least ``general``; and the general model gives
    'none' less than ``none_below``."""

    accept: float
    margin: float
    none_below: float
    general: float = 0.0


# Per head. The prototype head's: the loosest that named no wrong card on the training
# designs (python -m vision.lab.deck_rules, benchmarks/deck_rules.json, which also
# counts what the rule before named there); the template head's: chosen on
# vision.lab.enroll_bench.DEV_DESIGNS. Never chosen on the designs or photos
# benchmarks/enroll.py and benchmarks/real_decks.py report.
HEADS: dict[str, Rule] = {
    "prototype": Rule(0.88, 0.24, 0.20, 0.8),
    "template": Rule(0.60, 0.10, 0.20, 0.0),
}
# The ranks whose boxes the deck judges by ``COURT_RULES``: courts and aces. A number
# card's index (7-10) can be a 2-6 of the same deck, which no enrolment shows (a belote
# deck has none), a 6 upside down looking like a 9: those stay under the strict rule. A
# court's or an ace's index has fewer such twins (a soft 4 can read as a king), and these
# are the cards a general model misses most on a deck it never saw. Chosen the same way
# as ``HEADS``, on the boxes the general model takes for a court or an ace
# (``vision.lab.deck_rules``); since 2026-12-02 on 32 frames a design, not 16, where the
# rules chosen on 16 named 2 wrong boxes (this one) and 4 (the linear read's, below).
COURT_RANKS = "JQKA"
COURT_RULES: dict[str, Rule] = {
    "prototype": Rule(0.84, 0.16, 0.20, 0.8),
    "template": Rule(0.60, 0.10, 0.20, 0.0),
}
# The linear read (prototype head, whole decks): a box is read as an enrolled card when a
# softmax regression fitted on the deck's looks (``fit_linear``) gives the general model's
# best card guess at least ``accept`` (``margin`` unused), under the same floors as above.
# Chosen as ``HEADS`` and ``COURT_RULES`` are (``vision.lab.deck_rules``), per kind.
LINEAR_RULES: dict[str, Rule] = {
    "numbers": Rule(0.67, 0.0, 0.20, 0.0),
    "courts": Rule(0.60, 0.0, 0.20, 0.8),
}
# The fit: full-batch gradient descent on the unit looks, this many steps of this size,
# weight decay as below (seeded by nothing: it starts from zero and is deterministic).
LINEAR_STEPS = 1000
LINEAR_STEP = 2.0
LINEAR_DECAY = 1e-3
# The linear read is fitted only on a whole deck (its rules were chosen on 32 cards: over a
# few enrolled cards a softmax is sure of one of them whatever the box shows).
LINEAR_MIN_CARDS = 32
DEFAULT_HEAD = "prototype"
# The probability a box read through the deck gets: above every threshold of
# the general model's reads, first or second look.
DECK_SURE = 0.999
# Looks cut per index box before the quarter turns (the first is the reader's own cut),
# then as many again as the camera shows the index (``camera_looks``).
LOOKS_PER_INDEX = 8
# The sides, in frame pixels, of the indices of a table frame: a card 17-36 % of a
# 720-pixel frame's height prints its index about this tall.
CAMERA_INDEX_SIDES = (12.0, 30.0)
# Table frames each enrolled picture is laid in (``table_looks``): the card's height over
# the frame's, as at the table (``vision.card_size``), in a frame of the camera's size.
TABLE_FRAMES_PER_CARD = 4
TABLE_CARD_SHARE = (0.17, 0.36)
TABLE_FRAME = (1280, 720)


def is_court(code: str) -> bool:
    """Whether a class (``QH``, ``7S``, ``none``) is judged by ``COURT_RULES``."""
    return code[0] in COURT_RANKS


class DeckError(ExplainedError):
    """A deck cannot be made or used; the message says which file and why (in English:
    the command says it in the organiser's language, ``vision.errors``)."""


def model_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def card_name_fr(code: str) -> str:
    """``TH`` -> ``10 de cœur``, as an organiser reads it on the card."""
    card = Card.parse(code)
    rank = {"J": "valet (V)", "Q": "dame (D)", "K": "roi (R)", "A": "as"}.get(
        card.rank, RANK_INDEX_FR[card.rank])
    return f"{rank} de {SUIT_NAMES_FR[card.suit]}"


def template_vectors(patches: np.ndarray) -> np.ndarray:
    """The template head's embedding of uint8 patches (N, S, S[, 3]): the grey patch,
    mean removed, unit length (so a dot product is the normalised cross-correlation)."""
    x = np.asarray(patches, np.float32)
    if x.ndim == 4:
        x = x @ np.array([0.114, 0.587, 0.299], np.float32)  # BGR to grey
    x = x.reshape(len(x), -1)
    x -= x.mean(axis=1, keepdims=True)
    out: np.ndarray = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)
    return out


@dataclass
class Linear:
    """A softmax regression over the enrolled cards on the deck's unit looks: the
    classifier's last layer fitted again for one deck, in numpy."""

    classes: np.ndarray  # (k,) the classifier's class index of each output
    weights: np.ndarray  # (D, k)
    bias: np.ndarray  # (k,)

    def read(self, views: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per box of ``views`` (N, K, D): the best enrolled card (class index) and its
        probability, the logits of the K views averaged."""
        z = (np.asarray(views, np.float32) @ self.weights + self.bias).mean(axis=1)
        q = softmax(z)
        best = q.argmax(axis=1)
        return self.classes[best], q[np.arange(len(q)), best]


def fit_linear(vectors: np.ndarray, labels: np.ndarray, steps: int = LINEAR_STEPS,
               step: float = LINEAR_STEP, decay: float = LINEAR_DECAY) -> Linear:
    """The softmax regression of ``labels`` (class indices) on unit ``vectors`` (M, D)."""
    x = np.asarray(vectors, np.float32)
    classes = np.unique(labels)
    y = np.eye(len(classes), dtype=np.float32)[np.searchsorted(classes, labels)]
    w = np.zeros((x.shape[1], len(classes)), np.float32)
    b = np.zeros(len(classes), np.float32)
    n = float(len(x))
    for _ in range(steps):
        g = (softmax(x @ w + b) - y) / n
        w -= step * (x.T @ g + decay * w)
        b -= step * g.sum(axis=0)
    return Linear(classes.astype(np.int64), w, b)


def unit(x: np.ndarray) -> np.ndarray:
    """Vectors along the last axis made unit length."""
    x = np.asarray(x, np.float32)
    out: np.ndarray = x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-6)
    return out


@dataclass
class Deck:
    """An enrolled deck: unit vectors of its cards' index looks, and how to judge a box."""

    head: str
    classes: list[str]  # the classifier's classes (labels index them)
    labels: np.ndarray  # (M,) class index of each look
    vectors: np.ndarray  # (M, D) unit vectors
    model_sha256: str
    accept: float
    margin: float
    info: dict[str, Any] = field(default_factory=dict)
    # Subtracted from every embedding before it is made unit length: the mean of the
    # deck's raw looks. (ReLU features all point one way; without it any two patches
    # look alike.)
    center: np.ndarray | None = None
    # The deck names no box the general model gives 'none' this chance or more.
    none_below: float = 0.2
    # Nor one whose card the general model gives less than this chance.
    general: float = 0.0
    # The rule for courts and aces (``COURT_RANKS``); None: the one rule above for all.
    courts: Rule | None = None
    # The linear read and its rules ({"numbers": Rule, "courts": Rule}); None: none.
    linear: Linear | None = None
    linear_rules: dict[str, Rule] | None = None

    @property
    def cards(self) -> list[str]:
        """The enrolled cards, in the classifier's order."""
        return [self.classes[k] for k in sorted(set(self.labels.tolist()))]

    def save(self, path: str | Path) -> None:
        """Write the deck (``.npz``) at once: into a temporary file, then renamed."""
        path = Path(path)
        meta = {"version": VERSION, "head": self.head, "classes": self.classes,
                "cards": self.cards, "model_sha256": self.model_sha256,
                "accept": self.accept, "margin": self.margin, "none_below": self.none_below,
                "general_at_least": self.general, **self.info}
        if self.courts is not None:
            meta["courts"] = {"accept": self.courts.accept, "margin": self.courts.margin,
                              "general_at_least": self.courts.general}
        linear: dict[str, np.ndarray] = {}
        if self.linear is not None and self.linear_rules is not None:
            meta["linear"] = {kind: {"accept": r.accept, "general_at_least": r.general}
                              for kind, r in self.linear_rules.items()}
            linear = {"linear_classes": self.linear.classes.astype(np.int16),
                      "linear_weights": self.linear.weights.astype(np.float32),
                      "linear_bias": self.linear.bias.astype(np.float32)}
        arrays: dict[str, Any] = {
            "meta": np.array(json.dumps(meta)), "labels": self.labels.astype(np.int16),
            "vectors": self.vectors.astype(np.float16),
            "center": (self.center if self.center is not None
                       else np.zeros(0)).astype(np.float32), **linear}
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Deck:
        path = Path(path)
        if not path.is_file():
            raise DeckError("%(path)s: no such deck file", path=path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                labels = data["labels"].astype(np.int64)
                vectors = data["vectors"].astype(np.float32)
                center = data["center"].astype(np.float32)
                linear = None
                if isinstance(meta, dict) and "linear" in meta:
                    linear = Linear(data["linear_classes"].astype(np.int64),
                                    data["linear_weights"].astype(np.float32),
                                    data["linear_bias"].astype(np.float32))
            if not isinstance(meta, dict):
                raise ValueError("its description is not a table of fields")
        except (OSError, ValueError, KeyError) as e:
            raise DeckError("%(path)s: not a deck file (%(error)s)", path=path, error=e) from e
        if meta.get("version") not in READABLE_VERSIONS:
            raise DeckError("%(path)s: deck file version %(version)s, this program reads "
                            "version %(expected)s: enrol the deck again", path=path,
                            version=meta.get("version"), expected=VERSION)
        if meta.get("head") not in HEADS:
            raise DeckError("%(path)s: unknown comparison method %(head)s", path=path,
                            head=repr(meta.get("head")))
        info = {k: v for k, v in meta.items()
                if k not in ("version", "head", "classes", "cards", "model_sha256",
                             "accept", "margin", "none_below", "general_at_least", "courts",
                             "linear")}
        try:
            none_below = float(meta["none_below"])
            courts = None
            if meta["version"] >= 3:
                c = meta["courts"]
                courts = Rule(float(c["accept"]), float(c["margin"]), none_below,
                              float(c["general_at_least"]))
            linear_rules = None
            if linear is not None:
                linear_rules = {kind: Rule(float(meta["linear"][kind]["accept"]), 0.0,
                                           none_below,
                                           float(meta["linear"][kind]["general_at_least"]))
                                for kind in ("numbers", "courts")}
                d, k = linear.weights.shape
                if (linear.bias.shape != (k,) or linear.classes.shape != (k,)
                        or d != vectors.shape[1] or not np.isin(linear.classes, labels).all()):
                    raise ValueError("its linear read does not fit its looks")
            return cls(meta["head"], list(meta["classes"]), labels, vectors,
                       str(meta["model_sha256"]), float(meta["accept"]), float(meta["margin"]),
                       info, center if center.size else None, none_below,
                       float(meta.get("general_at_least", 0.0)), courts, linear, linear_rules)
        except (KeyError, TypeError, ValueError) as e:  # a field missing or not a number
            raise DeckError("%(path)s: not a deck file (%(error)s)", path=path,
                            error=repr(e)) from e

    def check_model(self, classifier: CardClassifier, where: str = "deck") -> None:
        """Refuse a classifier other than the one the deck was made with."""
        digest = model_sha256(classifier.model_path)
        if digest != self.model_sha256:
            raise DeckError(
                "%(where)s: this deck was enrolled with another model than %(model)s: enrol "
                "it again (belote-table enroll, or belote-table vision enroll)", where=where,
                model=classifier.model_path.name)
        if self.classes != classifier.classes:
            raise DeckError("%(where)s: the deck's classes differ from the model's",
                            where=where)
        if self.head == "prototype" and not classifier.has_features:
            raise DeckError("%(model)s: this model has no '%(output)s' output (add it with "
                            "python -m vision.lab.add_features)",
                            model=classifier.model_path.name, output=FEATURES)

    def similarities(self, views: np.ndarray) -> np.ndarray:
        """Per box, its best similarity to each class's looks: (N, classes), -1 where a
        class has no look. ``views`` (N, K, D) are K unit vectors of each box (its
        quarter turns, or the second look's cuts); the best of them counts."""
        n, k, d = views.shape
        labels, vectors = self.labels, self.vectors
        if len(labels) > 1 and (np.diff(labels) < 0).any():  # looks not grouped by card
            order = np.argsort(labels, kind="stable")
            labels, vectors = labels[order], vectors[order]
        sims = views.reshape(n * k, d) @ vectors.T  # (N*K, M)
        sims = sims.reshape(n, k, -1).max(axis=1)  # (N, M)
        out = np.full((n, len(self.classes)), -1.0, np.float32)
        if n == 0 or len(labels) == 0:
            return out
        # The looks of one card lie together: the best of each run of them.
        starts = np.concatenate([[0], np.nonzero(np.diff(labels))[0] + 1])
        out[:, labels[starts]] = np.maximum.reduceat(sims, starts, axis=1)
        return out

    def judge(self, probs: np.ndarray, views: np.ndarray) -> np.ndarray:
        """The general model's calibrated ``probs`` (N, classes), with each box that is
        surely an enrolled card (see the module's docstring) read as that card."""
        if len(probs) == 0:
            return probs
        sims = self.similarities(views)
        order = np.argsort(-sims, axis=1)
        best, second = order[:, 0], order[:, 1]
        rows = np.arange(len(sims))
        top, runner = sims[rows, best], sims[rows, second]
        # Each box by the rule of its best card's kind: courts and aces by their own.
        accept = np.full(len(sims), self.accept, np.float32)
        margin = np.full(len(sims), self.margin, np.float32)
        floor = np.full(len(sims), self.general, np.float32)
        if self.courts is not None:
            court = np.array([is_court(self.classes[k]) for k in best])
            accept[court], margin[court] = self.courts.accept, self.courts.margin
            floor[court] = self.courts.general
        sure = (top >= accept) & (top - runner >= margin)
        # The deck only makes sure the general model's best guess among the cards, where
        # the general model gives it a fair chance and 'no belote card' little: it never
        # names another card than the general model would, so a card of a design like
        # the deck's (or one of its 2-6) is not taken for one of the deck's cards.
        cards = [k for k, name in enumerate(self.classes) if name != NONE]
        guess = np.asarray(cards)[probs[:, cards].argmax(axis=1)]
        sure &= (guess == best) & (probs[:, self.classes.index(NONE)] < self.none_below)
        sure &= probs[rows, best] >= floor
        if self.linear is not None and self.linear_rules is not None:
            sure |= self.linear_sure(probs, views, guess)
        best = np.where(sure, guess, best)
        out = probs.copy()
        rest = (1.0 - DECK_SURE) / (len(self.classes) - 1)
        for i in np.nonzero(sure)[0]:
            out[i] = rest
            out[i, best[i]] = DECK_SURE
        return out

    def linear_sure(self, probs: np.ndarray, views: np.ndarray, guess: np.ndarray
                    ) -> np.ndarray:
        """Which boxes the linear read makes sure: it names the general model's best card
        guess ``guess`` with at least its kind's ``accept``, the general model gives that
        card at least the kind's floor and 'none' under ``none_below``."""
        assert self.linear is not None and self.linear_rules is not None
        named, chance = self.linear.read(views)
        rows = np.arange(len(probs))
        court = np.array([is_court(self.classes[k]) for k in guess], bool)
        rules = self.linear_rules
        accept = np.where(court, rules["courts"].accept, rules["numbers"].accept)
        floor = np.where(court, rules["courts"].general, rules["numbers"].general)
        out: np.ndarray = ((named == guess) & (chance >= accept)
                           & (probs[rows, guess] >= floor)
                           & (probs[:, self.classes.index(NONE)] < self.none_below))
        return out

    def embed(self, classifier: CardClassifier, patches: np.ndarray) -> np.ndarray:
        """Unit vectors of uint8 patches (N, S, S, 3) for this deck's head: (N, D)."""
        if self.head == "template":
            return template_vectors(patches)
        return self.unit(classifier.features(patches))

    def unit(self, features: np.ndarray) -> np.ndarray:
        """Raw features (..., D) as the deck compares them: centred, unit length."""
        f = np.asarray(features, np.float32)
        return unit(f - self.center if self.center is not None else f)


# ------------------------------------------------------------------ finding a card's indices

# Where a card prints its index: within these shares of its short and long sides from a
# corner (designs differ; the detector's box inside the zone gives the index itself).
CORNER_ZONE = (0.36, 0.32)


def corner_zone(quad: np.ndarray, corner: int) -> np.ndarray:
    """The zone of a card's ``corner`` (0-3 of a quad) where an index may lie: 4x2."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    c, a, b = q[corner], q[(corner + 1) % 4], q[(corner - 1) % 4]
    if np.linalg.norm(a - c) > np.linalg.norm(b - c):
        a, b = b, a  # a along the short side, b along the long one
    u, v = (a - c) * CORNER_ZONE[0], (b - c) * CORNER_ZONE[1]
    # Reaching a little past the corner: an outline found on a blurred frame lies
    # inside the card's edge, and a detector box may be loose.
    o = c - 0.4 * (u + v)
    return np.array([o, o + 1.4 * u, o + 1.4 * (u + v), o + 1.4 * v], np.float32)


def inside(box: Box, polygon: np.ndarray) -> bool:
    """Whether the centre of ``box`` lies in ``polygon`` (4x2)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return cv2.pointPolygonTest(np.asarray(polygon, np.float32).reshape(-1, 1, 2),
                                (float(cx), float(cy)), False) >= 0


# A box in a card's corner is taken for its index when the general model gives it at least
# this chance of being the card (``card_boxes``): a court's picture, a court's name printed
# in the corner and a number card's pips give boxes there too, read as no belote card.
INDEX_CHANCE = 0.01


def card_boxes(reader: CardReader, frame: np.ndarray, quad: np.ndarray,
               found: list[tuple[Box, float]] | None = None, code: str | None = None
               ) -> list[Box]:
    """The index boxes of the card whose outline is ``quad``: in each corner zone of one
    diagonal (a card prints its indices at two opposite corners), the detector's box the
    general model takes most for the card (``code``'s chance when the card is known,
    else the chance of any belote card), where that chance reaches INDEX_CHANCE; the
    diagonal whose two chances sum higher. A court's picture, or its name printed in
    the other corners, can give boxes the detector is surer of than of the index: those
    are read as no card. Where no box of the corners reaches it (a design whose courts
    print no rank), the detector's surest box in each zone, as before. One box, or none,
    when no more are found. ``found``: the detector's boxes of ``frame``, when known."""
    from vision.locate import index_crop

    if found is None:
        assert reader.detector is not None
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found = reader.detector.detect(gray)
    zones = [[(b, s) for b, s in found if inside(b, corner_zone(quad, corner))]
             for corner in range(4)]
    boxes = [b for zone in zones for b, _ in zone]
    chance: dict[Box, float] = {}
    if boxes:
        classifier = reader.classifier
        size, pad = int(classifier.meta["crop"]), float(classifier.meta["pad"])
        source = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        with classifier.general_only():
            probs = classifier.probabilities(
                np.stack([index_crop(source, b, size, pad) for b in boxes]))
        if code is not None and code in classifier.classes:
            card = probs[:, classifier.classes.index(code)]
        else:
            card = 1.0 - probs[:, classifier.none_index]
        chance = {b: float(c) for b, c in zip(boxes, card, strict=True)}
    for weigh in (lambda b, s: chance[b] if chance[b] >= INDEX_CHANCE else 0.0,
                  lambda b, s: s):
        best: tuple[float, list[Box]] = (0.0, [])
        for diagonal in ((0, 2), (1, 3)):
            picked, total = [], 0.0
            for corner in diagonal:
                hits = [(weigh(b, s), b) for b, s in zones[corner]]
                hits = [h for h in hits if h[0] > 0.0]
                if hits:
                    score, box = max(hits, key=lambda h: h[0])
                    picked.append(box)
                    total += score
            if total > best[0]:
                best = (total, picked)
        if best[1]:
            return best[1]
    return []


def single_card(reader: CardReader, frame: np.ndarray, code: str | None = None
                ) -> tuple[list[Box], np.ndarray]:
    """The index boxes of a picture of one card (``code``, when known: see
    :func:`card_boxes`), and the card's outline (4x2): a photo of it on a table (its
    outline found by :func:`vision.locate.find_cards`, the largest) or a scan (the whole
    picture is the card)."""
    from vision.locate import find_cards, order_quad

    h, w = frame.shape[:2]
    quads = [q for q in find_cards(frame) if cv2.contourArea(q) >= 0.2 * h * w]
    whole = order_quad(np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32))
    quad = max(quads, key=cv2.contourArea) if quads else whole
    boxes = card_boxes(reader, frame, quad, code=code) if quads else []
    if len(boxes) < 2:
        # No outline, or one that is a court card's printed frame: the picture is the card.
        other = card_boxes(reader, frame, whole, code=code)
        if len(other) > len(boxes):
            boxes, quad = other, whole
    return boxes, np.asarray(quad, np.float32).reshape(4, 2)


# ------------------------------------------------------------------ cutting looks

def index_looks(source: np.ndarray, box: Box, rng: np.random.Generator, size: int, pad: float,
                n: int = LOOKS_PER_INDEX) -> np.ndarray:
    """``8 n`` patches of one index: the reader's own cut, ``n - 1`` shifted, scaled,
    blurred and lit differently, and ``n`` as the camera shows it (:func:`camera_looks`),
    each at the four quarter turns: (8 n, S, S, 3) uint8."""
    cuts = []
    for i in range(n):
        if i == 0:
            cut = index_crop(source, box, size, pad)
        else:
            f = float(rng.uniform(0.85, 1.2))
            dx, dy = rng.uniform(-0.1, 0.1, 2)
            cut = index_crop(source, moved_box(box, f, dx, dy), size, pad).astype(np.float32)
            if rng.random() < 0.5:
                cut = cv2.GaussianBlur(cut, (0, 0), float(rng.uniform(0.4, 1.2)))
            cut = cut * float(rng.uniform(0.7, 1.2)) + float(rng.uniform(-25, 25))
            cut = np.clip(cut, 0, 255).astype(np.uint8)
        cuts.append(cut)
    stack = np.concatenate([np.stack(cuts), camera_looks(source, box, rng, size, pad, n)])
    return np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(4)])


def camera_looks(source: np.ndarray, box: Box, rng: np.random.Generator, size: int,
                 pad: float, n: int) -> np.ndarray:
    """``n`` patches of one index as a camera over the table shows it: cut a little
    shifted and scaled, brought down to an index ``CAMERA_INDEX_SIDES`` pixels tall,
    softened, lit and noised, most saved as JPEG, then cut as the reader cuts (brought up
    to ``size``): (n, S, S, 3) uint8. An enrolment picture shows the index large and
    sharp; the frames the deck helps with show it small and soft."""
    out = []
    for _ in range(n):
        f = float(rng.uniform(0.9, 1.12))
        dx, dy = rng.uniform(-0.08, 0.08, 2)
        cut = index_crop(source, moved_box(box, f, dx, dy), 3 * size, pad)
        small_side = max(int(round(float(rng.uniform(*CAMERA_INDEX_SIDES)) * pad)), 8)
        small = cv2.resize(cut, (small_side, small_side), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.6:
            small = cv2.GaussianBlur(small, (0, 0), float(rng.uniform(0.3, 1.0)))
        lit = small.astype(np.float32) * float(rng.uniform(0.7, 1.15)) \
            + float(rng.uniform(-25, 25))
        lit += rng.normal(0.0, float(rng.uniform(0, 6)), lit.shape).astype(np.float32)
        small = np.clip(lit, 0, 255).astype(np.uint8)
        if rng.random() < 0.7:
            ok, jpeg = cv2.imencode(".jpg", small,
                                    [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
            if ok:
                small = cv2.imdecode(jpeg, cv2.IMREAD_UNCHANGED).reshape(small.shape)
        out.append(cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR))
    return np.stack(out)


def table_frame(source: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
                size: tuple[int, int] = TABLE_FRAME) -> tuple[np.ndarray, np.ndarray]:
    """The card of ``source`` (outline ``quad``, 4x2) laid on a plain table in a camera
    frame: as tall as a card at the table (``TABLE_CARD_SHARE`` of the frame), turned any
    way, a little askew, softened, lit, noised and saved as JPEG. Returns the frame (BGR)
    and the card's outline in it."""
    w, h = size
    q = np.asarray(quad, np.float32).reshape(4, 2)
    long_side = max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[1]),
                    np.linalg.norm(q[2] - q[3]), np.linalg.norm(q[3] - q[0]))
    scale = float(rng.uniform(*TABLE_CARD_SHARE)) * h / max(float(long_side), 1.0)
    # Brought down first by area (a warp alone would alias the print), then laid down.
    small = cv2.resize(source, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else source
    shrunk = small.shape[1] / source.shape[1]  # what the resize did (``scale``, rounded)
    q_small = q * shrunk
    turn = float(rng.uniform(0.0, 2.0 * np.pi))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    centre = np.array([rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h], np.float32)
    card_h = float(long_side) * scale
    dst = ((q_small - q_small.mean(axis=0)) * (scale / shrunk)
           @ rot.T + centre + rng.normal(0.0, 0.02 * card_h, (4, 2))).astype(np.float32)
    colour = rng.uniform((20, 40, 20), (120, 150, 150)).astype(np.float32)
    table = np.empty((h, w, 3), np.float32)
    table[:] = colour
    table += rng.normal(0.0, 4.0, (h, w, 1)).astype(np.float32)
    frame: np.ndarray = np.clip(table, 0, 255).astype(np.uint8)
    m = cv2.getPerspectiveTransform(q_small.astype(np.float32), dst)
    cv2.warpPerspective(small, m, (w, h), dst=frame, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    out: np.ndarray = frame.astype(np.float32)
    if rng.random() < 0.7:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.3, 1.3)))
    elif rng.random() < 0.5:
        length = int(rng.integers(3, 8))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        turn_k = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2),
                                         float(rng.uniform(0, 180)), 1.0)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kernel, turn_k, (length, length)))
    out = out * float(rng.uniform(0.7, 1.15)) + float(rng.uniform(-25, 25))
    out += rng.normal(0.0, float(rng.uniform(0, 6)), out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    if ok:
        frame = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    return frame, dst


def table_looks(reader: CardReader, source: np.ndarray, quad: np.ndarray,
                rng: np.random.Generator, n: int = TABLE_FRAMES_PER_CARD,
                code: str | None = None) -> np.ndarray:
    """Patches of a card's indices as the reader cuts them from table frames: the card
    laid in ``n`` frames (:func:`table_frame`), its indices boxed by the reader's own
    detector in its corners (:func:`card_boxes`), each box cut as the first read cuts it
    and as the second look does (its closer box, ``vision.locate.LOOKS``), each patch at
    the four quarter turns: (K, S, S, 3) uint8, K = 0 when no index was found. An
    enrolment picture shows the index large and sharp; the frames the deck helps with
    show it small and soft, boxed as loosely as the detector boxes it there."""
    from vision.locate import look_crops

    assert reader.detector is not None
    size = int(reader.classifier.meta["crop"])
    pad = float(reader.classifier.meta["pad"])
    source = source if source.ndim == 3 else cv2.cvtColor(source, cv2.COLOR_GRAY2BGR)
    cuts = []
    for _ in range(n):
        frame, dst = table_frame(source, quad, rng)
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        for box in card_boxes(reader, frame, dst, code=code):
            cuts.append(index_crop(frame, box, size, pad)[None])
            cuts.append(look_crops(frame, reader.detector.refine(gray, box) or box, size, pad))
    if not cuts:
        return np.zeros((0, size, size, 3), np.uint8)
    stack = np.concatenate(cuts)
    return np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(4)])


class Enroller:
    """Gathers index looks card by card, then makes the :class:`Deck`."""

    def __init__(self, reader: CardReader, head: str = DEFAULT_HEAD, seed: int = 0,
                 table_frames: int = TABLE_FRAMES_PER_CARD) -> None:
        if reader.detector is None:
            raise DeckError("enrolment needs the reader with the index detector (design B)")
        if head not in HEADS:
            raise DeckError("unknown comparison method %(head)s (one of %(heads)s)",
                            head=repr(head), heads=", ".join(HEADS))
        self.reader = reader
        self.classifier = reader.classifier
        if head == "prototype" and not self.classifier.has_features:
            raise DeckError("%(model)s: this model has no '%(output)s' output",
                            model=self.classifier.model_path.name, output=FEATURES)
        self.head = head
        self.rng = np.random.default_rng(seed)
        # Table looks feed the linear read, which only the prototype head has.
        self.table_frames = table_frames if head == "prototype" else 0
        self.patches: dict[str, list[np.ndarray]] = {}
        # The looks from table frames (``table_looks``): the linear read learns from them
        # too; they are not kept among the deck's looks (the cosine's cost grows with them).
        self.table_patches: dict[str, list[np.ndarray]] = {}
        self.started = time.monotonic()

    @property
    def cards(self) -> list[str]:
        return [c for c in self.classifier.classes if c in self.patches]

    def add(self, code: str, frame: np.ndarray, boxes: list[Box],
            quad: np.ndarray | None = None) -> None:
        """Learn ``code`` from its index ``boxes`` in ``frame`` (BGR); with the card's
        outline ``quad``, also from the card laid in table frames (:func:`table_looks`)."""
        from vision.reader import white_paper

        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        source = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        # A picture taken under a warm or red lamp: its paper made white again, as the
        # reader makes a frame's (the deck reads frames with white paper).
        source = white_paper(source)
        for box in boxes:
            self.patches.setdefault(code, []).append(
                index_looks(source, box, self.rng, size, pad))
        if quad is not None and self.table_frames:
            looks = table_looks(self.reader, source, quad, self.rng, self.table_frames, code)
            if len(looks):
                self.table_patches.setdefault(code, []).append(looks)

    def deck(self) -> Deck:
        if not self.patches:
            raise DeckError("no card learnt: nothing to write")
        classes = self.classifier.classes
        labels: list[np.ndarray] = []
        accept, margin, none_below, general = HEADS[self.head]
        empty = Deck(self.head, classes, np.zeros(0, np.int64), np.zeros((0, 1), np.float32),
                     "", accept, margin)
        raw = []
        for code in self.cards:
            patches = np.concatenate(self.patches[code])
            raw.append(self.classifier.features(patches) if self.head == "prototype"
                       else empty.embed(self.classifier, patches))
            labels.append(np.full(len(patches), classes.index(code)))
        center = np.concatenate(raw).mean(axis=0) if self.head == "prototype" else None
        empty.center = center
        vectors = np.concatenate([empty.unit(r) if self.head == "prototype" else r
                                  for r in raw])
        all_labels = np.concatenate(labels)
        linear = None
        if self.head == "prototype" and len(self.cards) >= LINEAR_MIN_CARDS:
            fit_x, fit_y = [vectors], [all_labels]
            for code in self.cards:
                if code not in self.table_patches:
                    continue
                patches = np.concatenate(self.table_patches[code])
                fit_x.append(empty.unit(self.classifier.features(patches)))
                fit_y.append(np.full(len(patches), classes.index(code)))
            linear = fit_linear(np.concatenate(fit_x), np.concatenate(fit_y))
        return Deck(self.head, classes, all_labels, vectors,
                    model_sha256(self.classifier.model_path), accept, margin,
                    {"model": self.classifier.model_path.name,
                     "enroll_seconds": round(time.monotonic() - self.started, 2),
                     "made": time.strftime("%Y-%m-%d")}, center, none_below, general,
                    COURT_RULES[self.head], linear,
                    dict(LINEAR_RULES) if linear is not None else None)


# ------------------------------------------------------------------ a folder of card pictures

def folder_images(directory: str | Path) -> dict[str, list[Path]]:
    """``DIR/<CARD>/*.jpg|png`` as {card: [paths]}, every name checked first."""
    root = Path(directory)
    if not root.is_dir():
        raise DeckError("%(folder)s: no such folder", folder=root)
    out: dict[str, list[Path]] = {}
    for sub in sorted(root.iterdir()):
        if not sub.is_dir():
            continue
        try:
            code = str(Card.parse(sub.name))
        except InvalidCardError:
            raise DeckError("%(folder)s: %(name)s is not a belote card: name each folder "
                            "after the card it shows, e.g. TH for the ten of hearts, QS for "
                            "the queen of spades", folder=sub, name=repr(sub.name)) from None
        if sub.name != code:
            raise DeckError("%(folder)s: write the folder's name as %(code)s", folder=sub,
                            code=code)
        images = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not images:
            raise DeckError("%(folder)s: no picture (JPEG, PNG, BMP or WebP)", folder=sub)
        out[code] = images
    if not out:
        raise DeckError("%(folder)s: no card folder (TH/, QS/...)", folder=root)
    return out


def enroll_folder(reader: CardReader, directory: str | Path, head: str = DEFAULT_HEAD,
                  learnt: Callable[[str], None] = lambda _code: None, seed: int = 0,
                  table_frames: int = TABLE_FRAMES_PER_CARD,
                  read_as: Callable[[Path, str, str], None] | None = None) -> Deck:
    """Learn a deck from ``DIR/<CARD>/*.jpg|png``. Every picture is checked (readable,
    its card found) before the deck is made; the first fault raises :class:`DeckError`
    naming the file. ``learnt`` is told each card's code once its pictures are learnt
    (the command says so in the organiser's language).

    ``read_as`` (``reader`` being the general model) is told each picture the general
    model surely reads as another card, ``(path, code, other)``: a picture put in the
    wrong folder, or a card of this deck the reader takes for another (a looped Q read
    as a 9). The deck only confirms what the general model guesses (:meth:`Deck.judge`),
    so it does not mend such a card: the organiser is told."""
    from vision.reader import load_image

    enroller = Enroller(reader, head, seed, table_frames)
    for code, paths in folder_images(directory).items():
        for path in paths:
            try:
                frame = load_image(path)
            except ValueError:
                raise DeckError("%(path)s: not a readable picture (JPEG, PNG...)",
                                path=path) from None
            boxes, quad = single_card(reader, frame, code)
            if not boxes:
                raise DeckError("%(path)s: no card index found in this picture: "
                                "photograph the whole card, flat, well lit", path=path)
            enroller.add(code, frame, boxes, quad)
            if read_as is not None:
                found = reader.read_face(frame)
                if found is not None and found.code is not None and found.code != code:
                    read_as(path, code, found.code)
        learnt(code)
    return enroller.deck()


def read_views(classifier: CardClassifier, deck: Deck, patches: Iterable[np.ndarray]
               ) -> np.ndarray:
    """Unit vectors (N, K, D) of boxes each given as K patches (N, K, S, S, 3)."""
    stack = np.asarray(list(patches))
    n, k = stack.shape[:2]
    flat = stack.reshape(n * k, *stack.shape[2:])
    return deck.embed(classifier, flat).reshape(n, k, -1)
