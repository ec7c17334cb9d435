"""Enrolling a club's deck: from a picture of each card, the :class:`vision.deck.Deck`
the reader then reads that deck through.

Each picture's card is found (:func:`single_card`: its outline, or the whole picture),
its two corner indices boxed by the reader's own detector (:func:`card_boxes`), and
each index cut many ways (:func:`index_looks`: shifted, scaled, blurred, lit
differently, and as a camera over the table shows it, :func:`camera_looks`); the card
is also laid in table frames and its indices cut there as the reader cuts them
(:func:`table_looks`), for the deck's linear read. :class:`Enroller` gathers the looks
card by card and makes the deck; :func:`enroll_folder` enrols ``DIR/<CARD>/*.jpg``.

Above the reader (it boxes and reads with a :class:`vision.reader.CardReader`); the
deck itself (:mod:`vision.deck`) stands below the classifier that reads through it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import Card, InvalidCardError
from vision.deck import (
    DEFAULT_HEAD,
    HEAD_NAMES,
    LINEAR_MIN_CARDS,
    Box,
    Deck,
    DeckError,
    court_rules,
    fit_linear,
    heads,
    linear_rules,
    model_sha256,
)
from vision.imagefile import IMAGE_SUFFIXES, load_image
from vision.locate import (
    LocateParams,
    find_cards,
    index_crop,
    look_crops,
    moved_box,
    order_quad,
)
from vision.paper import white_paper
from vision.reader import CardReader
from vision.scores import FEATURES
from vision.settings import shipped_settings

# How many looks are cut per index, as the camera shows it, in how many table frames a
# card is laid and how tall: the reader's settings (``enroll_looks``,
# ``camera_index_sides``, ``table_frames``, ``table_card_share``). The table frames are of
# the camera's size.
TABLE_FRAME = (1280, 720)


# ------------------------------------------------------------------ finding a card's indices

def corner_zone(quad: np.ndarray, corner: int, share: tuple[float, float] | None = None
                ) -> np.ndarray:
    """The zone of a card's ``corner`` (0-3 of a quad) where an index may lie: 4x2.
    ``share``: of the card's short and long sides from the corner (the settings'
    ``corner_zone``; the shipped model's where not given)."""
    across, along = shipped_settings().corner_zone if share is None else share
    q = np.asarray(quad, np.float32).reshape(4, 2)
    c, a, b = q[corner], q[(corner + 1) % 4], q[(corner - 1) % 4]
    if np.linalg.norm(a - c) > np.linalg.norm(b - c):
        a, b = b, a  # a along the short side, b along the long one
    u, v = (a - c) * across, (b - c) * along
    # Reaching a little past the corner: an outline found on a blurred frame lies
    # inside the card's edge, and a detector box may be loose.
    o = c - 0.4 * (u + v)
    return np.array([o, o + 1.4 * u, o + 1.4 * (u + v), o + 1.4 * v], np.float32)


def inside(box: Box, polygon: np.ndarray) -> bool:
    """Whether the centre of ``box`` lies in ``polygon`` (4x2)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return cv2.pointPolygonTest(np.asarray(polygon, np.float32).reshape(-1, 1, 2),
                                (float(cx), float(cy)), False) >= 0


def card_boxes(reader: CardReader, frame: np.ndarray, quad: np.ndarray,
               found: list[tuple[Box, float]] | None = None, code: str | None = None
               ) -> list[Box]:
    """The index boxes of the card whose outline is ``quad``: in each corner zone of one
    diagonal (a card prints its indices at two opposite corners), the detector's box the
    general model takes most for the card (``code``'s chance when the card is known,
    else the chance of any belote card), where that chance reaches the reader's settings'
    ``index_chance``; the
    diagonal whose two chances sum higher. A court's picture, or its name printed in
    the other corners, can give boxes the detector is surer of than of the index: those
    are read as no card. Where no box of the corners reaches it (a design whose courts
    print no rank), the detector's surest box in each zone, as before. One box, or none,
    when no more are found. ``found``: the detector's boxes of ``frame``, when known."""
    if found is None:
        assert reader.detector is not None
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found = reader.detector.detect(gray)
    tuned = reader.settings
    zones = [[(b, s) for b, s in found if inside(b, corner_zone(quad, corner, tuned.corner_zone))]
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
    for weigh in (lambda b, s: chance[b] if chance[b] >= tuned.index_chance else 0.0,
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
    h, w = frame.shape[:2]
    quads = [q for q in find_cards(frame, LocateParams.of(reader.settings))
             if cv2.contourArea(q) >= 0.2 * h * w]
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
                n: int | None = None, sides: tuple[float, float] | None = None) -> np.ndarray:
    """``8 n`` patches of one index: the reader's own cut, ``n - 1`` shifted, scaled,
    blurred and lit differently, and ``n`` as the camera shows it (:func:`camera_looks`,
    ``sides``), each at the four quarter turns: (8 n, S, S, 3) uint8. ``n`` and ``sides``:
    the settings' ``enroll_looks`` and ``camera_index_sides`` (the shipped model's where
    not given)."""
    n = shipped_settings().enroll_looks if n is None else n
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
    stack = np.concatenate([np.stack(cuts), camera_looks(source, box, rng, size, pad, n, sides)])
    return np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(4)])


