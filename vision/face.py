"""Reading a picture that is one card's face filling the picture (a warped card, a
card cut out of a photo, an enrolment picture): :func:`read_face`.

The picture is read as a frame is (design B), its card chosen among the reads by where
the card filling the picture has its indices (:func:`face_spots`); with no sure read, a
pair of doubtful reads at opposite corners may name it (:func:`face_pair`), the picture
is read again stretched to the other shape (a card lying across a photo squeezed into
an upright picture), and design A's corner model reads its corners.
"""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np

from vision.classify import IndexDetector
from vision.detection import Detection, box_quad, scaled, span
from vision.paper import is_grey, paper_gains
from vision.settings import FACE_CHOICES as FACE_CHOICES  # their place before: re-exported
from vision.settings import SHAPE_AGREEMENTS, ReaderSettings, shipped_settings


class Reader(Protocol):
    """What reading a face needs of the reader (:class:`vision.reader.CardReader`)."""

    design: str
    settings: ReaderSettings
    detector: IndexDetector | None

    def read(self, frame: np.ndarray, doubts: list[Detection] | None = None,
             sharpen: bool = True) -> list[Detection]: ...

    def read_quads(self, frame: np.ndarray, quads: list[np.ndarray]) -> list[Detection]: ...

    def corner_reader(self) -> Reader | None: ...


