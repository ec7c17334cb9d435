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
fair chance (:func:`linear_rules`, per kind, chosen on the training designs).

Two heads can embed the looks (``HEAD_NAMES``; see ``benchmarks/enroll.py`` for how
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

from scorer.cards import RANK_INDEX_FR, SUIT_NAMES_FR, Card
from vision.errors import ExplainedError
from vision.scores import FEATURES, NONE, softmax
from vision.settings import ReaderSettings, shipped_settings


class Embedder(Protocol):
    """What a deck needs of the classifier it was enrolled with
    (:class:`vision.classify.CardClassifier` is one)."""

    model_path: Path
    classes: list[str]

    @property
    def has_features(self) -> bool: ...

    def features(self, crops: np.ndarray) -> np.ndarray: ...

# 2: the looks as the camera shows an index, and the rule's floor on the general model's
# chance (``Rule.general``). 3: a rule of its own for courts and aces (:func:`court_rules`).
# A deck of an earlier version still reads as it did: by the one rule written in it (with
# no floor for version 1).
# 4: a linear read fitted per deck (``Linear``, :func:`linear_rules`) on the looks and on the
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


# The comparison methods (heads). Their rules, the linear read's and its fit, and the
# chance a box read through a deck gets are tuned values: they ship with the classifier
# (``vision.settings.ReaderSettings``, ``deck_*``, ``linear_*``).
HEAD_NAMES = ("prototype", "template")
# The ranks whose boxes the deck judges by its courts' rule: courts and aces. A number
# card's index (7-10) can be a 2-6 of the same deck, which no enrolment shows (a belote
# deck has none), a 6 upside down looking like a 9: those stay under the strict rule. A
# court's or an ace's index has fewer such twins (a soft 4 can read as a king), and these
# are the cards a general model misses most on a deck it never saw.
COURT_RANKS = "JQKA"
# The linear read is fitted only on a whole deck (its rules were chosen on whole decks:
# over a few enrolled cards a softmax is sure of one of them whatever the box shows).
LINEAR_MIN_CARDS = 32
DEFAULT_HEAD = "prototype"


def heads(tuned: ReaderSettings) -> dict[str, Rule]:
    """Each head's rule for number cards in the settings ``tuned``."""
    return {"prototype": Rule(*tuned.deck_prototype), "template": Rule(*tuned.deck_template)}


def court_rules(tuned: ReaderSettings) -> dict[str, Rule]:
    """Each head's rule for courts and aces (``COURT_RANKS``) in the settings ``tuned``."""
    return {"prototype": Rule(*tuned.deck_prototype_courts),
            "template": Rule(*tuned.deck_template_courts)}


def linear_rules(tuned: ReaderSettings) -> dict[str, Rule]:
    """The linear read's rule per kind ("numbers", "courts") in the settings ``tuned``."""
    return {"numbers": Rule(*tuned.deck_linear_numbers),
            "courts": Rule(*tuned.deck_linear_courts)}


# The shipped model's (the benchmarks and the lab name them; the reader and enrolment
# read their own settings).
HEADS = heads(shipped_settings())
COURT_RULES = court_rules(shipped_settings())
LINEAR_RULES = linear_rules(shipped_settings())
DECK_SURE = shipped_settings().deck_sure


def is_court(code: str) -> bool:
    """Whether a class (``QH``, ``7S``, ``none``) is judged by the courts' rule."""
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


def fit_linear(vectors: np.ndarray, labels: np.ndarray, steps: int | None = None,
               step: float | None = None, decay: float | None = None) -> Linear:
    """The softmax regression of ``labels`` (class indices) on unit ``vectors`` (M, D):
    full-batch gradient descent from zero (deterministic), by the shipped settings'
    ``linear_steps``, ``linear_step`` and ``linear_decay`` where not given."""
    tuned = shipped_settings()
    steps = tuned.linear_steps if steps is None else steps
    step = tuned.linear_step if step is None else step
    decay = tuned.linear_decay if decay is None else decay
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
        if meta.get("head") not in HEAD_NAMES:
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

    def check_model(self, classifier: Embedder, where: str = "deck") -> None:
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

    def judge(self, probs: np.ndarray, views: np.ndarray, sure_chance: float | None = None
              ) -> np.ndarray:
        """The general model's calibrated ``probs`` (N, classes), with each box that is
        surely an enrolled card (see the module's docstring) read as that card, at the
        chance ``sure_chance`` (the settings' ``deck_sure``; the shipped model's where not
        given)."""
        if sure_chance is None:
            sure_chance = shipped_settings().deck_sure
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
        rest = (1.0 - sure_chance) / (len(self.classes) - 1)
        for i in np.nonzero(sure)[0]:
            out[i] = rest
            out[i, best[i]] = sure_chance
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

    def embed(self, classifier: Embedder, patches: np.ndarray) -> np.ndarray:
        """Unit vectors of uint8 patches (N, S, S, 3) for this deck's head: (N, D)."""
        if self.head == "template":
            return template_vectors(patches)
        return self.unit(classifier.features(patches))

    def unit(self, features: np.ndarray) -> np.ndarray:
        """Raw features (..., D) as the deck compares them: centred, unit length."""
        f = np.asarray(features, np.float32)
        return unit(f - self.center if self.center is not None else f)