def camera_looks(source: np.ndarray, box: Box, rng: np.random.Generator, size: int,
                 pad: float, n: int, sides: tuple[float, float] | None = None) -> np.ndarray:
    """``n`` patches of one index as a camera over the table shows it: cut a little
    shifted and scaled, brought down to an index ``sides`` pixels tall (the settings'
    ``camera_index_sides``; the shipped model's where not given),
    softened, lit and noised, most saved as JPEG, then cut as the reader cuts (brought up
    to ``size``): (n, S, S, 3) uint8. An enrolment picture shows the index large and
    sharp; the frames the deck helps with show it small and soft."""
    sides = shipped_settings().camera_index_sides if sides is None else sides
    out = []
    for _ in range(n):
        f = float(rng.uniform(0.9, 1.12))
        dx, dy = rng.uniform(-0.08, 0.08, 2)
        cut = index_crop(source, moved_box(box, f, dx, dy), 3 * size, pad)
        small_side = max(int(round(float(rng.uniform(*sides)) * pad)), 8)
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
                size: tuple[int, int] = TABLE_FRAME,
                share: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The card of ``source`` (outline ``quad``, 4x2) laid on a plain table in a camera
    frame: as tall as a card at the table (``share`` of the frame: the settings'
    ``table_card_share``, the shipped model's where not given), turned any way, a little
    askew, softened, lit, noised and saved as JPEG. Returns the frame (BGR) and the card's
    outline in it."""
    share = shipped_settings().table_card_share if share is None else share
    w, h = size
    q = np.asarray(quad, np.float32).reshape(4, 2)
    long_side = max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[1]),
                    np.linalg.norm(q[2] - q[3]), np.linalg.norm(q[3] - q[0]))
    scale = float(rng.uniform(*share)) * h / max(float(long_side), 1.0)
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
                rng: np.random.Generator, n: int | None = None,
                code: str | None = None) -> np.ndarray:
    """Patches of a card's indices as the reader cuts them from table frames: the card
    laid in ``n`` frames (:func:`table_frame`; the reader's settings' ``table_frames``
    where not given), its indices boxed by the reader's own
    detector in its corners (:func:`card_boxes`), each box cut as the first read cuts it
    and as the second look does (its closer box, the settings' ``look_cuts``), each patch at
    the four quarter turns: (K, S, S, 3) uint8, K = 0 when no index was found. An
    enrolment picture shows the index large and sharp; the frames the deck helps with
    show it small and soft, boxed as loosely as the detector boxes it there."""
    assert reader.detector is not None
    size = int(reader.classifier.meta["crop"])
    pad = float(reader.classifier.meta["pad"])
    source = source if source.ndim == 3 else cv2.cvtColor(source, cv2.COLOR_GRAY2BGR)
    tuned = reader.settings
    cuts = []
    for _ in range(tuned.table_frames if n is None else n):
        frame, dst = table_frame(source, quad, rng, share=tuned.table_card_share)
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        for box in card_boxes(reader, frame, dst, code=code):
            cuts.append(index_crop(frame, box, size, pad)[None])
            cuts.append(look_crops(frame, reader.detector.refine(gray, box) or box, size, pad,
                                   tuned.look_cuts))
    if not cuts:
        return np.zeros((0, size, size, 3), np.uint8)
    stack = np.concatenate(cuts)
    return np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(4)])


class Enroller:
    """Gathers index looks card by card, then makes the :class:`Deck`."""

    def __init__(self, reader: CardReader, head: str = DEFAULT_HEAD, seed: int = 0,
                 table_frames: int | None = None) -> None:
        """``table_frames``: per picture (the reader's settings' where not given)."""
        if reader.detector is None:
            raise DeckError("enrolment needs the reader with the index detector (design B)")
        if head not in HEAD_NAMES:
            raise DeckError("unknown comparison method %(head)s (one of %(heads)s)",
                            head=repr(head), heads=", ".join(HEAD_NAMES))
        if table_frames is None:
            table_frames = reader.settings.table_frames
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
        size = int(self.classifier.meta["crop"])
        pad = float(self.classifier.meta["pad"])
        source = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        # A picture taken under a warm or red lamp: its paper made white again, as the
        # reader makes a frame's (the deck reads frames with white paper).
        source = white_paper(source)
        tuned = self.reader.settings
        for box in boxes:
            self.patches.setdefault(code, []).append(
                index_looks(source, box, self.rng, size, pad, tuned.enroll_looks,
                            tuned.camera_index_sides))
        if quad is not None and self.table_frames:
            looks = table_looks(self.reader, source, quad, self.rng, self.table_frames, code)
            if len(looks):
                self.table_patches.setdefault(code, []).append(looks)

    def deck(self) -> Deck:
        if not self.patches:
            raise DeckError("no card learnt: nothing to write")
        classes = self.classifier.classes
        labels: list[np.ndarray] = []
        tuned = self.reader.settings
        accept, margin, none_below, general = heads(tuned)[self.head]
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
            linear = fit_linear(np.concatenate(fit_x), np.concatenate(fit_y),
                                tuned.linear_steps, tuned.linear_step, tuned.linear_decay)
        return Deck(self.head, classes, all_labels, vectors,
                    model_sha256(self.classifier.model_path), accept, margin,
                    {"model": self.classifier.model_path.name,
                     "enroll_seconds": round(time.monotonic() - self.started, 2),
                     "made": time.strftime("%Y-%m-%d")}, center, none_below, general,
                    court_rules(tuned)[self.head], linear,
                    linear_rules(tuned) if linear is not None else None)


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
                  table_frames: int | None = None,
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