def read_face(reader: Reader, image: np.ndarray) -> Detection | None:
    """Read an image that is a single card face filling the picture (a warped card).

    A picture much larger than the cards the reader was trained on (over
    ``face_large`` times ``face_side`` pixels on its longer side) is read first
    brought down to ``face_side`` (the detector boxes a big index poorly), then,
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
    if reader.detector is None:
        return _read_face(reader, image)
    # A card filling the picture has large indices: a still picture's finer level
    # (``still``) is for a scene's small cards, and is not used here.
    finest, reader.detector.finest = reader.detector.finest, reader.settings.camera_finest
    try:
        found = _read_face(reader, image)
    finally:
        reader.detector.finest = finest
    return found

def _read_face(reader: Reader, image: np.ndarray) -> Detection | None:
    h, w = image.shape[:2]
    side = reader.settings.face_side
    k = side / max(h, w)
    doubt = None
    if max(h, w) > reader.settings.face_large * side:
        size = (max(int(round(w * k)), 1), max(int(round(h * k)), 1))
        small = _read_face_shapes(reader, cv2.resize(image, size, interpolation=cv2.INTER_AREA))
        if small is not None and small.code is not None:
            return scaled(small, w / size[0], h / size[1])
        doubt = None if small is None else scaled(small, w / size[0], h / size[1])
    found = _read_face_shapes(reader, image)
    if found is not None and found.code is not None:
        return found
    return doubt if doubt is not None else found

def _read_face_shapes(reader: Reader, image: np.ndarray) -> Detection | None:
    """The picture read as it is, then (with no sure read) at the other shape."""
    h, w = image.shape[:2]
    first = _read_face_once(reader, image)
    if first is not None and first.code is not None or min(h, w) < 2:
        return first
    other = _read_face_once(reader, cv2.resize(image, (h, w), interpolation=cv2.INTER_LINEAR))
    if (other is not None and other.code is not None
            and shape_agrees(other.code, first, reader.settings.shape_agree)):
        return scaled(other, w / h, h / w)  # positions back in the picture's pixels
    return first

def _read_face_once(reader: Reader, image: np.ndarray) -> Detection | None:
    settings = reader.settings
    reads: list[Detection] = []
    if reader.design == "B":
        negative: list[Detection] = []  # a black deck's doubts on its negative
        reads = reader.read(image, negative, sharpen=False)  # best first
        if any(d.code is not None for d in reads):
            card = _face_card(reads, image.shape[1], image.shape[0], settings)
            if card.code is not None:
                return card
            doubt: Detection | None = card  # a doubtful read placed better: unknown
        else:
            doubt = reads[0] if reads else None
        # Not on a grey picture, nor with a lamp's reads (paper not white, or a black
        # deck's gold ink: its negative's reads only): there a card's two indices slip
        # to the same wrong suit together (``face_pair_accept``).
        if not is_grey(image, settings):
            doubts = negative if paper_gains(image, settings) is not None else reads + negative
            both = face_pair(doubts, image.shape[1], image.shape[0], settings)
            if both is not None:
                return both
    # Design A's corner model knows nothing of an enrolled deck, but a picture B leaves
    # unsure is still read by it as without one: a deck never reads a picture worse.
    corner = reader.corner_reader()
    if corner is None:
        return reads[0] if reads else None
    h, w = image.shape[:2]
    quad = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    if w > h:  # lying on its side: start on a short edge
        quad = np.roll(quad, -1, axis=0)
    found = corner.read_quads(image, [quad])
    a = found[0] if found else None
    if corner is reader:
        return a
    if a is not None and a.code is not None and (
            not reads or a.code in {d.guess for d in reads}):
        return a
    return doubt if doubt is not None else a

def _face_card(reads: list[Detection], w: int, h: int, settings: ReaderSettings
           ) -> Detection:
    """The picture's card among its reads (best first, one at least sure), by
    ``face_choice``. "placed": the sure read nearest where the picture's card has its
    indices, unless a doubtful read of another card lies ``face_doubt_nearer`` nearer
    (the card itself read doubtfully, a neighbour surely): then that doubtful read."""
    sure = [d for d in reads if d.code is not None]
    if settings.face_choice == "placed":
        spots, height = face_spots(w, h, settings)
        off = [face_misplacement(d, spots, height) for d in reads]
        card, card_off = min(((d, o) for d, o in zip(reads, off, strict=True)
                              if d.code is not None), key=lambda x: x[1])
        doubts = [(d, o) for d, o in zip(reads, off, strict=True)
                  if d.code is None and d.guess != card.code
                  and o < card_off - settings.face_doubt_nearer]
        return min(doubts, key=lambda x: x[1])[0] if doubts else card
    if settings.face_choice == "pairs_first":
        return max(sure, key=lambda d: d.indices)
    return sure[0]


def shape_agrees(code: str, first: Detection | None, agree: str | None = None) -> bool:
    """Whether ``read_face`` takes ``code``, read surely on a picture stretched to the
    other shape, beside ``first``, the picture's doubtful read as it is (None: nothing
    boxed, and the other shape's read is taken): ``agree`` (``SHAPE_AGREEMENTS``) "any",
    whatever ``first`` guessed; "rank", its guess of the same rank; "card", the same card
    (None: the shipped model's ``shape_agree``)."""
    if agree is None:
        agree = shipped_settings().shape_agree
    if agree not in SHAPE_AGREEMENTS:
        raise ValueError(f"shape_agree: {agree!r} is none of {SHAPE_AGREEMENTS}")
    if first is None or first.guess is None or agree == "any":
        return True
    if agree == "rank":
        return first.guess[0] == code[0]
    return first.guess == code


def face_spots(w: int, h: int, settings: ReaderSettings | None = None
               ) -> tuple[np.ndarray, float]:
    """Where a card filling a ``w`` x ``h`` picture has its corner indices, and its height.

    The picture is taken as the bounding box of one card (``face_aspect``), ``face_margin``
    more each side, its long side along the picture's: a card tilted by t fills a box of
    sides ``(a cos t + sin t, a sin t + cos t)`` times its height, so the picture's shape
    gives the tilt, but not which way: the centres of the four corners' indices
    (``face_inset`` from each corner) are given for both ways (8 rows of x, y), and the
    picture's centre last. A picture narrower than the card (cut by the photo's edge) is
    taken as an upright card. ``settings``: the reader's (None: the shipped model's).
    """
    settings = settings or shipped_settings()
    margin, inset = settings.face_margin, settings.face_inset
    inner_w, inner_h = w / (1 + 2 * margin), h / (1 + 2 * margin)
    short, long = sorted((inner_w, inner_h))
    a = settings.face_aspect
    ratio = short / max(long, 1e-6)
    tilt = float(np.arctan2(max(ratio - a, 0.0), 1.0 - ratio * a))
    height = long / (a * np.sin(tilt) + np.cos(tilt))
    half = np.array([a * height * (0.5 - inset[0]), height * (0.5 - inset[1])])
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


def face_pair(reads: list[Detection], w: int, h: int,
              settings: ReaderSettings | None = None) -> Detection | None:
    """The card read doubtfully at both its indices where the card filling a ``w`` x ``h``
    picture has them (``face_spots``: opposite corners, one tilt), each within
    ``face_pair_near`` of the card's height of one, their joint chance
    ``1 - (1 - p1)(1 - p2)`` at least ``face_pair_accept``; None if no two reads are so."""
    settings = settings or shipped_settings()
    spots, height = face_spots(w, h, settings)
    corners = spots[:-1]
    placed: list[tuple[Detection, int]] = []
    for d in reads:
        if d.code is not None or d.guess is None or d.indices != 1:
            continue
        far = np.hypot(*(corners - np.asarray(d.center)).T) / max(height, 1e-6)
        k = int(far.argmin())
        if far[k] <= settings.face_pair_near:
            placed.append((d, k))
    best: Detection | None = None
    for i, (a, ka) in enumerate(placed):
        for b, kb in placed[i + 1:]:
            # Opposite corners of one tilt's four: 0-2, 1-3 (and 4-6, 5-7).
            if a.guess != b.guess or ka // 4 != kb // 4 or (ka - kb) % 4 != 2:
                continue
            joint = 1.0 - (1.0 - a.confidence) * (1.0 - b.confidence)
            if joint < settings.face_pair_accept or best is not None and joint <= best.confidence:
                continue
            best = Detection(a.guess, joint, box_quad(span(a.quad + b.quad)),
                             ((a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2),
                             indices=2)
    return best


def face_misplacement(found: Detection, spots: np.ndarray, height: float) -> float:
    """How far ``found`` lies from where the picture's card would be read (``face_spots``),
    over the card's height: a card read at both its indices, from the picture's centre; at
    one, from the nearest corner index."""
    at = spots[-1:] if found.indices >= 2 else spots[:-1]
    return float(np.hypot(*(at - np.asarray(found.center)).T).min() / max(height, 1e-6))
