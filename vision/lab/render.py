"""Synthetic belote cards and card-table frames, for training the card reader and for
the virtual table.

Everything here needs only numpy and OpenCV (the virtual table runs on the Pi): the
index and suit glyphs come from small pre-rendered atlases in ``vision/lab/assets/``
(rebuilt by ``vision/lab/make_assets.py``) and from OpenCV's Hershey fonts; pips, court
art, backs, table cloths, hands and clutter are drawn procedurally.

Every random choice comes from the numpy ``Generator`` passed in, so the same seed
gives the same pixels.

>>> import numpy as np
>>> face = render_card("TH", "fr-grimaud", np.random.default_rng(1))
>>> face.shape, face.dtype
((350, 250, 3), dtype('uint8'))
>>> frame, cards = render_scene(np.random.default_rng(2), n_cards=4, negatives=False)
>>> frame.shape, len(cards), sorted(cards[0])[:4]
((720, 1280, 3), 4, ['belote', 'code', 'id', 'index_boxes'])
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer.cards import CARD_CODES, SUITS, Card, InvalidCardError

ASSETS = Path(__file__).with_name("assets")

CARD_W, CARD_H = 250, 350
CARD_SIZE = (CARD_W, CARD_H)
#: The 32 cards in the project's notation (scorer.cards), in its order.
BELOTE_CODES = CARD_CODES
#: Codes of things that are not belote cards: the reader must answer "no belote card".
LOW_CODES = tuple(r + s for s in SUITS for r in "23456")  # the 2s to 6s
NEGATIVE_CODES = ("BACK", "JOKER") + LOW_CODES
#: A 52-card deck: the belote cards and the 2s to 6s.
FULL_DECK_CODES = tuple(BELOTE_CODES) + LOW_CODES
CLUTTER_KINDS = ("COASTER", "SCOREPAD", "PHONE", "COIN")
_CLUTTER_SIZE = {"COIN": (0.24, 0.32), "COASTER": (1.0, 1.2), "SCOREPAD": (1.4, 1.8),
                 "PHONE": (1.6, 1.8)}

_FRENCH_COURT = {"J": "V", "Q": "D", "K": "R"}
_RED = {"H", "D"}


class RenderError(ValueError):
    """A card code or style the renderer does not know."""


@dataclass(frozen=True)
class DeckStyle:
    """How one deck looks: its indices (French R/D/V or English K/Q/J), font, colours."""

    name: str
    indices: str  # "french" or "english"
    font: str  # an atlas in vision/lab/assets, or "hershey-<name>" for OpenCV's fonts
    index_height: int = 38
    paper: tuple[int, int, int] = (238, 243, 246)
    red: tuple[int, int, int] = (40, 30, 200)
    black: tuple[int, int, int] = (25, 20, 20)
    back: str = "lattice"
    back_color: tuple[int, int, int] = (150, 60, 30)
    frame_color: tuple[int, int, int] = (60, 40, 20)
    pip_height: int = 50
    suit_font: str | None = None  # atlas for suit signs (hershey styles borrow one)
    index_x: int = 25  # centre of the corner index, face pixels from the left edge
    index_top: int = 10  # top of the rank character, face pixels from the top edge
    # Width squeeze on the table: 1 for 63x88 mm bridge/poker-size cards, about 0.9 for
    # the narrow 56x87 mm piquet decks many French belote players use.
    narrow: float = 1.0
    # French decks as printed: the ace's index reads "1" (share of aces), courts may stand
    # with no frame around them.
    ace_one: float = 0.0
    frameless: float = 0.0
    # A real deck's art (a design cached by vision.lab.decks) instead of drawn faces, and
    # its measured corner-index box (x1, y1, x2, y2 in face pixels).
    art: str | None = None
    box: tuple[int, int, int, int] | None = None
    # A deck's art printed as a French deck: its corner indices (this box, face pixels)
    # blanked and printed again in this style's font, R/D/V, the ace "1" or "A".
    art_box: tuple[int, int, int, int] | None = None
    # Training only: the share of faces whose art is taken from another design of
    # ``art_pool`` (each with its index box), a court's from any court, an ace's from
    # any ace, its colours turned for courts (see :func:`_mixed_art`), so that the
    # index is learnt apart from the picture beside it.
    art_mix: float = 0.0
    art_pool: tuple[tuple[str, tuple[int, int, int, int]], ...] = ()
    art_fonts: float = 0.0

    def rank_label(self, rank: str) -> str:
        """The index text printed for ``rank`` ("10" for T, R/D/V on French decks)."""
        if rank == "T":
            return "10"
        if self.indices == "french":
            return _FRENCH_COURT.get(rank, rank)
        return rank

    def index_box(self) -> tuple[int, int, int, int]:
        """The top-left corner index (rank over suit) on a face: x1, y1, x2, y2."""
        if self.box is not None:
            return self.box
        rh = self.index_height
        bottom = self.index_top + rh + 6 + round(rh * 0.68) + 4
        return (self.index_x - 22, self.index_top - 4, self.index_x + 22, bottom)


STYLES: list[DeckStyle] = [
    DeckStyle("fr-grimaud", "french", "dejavu-serif-bold", 40, back="lattice",
              back_color=(140, 50, 30),
              index_x=25, index_top=10, narrow=0.9),
    DeckStyle("fr-ducale", "french", "liberation-serif-bold", 36, paper=(228, 240, 246),
              back="rings", back_color=(40, 40, 150), red=(50, 40, 190),
              index_x=23, index_top=8),
    DeckStyle("fr-club", "french", "liberation-sans-bold", 38, suit_font="drawn",
              back="stripes",
              back_color=(50, 110, 40), pip_height=46, red=(60, 75, 225),
              index_x=27, index_top=12),
    DeckStyle("fr-narrow", "french", "liberation-sans-narrow-bold", 42, back="dots",
              back_color=(120, 40, 110), red=(30, 20, 215),
              index_x=24, index_top=9, narrow=0.9),
    DeckStyle("fr-hershey", "french", "hershey-triplex", 36, suit_font="dejavu-sans-bold",
              back="plain", back_color=(30, 30, 160), pip_height=48,
              index_x=26, index_top=12),
    DeckStyle("en-bicycle", "english", "dejavu-serif-bold", 38, back="lattice",
              back_color=(40, 30, 170), red=(55, 70, 225),
              index_x=24, index_top=10),
    DeckStyle("en-sans", "english", "dejavu-sans-bold", 36, back="dots",
              back_color=(150, 70, 20), paper=(242, 242, 240),
              index_x=27, index_top=13),
    DeckStyle("en-condensed", "english", "dejavu-sans-condensed-bold", 42, back="rings",
              back_color=(60, 60, 60), pip_height=54,
              index_x=23, index_top=8),
    DeckStyle("en-mono", "english", "liberation-mono-bold", 34, suit_font="drawn",
              back="stripes",
              back_color=(30, 100, 150), red=(45, 45, 185),
              index_x=26, index_top=11),
    DeckStyle("en-hershey", "english", "hershey-duplex", 38, suit_font="liberation-serif-bold",
              back="plain", back_color=(120, 60, 20),
              index_x=25, index_top=12),
]
_STYLE_BY_NAME = {s.name: s for s in STYLES}
#: French decks as clubs buy them: serif R/D/V close to the edge, aces printed "1" as
#: often as "A", court names, frameless figures. Drawn only when :func:`use_extra_styles`
#: has added them (the first models were trained without them).
PRINTED_FRENCH: list[DeckStyle] = [
    DeckStyle("fr-printed-serif", "french", "dejavu-serif-bold", 34, index_x=22, index_top=5,
              ace_one=0.6, frameless=0.5, narrow=0.9, red=(45, 35, 205)),
    DeckStyle("fr-printed-liberation", "french", "liberation-serif-bold", 32, index_x=22,
              index_top=4, ace_one=0.6, frameless=0.6, paper=(232, 240, 247)),
    DeckStyle("fr-printed-triplex", "french", "hershey-triplex", 30, suit_font="dejavu-serif-bold",
              index_x=22, index_top=6, ace_one=0.6, frameless=0.4, narrow=0.9),
]
#: Styles drawn at random beside STYLES (see :func:`use_extra_styles`); empty by default so
#: that seeded scenes stay what they were.
EXTRA_STYLES: list[DeckStyle] = []
#: The share of the drawn styles' faces printed in another index face (training only,
#: see :func:`use_extra_styles`); 0 by default so that seeded scenes stay what they were.
DRAWN_FONTS: list[float] = [0.0]


def french_styles() -> list[DeckStyle]:
    """Deck styles with French indices (R, D, V)."""
    return [s for s in STYLES if s.indices == "french"]


def english_styles() -> list[DeckStyle]:
    """Deck styles with English indices (K, Q, J)."""
    return [s for s in STYLES if s.indices == "english"]


def get_style(style: DeckStyle | str | None, rng: np.random.Generator | None = None) -> DeckStyle:
    """A style by name (or a random one when ``style`` is None and ``rng`` is given)."""
    if isinstance(style, DeckStyle):
        return style
    if style is None:
        if rng is None:
            return STYLES[0]
        if EXTRA_STYLES and rng.random() < 0.6:
            return EXTRA_STYLES[int(rng.integers(len(EXTRA_STYLES)))]
        return STYLES[int(rng.integers(len(STYLES)))]
    try:
        return _STYLE_BY_NAME[style]
    except KeyError:
        raise RenderError(f"style {style!r}: unknown, expected one of "
                          f"{', '.join(_STYLE_BY_NAME)}") from None


def register_style(style: DeckStyle) -> None:
    """Make ``style`` known by its name to :func:`get_style` (and so to the annotations of
    the scenes drawn with it), e.g. a :func:`with_style` variant for a benchmark."""
    _STYLE_BY_NAME[style.name] = style


def art_styles(root: Path | None = None, held_out: bool | None = False,
               french_art: bool = False) -> list[DeckStyle]:
    """Styles of the real deck designs cached by :mod:`vision.lab.decks` (none when the
    cache is missing): each design at bridge size and at the narrow piquet size.
    ``held_out`` True gives only the designs kept out of training, False only the others,
    None all; each style is also known by name to :func:`get_style`. ``french_art`` adds,
    for each design given, ``art-<design>-fr``: its art with French indices printed over
    its own (see :func:`_restamp`)."""
    from vision.lab import decks

    manifest = decks.load_manifest(root or decks.DATA)
    if manifest is None:
        return []
    out = []
    for design, meta in manifest["designs"].items():
        if held_out is not None and (design in manifest["held_out"]) != held_out:
            continue
        x1, y1, x2, y2 = meta["box"]
        box = (int(x1), int(y1), int(x2), int(y2))
        for suffix, narrow in (("", 1.0), ("-piquet", 0.9)):
            st = DeckStyle(f"art-{design}{suffix}", "french" if meta["indices"] == "french"
                           else "english", "dejavu-sans-bold", art=design,
                           box=box, narrow=narrow)
            _STYLE_BY_NAME[st.name] = st
            out.append(st)
        if french_art:
            # The same art with the indices of a French deck as printed (serif R/D/V close
            # to the edge, aces "1"): real courts and aces beside French indices, as on the
            # Paris-pattern decks clubs play with.
            k = len(out) % len(PRINTED_FRENCH)
            st = with_style(PRINTED_FRENCH[k], name=f"art-{design}-fr", art=design,
                            art_box=box, frameless=0.0)
            _STYLE_BY_NAME[st.name] = st
            out.append(st)
    return out


def use_extra_styles(art: bool = True, printed: bool = True,
                     french_art: bool = True, art_mix: float = 0.0,
                     art_fonts: float = 0.0, drawn_fonts: float = 0.0) -> list[DeckStyle]:
    """Draw the printed-French styles and the training deck designs beside STYLES from now
    on (training data, the figures on them), and those designs with French indices printed
    over their own (``french_art``, see :func:`art_styles`); returns what was added.
    ``art_mix`` (training only) is the share of those French-printed faces drawn on the art
    of another training design (:func:`_mixed_art`), ``art_fonts`` the share of those
    whose index is printed in any atlas's face (run 8 was trained without).
    ``drawn_fonts`` (training only) is the share of the drawn styles' faces (STYLES and
    the printed-French styles) whose index is printed in another atlas face than the
    style's own, its letters the style's (:func:`_drawn_font`)."""
    for name, share in (("art_mix", art_mix), ("art_fonts", art_fonts),
                        ("drawn_fonts", drawn_fonts)):
        if not 0.0 <= share <= 1.0:
            raise RenderError(f"{name}: expected a share from 0 to 1, got {share}")
    EXTRA_STYLES.clear()
    DRAWN_FONTS[0] = drawn_fonts
    if printed:
        for st in PRINTED_FRENCH:
            _STYLE_BY_NAME[st.name] = st
        EXTRA_STYLES.extend(PRINTED_FRENCH)
    if art or french_art:
        added = [st for st in art_styles(held_out=False, french_art=french_art)
                 if art or st.art_box is not None]
        if art_mix:
            pool = tuple((st.art, st.art_box) for st in added
                         if st.art is not None and st.art_box is not None)
            added = [replace(st, art_mix=art_mix, art_pool=pool, art_fonts=art_fonts)
                     if st.art_box is not None else st for st in added]
        EXTRA_STYLES.extend(added)
    return list(EXTRA_STYLES)


for _st in PRINTED_FRENCH:
    _STYLE_BY_NAME[_st.name] = _st


@lru_cache(maxsize=2048)
def _art_face(design: str, code: str) -> np.ndarray | None:
    from vision.lab import decks

    img = cv2.imread(str(decks.DATA / design / f"{code}.png"), cv2.IMREAD_COLOR)
    if img is None or img.shape[:2] != (CARD_H, CARD_W):
        return None
    return img


def _glossy(img: np.ndarray, rng: np.random.Generator) -> None:
    """A glare spot on a glossy card: a soft white ellipse somewhere on the face."""
    spot = np.zeros(img.shape[:2], np.float32)
    cx, cy = int(rng.integers(0, CARD_W)), int(rng.integers(0, CARD_H))
    ax, ay = int(rng.integers(12, 60)), int(rng.integers(8, 40))
    cv2.ellipse(spot, (cx, cy), (ax, ay), float(rng.uniform(0, 180)), 0, 360, (1.0,), -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(3, 12))) * float(rng.uniform(0.5, 0.95))
    img[:] = (img * (1 - spot[..., None]) + 255 * spot[..., None]).astype(np.uint8)


def is_belote(code: str) -> bool:
    """True for the 32 cards of a belote deck, False for backs, jokers, 2..6 and clutter."""
    return code in BELOTE_CODES


def _check_code(code: str) -> None:
    if code not in BELOTE_CODES and code not in NEGATIVE_CODES:
        raise RenderError(f"card code {code!r}: unknown, expected a rank of 7 8 9 T J Q K A "
                          "(or 2..6) then a suit of S H D C, or BACK or JOKER")


# --------------------------------------------------------------------------- glyphs

@lru_cache(maxsize=1)
def _atlas_meta() -> dict[str, Any]:
    path = ASSETS / "atlases.json"
    if not path.exists():
        raise RenderError(f"{path}: missing glyph atlases (run python -m vision.lab.make_assets)")
    return json.loads(path.read_text())


def atlas_fonts() -> list[str]:
    """The faces of the glyph atlases (``vision/lab/assets``), sorted."""
    return sorted(_atlas_meta()["fonts"])


@cache
def _atlas(font: str) -> np.ndarray:
    path = ASSETS / f"{font}.png"
    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise RenderError(f"{path}: cannot read glyph atlas for font {font!r}")
    return img


def _tight(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 8)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


@cache
def glyph(font: str, name: str) -> np.ndarray:
    """Tight greyscale mask (uint8, ink = 255) of one index character or a suit sign.

    ``name`` is a rank label ("10", "R", "K", "7"...) or "suit-S" / "suit-H" / ...
    ``font`` is an atlas name, "hershey-simplex/duplex/triplex/complex" (index
    characters only) or "drawn" (suit signs only, built from circles and triangles).
    """
    if font.startswith("hershey-"):
        faces = {"simplex": cv2.FONT_HERSHEY_SIMPLEX, "duplex": cv2.FONT_HERSHEY_DUPLEX,
                 "triplex": cv2.FONT_HERSHEY_TRIPLEX, "complex": cv2.FONT_HERSHEY_COMPLEX}
        face = faces[font.split("-", 1)[1]]
        canvas = np.zeros((140, 220), np.uint8)
        # Hershey strokes are thin: a thickness of 6 at scale 3 gives a printed look.
        cv2.putText(canvas, name, (10, 110), face, 3.0, (255,), 7, cv2.LINE_AA)
        return _tight(canvas)
    if font == "drawn":
        return _drawn_suit(name)
    meta = _atlas_meta()
    if font not in meta["fonts"]:
        raise RenderError(f"font {font!r}: no atlas, expected one of {', '.join(meta['fonts'])}")
    try:
        i = meta["glyphs"].index(name)
    except ValueError:
        raise RenderError(f"glyph {name!r}: not in the atlases") from None
    cell = meta["cell"]
    return _tight(_atlas(font)[:, i * cell:(i + 1) * cell])


def _drawn_suit(name: str) -> np.ndarray:
    """Suit signs built from circles and triangles, as plainer decks print them."""
    m = np.zeros((200, 200), np.uint8)
    aa = cv2.LINE_AA

    def tri(pts: list[tuple[int, int]]) -> None:
        cv2.fillConvexPoly(m, np.array(pts, np.int32), (255,), aa)

    if name == "suit-H":
        cv2.circle(m, (70, 72), 46, (255,), -1, aa)
        cv2.circle(m, (130, 72), 46, (255,), -1, aa)
        tri([(27, 90), (173, 90), (100, 178)])
    elif name == "suit-D":
        tri([(100, 8), (162, 100), (100, 192)])
        tri([(100, 8), (38, 100), (100, 192)])
    elif name == "suit-S":
        cv2.circle(m, (70, 118), 42, (255,), -1, aa)
        cv2.circle(m, (130, 118), 42, (255,), -1, aa)
        tri([(30, 104), (170, 104), (100, 14)])
        tri([(100, 120), (76, 190), (124, 190)])
    elif name == "suit-C":
        for c in ((100, 56), (58, 116), (142, 116)):
            cv2.circle(m, c, 36, (255,), -1, aa)
        cv2.circle(m, (100, 104), 22, (255,), -1, aa)
        tri([(100, 100), (78, 190), (122, 190)])
    else:
        raise RenderError(f"glyph {name!r}: the drawn font has suit signs only")
    return _tight(m)


def _stamp(img: np.ndarray, mask: np.ndarray, x: float, y: float, h: float,
           color: tuple[int, int, int], *, rot180: bool = False,
           max_w: float | None = None, center: bool = True) -> tuple[int, int, int, int]:
    """Paint ``mask`` scaled to height ``h`` at (x, y) (its centre, or top-left corner);
    return the painted box (x1, y1, x2, y2)."""
    mh, mw = mask.shape
    w = mw * h / mh
    if max_w is not None and w > max_w:
        w = max_w
    w, hh = max(1, round(w)), max(1, round(h))
    m = cv2.resize(mask, (w, hh), interpolation=cv2.INTER_AREA)
    if rot180:
        m = m[::-1, ::-1]
    x1 = round(x - w / 2) if center else round(x)
    y1 = round(y - hh / 2) if center else round(y)
    x2, y2 = x1 + w, y1 + hh
    cx1, cy1 = max(x1, 0), max(y1, 0)
    cx2, cy2 = min(x2, img.shape[1]), min(y2, img.shape[0])
    if cx2 > cx1 and cy2 > cy1:
        a = m[cy1 - y1:cy2 - y1, cx1 - x1:cx2 - x1].astype(np.float32)[..., None] / 255.0
        roi = img[cy1:cy2, cx1:cx2].astype(np.float32)
        img[cy1:cy2, cx1:cx2] = (roi * (1 - a) + np.array(color, np.float32) * a).astype(np.uint8)
    return x1, y1, x2, y2


# --------------------------------------------------------------------------- card faces

# Pip positions as (column, row) in the pip area: columns 0 / 0.5 / 1, rows 0..1.
_PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0), (0.5, 1)],
    3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3),
        (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)],
}
_PIP_AREA = (72, 48, 178, 302)  # x1, y1, x2, y2 of pip centres
_COURT_FRAME = (48, 40, 202, 310)

#: A box that holds the top-left corner index of every style (x1, y1, x2, y2); the
#: other index is the same box turned 180 degrees about the card's centre. Each
#: style's own box is ``style.index_box()``.
INDEX_BOX = (min(s.index_box()[0] for s in STYLES), min(s.index_box()[1] for s in STYLES),
             max(s.index_box()[2] for s in STYLES), max(s.index_box()[3] for s in STYLES))

#: A card is ``readable`` in a frame (a person could name it) when one of its corner
#: indices shows at least this share of its rank part and of its suit part: a card
#: whose only index has its suit sign under a hand cannot be told from the same rank
#: in another suit, however good the reader.
READABLE_SHARE = 0.8


def _suit_font(style: DeckStyle) -> str:
    return style.suit_font or style.font


def _suit_color(style: DeckStyle, suit: str) -> tuple[int, int, int]:
    return style.red if suit in _RED else style.black


def _corner_index(img: np.ndarray, style: DeckStyle, label: str, suit: str) -> None:
    color = _suit_color(style, suit)
    rh = style.index_height
    sh = round(rh * 0.68)
    cx = style.index_x
    top = style.index_top
    for rot in (False, True):
        target = img if not rot else img[::-1, ::-1]
        # Drawing on the 180-degree view paints the opposite corner turned round.
        view = np.ascontiguousarray(target)
        mask = glyph(style.font, label)
        w = min(mask.shape[1] * rh / mask.shape[0], 40)
        _stamp(view, mask, cx - w / 2, top, rh, color, max_w=40, center=False)
        smask = glyph(_suit_font(style), "suit-" + suit)
        sw = smask.shape[1] * sh / smask.shape[0]
        _stamp(view, smask, cx - sw / 2, top + rh + 6, sh, color, center=False)
        if rot:
            img[:] = view[::-1, ::-1]
        else:
            img[:] = view


def _pips(img: np.ndarray, style: DeckStyle, n: int, suit: str) -> None:
    color = _suit_color(style, suit)
    mask = glyph(_suit_font(style), "suit-" + suit)
    x1, y1, x2, y2 = _PIP_AREA
    for col, row in _PIPS[n]:
        x = x1 + col * (x2 - x1)
        y = y1 + row * (y2 - y1)
        _stamp(img, mask, x, y, style.pip_height, color, rot180=row > 0.5)


def _ace(img: np.ndarray, style: DeckStyle, suit: str, rng: np.random.Generator) -> None:
    color = _suit_color(style, suit)
    mask = glyph(_suit_font(style), "suit-" + suit)
    h = float(rng.uniform(95, 130))
    if rng.random() < 0.4:
        # Some decks ring the ace's pip with a thin ornament.
        cv2.circle(img, (CARD_W // 2, CARD_H // 2), int(h * 0.85), color, 2, cv2.LINE_AA)
    _stamp(img, mask, CARD_W / 2, CARD_H / 2, h, color)


# Printed court cards use few inks: red, blue, yellow, black (and green on some decks).
_INKS = [(40, 40, 200), (170, 80, 30), (40, 180, 230), (30, 30, 30), (50, 130, 40),
         (60, 90, 230), (130, 50, 110)]
_SKIN = [(170, 200, 235), (140, 180, 225), (110, 150, 200), (80, 110, 160), (200, 215, 240)]
_HAIR = [(40, 170, 220), (30, 60, 110), (20, 20, 20), (200, 200, 200), (40, 90, 160)]
_GOLD = (40, 180, 230)
#: Names printed on French courts (portrait officiel), by rank and suit.
_FRENCH_NAMES = {
    "K": {"H": "CHARLES", "D": "CESAR", "S": "DAVID", "C": "ALEXANDRE"},
    "Q": {"H": "JUDITH", "D": "RACHEL", "S": "PALLAS", "C": "ARGINE"},
    "J": {"H": "LA HIRE", "D": "HECTOR", "S": "OGIER", "C": "LANCELOT"},
}


def _poly(img: np.ndarray, pts: list[list[float]], color: tuple[int, int, int],
          outline: tuple[int, int, int] | None = (25, 25, 25)) -> None:
    arr = np.round(np.array(pts, np.float32)).astype(np.int32)
    cv2.fillPoly(img, [arr], color, cv2.LINE_AA)
    if outline is not None:
        cv2.polylines(img, [arr], True, outline, 1, cv2.LINE_AA)


def _court(img: np.ndarray, style: DeckStyle, rank: str, suit: str,
           rng: np.random.Generator) -> None:
    """A double-headed court figure in a frame: the top half is drawn, then turned
    180 degrees into the bottom half, as on printed decks."""
    fx1, fy1, fx2, fy2 = _COURT_FRAME
    mid = (fy1 + fy2) // 2
    half = img[fy1:mid, fx1:fx2].copy()
    hh, hw = half.shape[:2]
    cx = hw // 2 + int(rng.integers(-8, 9))

    def pick(options: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        return options[int(rng.integers(len(options)))]

    robe, trim, sash = pick(_INKS), pick(_INKS), pick(_INKS)
    skin, hair = pick(_SKIN), pick(_HAIR)
    side = int(rng.choice([-1, 1]))  # which hand holds the attribute
    hr = int(rng.integers(17, 23))
    hy = int(rng.integers(34, 44))
    sy = hy + hr + 4  # shoulder line
    sw = int(rng.integers(52, 66))
    # Robe: shoulders widening to the fold line, a contrasting border and a sash.
    _poly(half, [[cx - sw, sy + 8], [cx - sw + 14, sy], [cx + sw - 14, sy], [cx + sw, sy + 8],
                 [cx + sw + 8, hh + 2], [cx - sw - 8, hh + 2]], robe)
    _poly(half, [[cx - sw - 2, sy + 12], [cx - sw + 8, sy + 12], [cx - sw, hh + 2],
                 [cx - sw - 9, hh + 2]], trim)
    _poly(half, [[cx + sw + 2, sy + 12], [cx + sw - 8, sy + 12], [cx + sw, hh + 2],
                 [cx + sw + 9, hh + 2]], trim)
    d = side * int(rng.integers(30, 50))
    _poly(half, [[cx - d - 10, sy + 4], [cx - d + 8, sy + 4], [cx + d + 10, hh + 2],
                 [cx + d - 8, hh + 2]], sash)
    pattern = int(rng.integers(3))
    for _k in range(int(rng.integers(4, 10))):
        px = cx + int(rng.integers(-sw + 10, sw - 10))
        py = int(rng.integers(sy + 14, hh - 4))
        if pattern == 0:
            cv2.circle(half, (px, py), int(rng.integers(3, 7)), trim, -1, cv2.LINE_AA)
        elif pattern == 1:
            cv2.line(half, (px - 6, py), (px + 6, py), (25, 25, 25), 1, cv2.LINE_AA)
        else:
            _poly(half, [[px, py - 6], [px + 5, py], [px, py + 6], [px - 5, py]], _GOLD)
    # Collar.
    _poly(half, [[cx - 24, sy - 2], [cx + 24, sy - 2], [cx + 14, sy + 14], [cx, sy + 6],
                 [cx - 14, sy + 14]], trim if trim != robe else _GOLD)
    # Head: hair behind, face, features.
    long_hair = rank == "Q" or rng.random() < 0.3
    if long_hair:
        _poly(half, [[cx - hr - 4, hy - 4], [cx + hr + 4, hy - 4], [cx + hr + 10, sy + 16],
                     [cx - hr - 10, sy + 16]], hair)
    cv2.ellipse(half, (cx, hy), (hr, hr + 3), 0, 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(half, (cx, hy), (hr, hr + 3), 0, 0, 360, (25, 25, 25), 1, cv2.LINE_AA)
    cv2.ellipse(half, (cx, hy - 4), (hr, hr - 2), 0, 180, 360, hair, -1, cv2.LINE_AA)
    for ex in (-7, 7):
        cv2.line(half, (cx + ex - 3, hy + 1), (cx + ex + 3, hy + 1), (25, 25, 25), 2,
                 cv2.LINE_AA)
    cv2.line(half, (cx + 1, hy + 3), (cx - 2, hy + 10), (60, 60, 120), 1, cv2.LINE_AA)
    cv2.line(half, (cx - 5, hy + 14), (cx + 5, hy + 14), (40, 40, 170), 2, cv2.LINE_AA)
    top = hy - hr - 1
    if rank == "K":
        _poly(half, [[cx - hr, top + 6], [cx - hr - 2, top - 12], [cx - hr // 2, top - 2],
                     [cx, top - 16], [cx + hr // 2, top - 2], [cx + hr + 2, top - 12],
                     [cx + hr, top + 6]], _GOLD)
        cv2.circle(half, (cx, top - 4), 3, (40, 40, 200), -1, cv2.LINE_AA)
        # Beard.
        _poly(half, [[cx - hr + 2, hy + 6], [cx + hr - 2, hy + 6], [cx + 6, hy + hr + 12],
                     [cx - 6, hy + hr + 12]], hair)
        cv2.line(half, (cx - 5, hy + 14), (cx + 5, hy + 14), (40, 40, 170), 2, cv2.LINE_AA)
        # Sceptre or sword up over the shoulder.
        ax = cx + side * (sw - 6)
        cv2.line(half, (ax, hh), (ax - side * 10, 4), (25, 25, 25), 6, cv2.LINE_AA)
        cv2.line(half, (ax, hh), (ax - side * 10, 4), _GOLD, 4, cv2.LINE_AA)
        cv2.circle(half, (ax - side * 10, 8), 7, trim, -1, cv2.LINE_AA)
    elif rank == "Q":
        _poly(half, [[cx - hr + 2, top + 4], [cx - hr + 4, top - 8], [cx, top - 3],
                     [cx + hr - 4, top - 8], [cx + hr - 2, top + 4]], _GOLD)
        # A flower held up.
        fx, fy = cx + side * (sw - 10), sy + int(rng.integers(-10, 12))
        cv2.line(half, (fx, fy), (fx - side * 6, hh - 10), (40, 120, 40), 3, cv2.LINE_AA)
        petal = pick(_INKS)
        for a in range(0, 360, 72):
            r = math.radians(a)
            cv2.circle(half, (int(fx + 6 * math.cos(r)), int(fy + 6 * math.sin(r))), 5, petal,
                       -1, cv2.LINE_AA)
        cv2.circle(half, (fx, fy), 4, _GOLD, -1, cv2.LINE_AA)
    else:
        hat = pick(_INKS)
        _poly(half, [[cx - hr - 10, top + 8], [cx - hr + 2, top - 10], [cx + hr - 2, top - 10],
                     [cx + hr + 10, top + 8]], hat)
        cv2.line(half, (cx + side * hr, top - 6), (cx + side * (hr + 18), top - 26), trim, 4,
                 cv2.LINE_AA)
        # Halberd.
        wx = cx + side * (sw - 4)
        cv2.line(half, (wx, 2), (wx, hh), (40, 60, 90), 4, cv2.LINE_AA)
        _poly(half, [[wx, 2], [wx + side * 14, 10], [wx + side * 14, 22], [wx, 16]],
              (170, 170, 170))
    # The suit sign in the frame's free upper corner, large, as on printed courts.
    smask = glyph(_suit_font(style), "suit-" + suit)
    _stamp(half, smask, hw // 2 - side * (hw // 2 - 17), 20, 28, _suit_color(style, suit))
    if style.indices == "french" and rng.random() < 0.8:
        name = _FRENCH_NAMES[rank][suit]
        scale = 0.4 if len(name) < 8 else 0.34
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        x = hw // 2 + side * (hw // 2 - tw // 2 - 6) - tw // 2
        cv2.putText(half, name, (x, hh - 6), cv2.FONT_HERSHEY_SIMPLEX, scale, (25, 25, 25), 1,
                    cv2.LINE_AA)
    img[fy1:mid, fx1:fx2] = half
    img[mid:mid + hh, fx1:fx2] = half[::-1, ::-1][: fy2 - mid]
    if style.frameless and rng.random() < style.frameless:
        return  # a figure standing free on the card, as on many French decks
    cv2.line(img, (fx1, mid), (fx2, mid), style.frame_color, 1, cv2.LINE_AA)
    cv2.rectangle(img, (fx1, fy1), (fx2, fy2), style.frame_color, 2, cv2.LINE_AA)


def _back(img: np.ndarray, style: DeckStyle, rng: np.random.Generator) -> None:
    shifted = np.array(style.back_color, np.float32) + rng.normal(0, 8, 3)
    color = tuple(int(c) for c in np.clip(shifted, 0, 255))
    m = 12
    inner = img[m:CARD_H - m, m:CARD_W - m]
    inner[:] = color
    light = tuple(min(255, c + 90) for c in color)
    h, w = inner.shape[:2]
    if style.back == "lattice":
        step = 16
        for k in range(-h, w + h, step):
            cv2.line(inner, (k, 0), (k + h, h), light, 2, cv2.LINE_AA)
            cv2.line(inner, (k + h, 0), (k, h), light, 2, cv2.LINE_AA)
    elif style.back == "dots":
        for y in range(8, h, 18):
            for x in range(8 + (y // 18 % 2) * 9, w, 18):
                cv2.circle(inner, (x, y), 4, light, -1, cv2.LINE_AA)
    elif style.back == "rings":
        for r in range(8, 260, 14):
            cv2.circle(inner, (w // 2, h // 2), r, light, 3, cv2.LINE_AA)
    elif style.back == "stripes":
        for x in range(0, w, 10):
            cv2.line(inner, (x, 0), (x, h), light, 3)
        cv2.ellipse(inner, (w // 2, h // 2), (60, 90), 0, 0, 360, color, -1, cv2.LINE_AA)
        cv2.ellipse(inner, (w // 2, h // 2), (60, 90), 0, 0, 360, light, 3, cv2.LINE_AA)
    else:  # plain with a double frame
        cv2.rectangle(inner, (10, 10), (w - 11, h - 11), light, 3, cv2.LINE_AA)
        cv2.rectangle(inner, (18, 18), (w - 19, h - 19), light, 1, cv2.LINE_AA)


def _joker(img: np.ndarray, style: DeckStyle, rng: np.random.Generator) -> None:
    color = style.red if rng.random() < 0.5 else style.black
    for rot in (False, True):
        view = np.ascontiguousarray(img[::-1, ::-1]) if rot else img
        for k, ch in enumerate("JOKER"):
            cv2.putText(view, ch, (10, 30 + k * 24), cv2.FONT_HERSHEY_DUPLEX, 0.8, color, 2,
                        cv2.LINE_AA)
        if rot:
            img[:] = view[::-1, ::-1]
    cx, cy = CARD_W // 2, CARD_H // 2
    hat = [(40, 40, 190), (40, 170, 220), (160, 70, 30)]
    for k, dx in enumerate((-30, 0, 30)):
        cv2.fillConvexPoly(img, np.array([[cx - 20, cy - 40], [cx + dx, cy - 95],
                                          [cx + 20, cy - 40]], np.int32), hat[k], cv2.LINE_AA)
        cv2.circle(img, (cx + dx, cy - 95), 6, (40, 180, 230), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy - 20), 24, _SKIN[int(rng.integers(len(_SKIN)))], -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx, cy + 60), (50, 70), 0, 180, 360, hat[int(rng.integers(3))], -1,
                cv2.LINE_AA)


def render_card(code: str, style: DeckStyle | str | None, rng: np.random.Generator) -> np.ndarray:
    """The face of one card, BGR uint8 of CARD_H x CARD_W (350 x 250), flat and square-on.

    ``code`` is a belote card ("TH", "JS"), or a negative: "BACK", "JOKER", "2C".."6S".
    """
    _check_code(code)
    st = get_style(style, rng)
    # Paper ages warm (less blue), never pink or green: one shared shift plus a little blue loss.
    tint = rng.normal(0, 2.5) + np.array([-abs(rng.normal(0, 4)), 0, 0])
    paper = np.clip(np.array(st.paper, np.float32) + tint, 0, 255).astype(np.uint8)
    img = np.empty((CARD_H, CARD_W, 3), np.uint8)
    img[:] = paper
    if code == "BACK":
        _back(img, st, rng)
        return img
    if code == "JOKER":
        _joker(img, st, rng)
        return img
    if st.art is not None:
        art = _art_face(st.art, code)
        if art is not None:
            if st.art_pool and rng.random() < st.art_mix:
                art, st = _mixed_art(st, code, rng)
            shade = paper.astype(np.float32) / 255.0
            img[:] = np.clip(art * shade, 0, 255).astype(np.uint8)
            if st.art_box is not None:
                _restamp(img, st, code, rng)
            if rng.random() < 0.2:
                _glossy(img, rng)
            return img
        st = STYLES[0]  # a card the design lacks: drawn instead
    try:
        card = Card.parse(code)
        rank, suit = card.rank, card.suit
    except InvalidCardError:  # a negative of the same notation: 2..6 of a suit
        rank, suit = code[0], code[1]
    if rank in "23456789T":
        n = 10 if rank == "T" else int(rank)
        _pips(img, st, n, suit)
    elif rank == "A":
        _ace(img, st, suit, rng)
    else:
        _court(img, st, rank, suit, rng)
    if DRAWN_FONTS[0]:
        st = _drawn_font(st, rng)
    _corner_index(img, st, _index_label(st, rank, rng), suit)
    if (st.ace_one or st.frameless) and rng.random() < 0.25:
        _glossy(img, rng)
    return img


def _mixed_art(st: DeckStyle, code: str, rng: np.random.Generator
               ) -> tuple[np.ndarray, DeckStyle]:
    """Art for ``code``'s face from a design of ``st.art_pool`` drawn at random: a court's
    from any of its courts, its hues turned half the time; an ace's from any of its aces
    (each of the card's own suit half the time); a number card's from the same card.
    Returns the art and ``st`` with that design's index box, which :func:`_restamp` blanks
    before printing ``code``'s index; with ``st.art_fonts``, in any atlas's face that share
    of the time, with French (R/D/V) or English (K/Q/J) letters."""
    design, box = st.art_pool[int(rng.integers(len(st.art_pool)))]
    rank = code[0]
    suit = code[1] if rng.random() < 0.5 else "SHDC"[int(rng.integers(4))]
    source = code
    if rank in "JQK":
        source = "JQK"[int(rng.integers(3))] + suit
    elif rank == "A":
        source = "A" + suit
    art = _art_face(design, source)
    if art is None and st.art is not None and st.art_box is not None:
        # A card that design lacks: the style's own art.
        art, design, box = _art_face(st.art, code), st.art, st.art_box
    if art is None:
        raise RenderError(f"art mix: no face {code} in {design} nor {st.art}")
    if rank in "JQK" and rng.random() < 0.5:
        hsv = cv2.cvtColor(art, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(rng.integers(20, 160))) % 180
                       ).astype(np.uint8)
        art = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    st = replace(st, art=design, art_box=box)
    if st.art_fonts:
        # The index, too, in any face (``vision.lab.make_assets``: many fonts are drawn
        # only here), with French or English letters.
        fonts = atlas_fonts()
        font = fonts[int(rng.integers(len(fonts)))] if rng.random() < st.art_fonts else st.font
        indices = "english" if rng.random() < 0.4 else "french"
        st = replace(st, font=font, indices=indices)
    return art, st


def _drawn_font(st: DeckStyle, rng: np.random.Generator) -> DeckStyle:
    """``st`` with its index in another atlas face, a ``DRAWN_FONTS`` share of the time
    (training only: the index faces no drawn style prints, such as URW Bookman's looped Q,
    are learnt on the drawn faces too, not only on the art mix's)."""
    if rng.random() >= DRAWN_FONTS[0]:
        return st
    fonts = [f for f in atlas_fonts() if f != st.font]
    return replace(st, font=fonts[int(rng.integers(len(fonts)))])


def _restamp(img: np.ndarray, st: DeckStyle, code: str, rng: np.random.Generator) -> None:
    """Blank a design's two corner indices (``st.art_box`` and where ``st`` prints its own)
    with the card's paper, and print ``st``'s French index there: R/D/V, the ace "1" (a
    share ``st.ace_one``) or "A"."""
    assert st.art_box is not None
    ax1, ay1, ax2, ay2 = st.art_box
    paper = _paper_of(img, st.art_box, st.paper)
    nx1, ny1, nx2, ny2 = st.index_box()
    x1, y1 = max(min(ax1, nx1) - 2, 2), max(min(ay1, ny1) - 2, 2)
    x2, y2 = max(ax2, nx2) + 2, max(ay2, ny2) + 2
    for view in (img, img[::-1, ::-1]):
        view[y1:y2, x1:x2] = paper
    _corner_index(img, st, _index_label(st, code[0], rng), code[1])


def _paper_of(img: np.ndarray, box: tuple[int, int, int, int], default: tuple[int, int, int]
              ) -> tuple[int, int, int]:
    """The paper around a design's top-left corner index ``box``: the brightest half of
    the face's left margin just below it and of its top margin just right of it.

    Not the left margin alone: on a Paris king of diamonds the figure's sleeve runs along
    the left edge, and a French index printed on that blue would be like no real deck.
    Near the corner only: some designs' paper is shaded across the face."""
    x2, y2 = box[2], box[3]
    near = 60
    strips = np.concatenate([img[y2 + 4:y2 + 4 + near, 3:10].reshape(-1, 3),
                             img[3:10, x2 + 4:x2 + 4 + near].reshape(-1, 3)])
    if not len(strips):
        return default
    light = strips.astype(int).sum(axis=1)
    b, g, r = (int(v) for v in np.median(strips[light >= np.median(light)], axis=0))
    return b, g, r


def _index_label(st: DeckStyle, rank: str, rng: np.random.Generator) -> str:
    """What ``st`` prints in a corner for ``rank``: its label, or "1" for a share
    ``st.ace_one`` of its aces."""
    if rank == "A" and st.ace_one and rng.random() < st.ace_one:
        return "1"
    return st.rank_label(rank)


def card_mask(radius: int = 14) -> np.ndarray:
    """Rounded-rectangle mask (uint8, 255 inside) of a card face."""
    return _card_mask(radius).copy()


@lru_cache(maxsize=4)
def _card_mask(radius: int) -> np.ndarray:
    m = np.zeros((CARD_H, CARD_W), np.uint8)
    r = radius
    cv2.rectangle(m, (r, 0), (CARD_W - 1 - r, CARD_H - 1), 255, -1)
    cv2.rectangle(m, (0, r), (CARD_W - 1, CARD_H - 1 - r), 255, -1)
    for x, y in ((r, r), (CARD_W - 1 - r, r), (r, CARD_H - 1 - r),
                 (CARD_W - 1 - r, CARD_H - 1 - r)):
        cv2.circle(m, (x, y), r, (255,), -1, cv2.LINE_AA)
    return m


def index_part_quads(style: DeckStyle | str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each corner index of a face of ``style`` split in two: (rank part, suit part),
    each a 4x2 array in face pixels, clockwise; top-left corner first."""
    st = get_style(style)
    x1, y1, x2, y2 = st.index_box()
    # Between the rank and the suit sign (a deck's art: the box's upper 55 %).
    split = st.index_top + st.index_height + 3 if st.box is None else round(y1 + 0.55 * (y2 - y1))
    out = []
    for top, bottom in ((y1, split), (split, y2)):
        out.append(np.array([[x1, top], [x2, top], [x2, bottom], [x1, bottom]], np.float32))
    br = np.array([CARD_W, CARD_H], np.float32)
    return [(out[0], out[1]), (br - out[0], br - out[1])]


def index_quads(style: DeckStyle | str | None = None) -> list[np.ndarray]:
    """The two corner-index regions of a face of ``style`` (all styles' union when
    None), each as a 4x2 array in face pixels, clockwise."""
    x1, y1, x2, y2 = INDEX_BOX if style is None else get_style(style).index_box()
    tl = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    br = np.array([CARD_W, CARD_H], np.float32) - tl
    return [tl, br]


# --------------------------------------------------------------------------- tables

def _noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise in float32 (drawn in float32: twice as fast as rng.normal)."""
    n = rng.standard_normal(shape, dtype=np.float32)
    n *= sigma
    return n


# Table tops a random frame is drawn on, felt three times as often as each other one.
TABLE_KINDS = ("felt", "felt", "felt", "wood", "cloth", "white", "stone")


def render_background(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                      kind: str | None = None) -> np.ndarray:
    """A table top seen from above: "felt" (greens), "wood", "cloth", "white" or "stone"."""
    w, h = size
    kind = kind or TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))]
    if kind == "felt":
        greens = [(40, 100, 25), (50, 120, 40), (30, 80, 20), (60, 110, 30), (80, 90, 30),
                  (35, 70, 45)]
        base: np.ndarray = np.array(greens[int(rng.integers(len(greens)))], np.float32)
        base += rng.normal(0, 8, 3)
        img: np.ndarray = np.empty((h, w, 3), np.float32)
        img[:] = base
        fine = _noise(rng, (h, w), float(rng.uniform(4, 12)))
        if rng.random() < 0.4:
            # Brushed felt: fibres laid one way streak the texture.
            k = int(rng.integers(5, 15))
            kern = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1.0 / np.sqrt(k)
            M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)),
                                        1)
            fine = cv2.filter2D(fine, -1, cv2.warpAffine(kern, M, (k, k)))[..., None]
        else:
            fine = cv2.GaussianBlur(fine, (0, 0), float(rng.uniform(0.6, 1.5)))[..., None]
        low = cv2.resize(rng.normal(0, 6, (6, 10)).astype(np.float32), (w, h),
                         interpolation=cv2.INTER_CUBIC)[..., None]
        img += fine + low
    elif kind == "wood":
        browns = [(40, 80, 130), (50, 100, 160), (30, 55, 90), (70, 120, 170), (95, 150, 195)]
        base = np.array(browns[int(rng.integers(len(browns)))], np.float32) + rng.normal(0, 6, 3)
        # Draw planks along a square canvas's rows, then turn it to a random angle:
        # grain lines run along the planks, long streaks follow them.
        side = int(math.hypot(w, h)) + 4
        plank_w = float(rng.uniform(90, 220))
        v = np.arange(side, dtype=np.float32)[:, None]
        warp = cv2.resize(rng.normal(0, 1, (6, 10)).astype(np.float32), (side, side),
                          interpolation=cv2.INTER_CUBIC)
        period = float(rng.uniform(2.0, 5.0))
        grain = np.sin(v / period + warp * float(rng.uniform(2, 6)))
        streak = cv2.resize(_noise(rng, (side, max(2, side // 40)), 1.0), (side, side),
                            interpolation=cv2.INTER_LINEAR)
        plank = np.floor(v / plank_w)
        # One brightness channel is shaped and turned; the colour comes last (3x cheaper).
        shade = ((plank * 7919) % 5 - 2) * float(rng.uniform(0.03, 0.07))
        tone = 1 + 0.06 * grain + 0.05 * streak + shade
        tone *= np.where((v % plank_w) < 2.0, 0.55, 1.0).astype(np.float32)
        M = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(0, 180)), 1.0)
        M[:, 2] -= np.array([(side - w) / 2, (side - h) / 2])
        tone = cv2.warpAffine(tone.astype(np.float32), M, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
        tone += _noise(rng, (h, w), 3.0 / float(base.mean()))
        img = tone[..., None] * base[None, None, :]
    elif kind == "cloth":
        img = np.empty((h, w, 3), np.float32)
        if rng.random() < 0.5:
            # Gingham: two crossed stripe sets of a colour on white.
            col = np.array([(40, 40, 180), (150, 80, 30), (40, 120, 40)][int(rng.integers(3))],
                           np.float32)
            p = int(rng.integers(24, 48))
            yy, xx = np.mgrid[0:h, 0:w]
            a = ((xx // p) % 2).astype(np.float32) + ((yy // p) % 2)
            white = np.array([235, 235, 235], np.float32)
            img[:] = white - (white - col)[None, None, :] * (a[..., None] * 0.45)
        else:
            img[:] = np.array([(60, 60, 140), (130, 90, 50), (90, 140, 170), (70, 70, 70)]
                              [int(rng.integers(4))], np.float32)
        yy, xx = np.mgrid[0:h, 0:w]
        weave = ((xx % 4 < 2) ^ (yy % 4 < 2)).astype(np.float32) * 6 - 3
        img += weave[..., None] + _noise(rng, (h, w, 1), 3)
    elif kind == "white":
        img = np.empty((h, w, 3), np.float32)
        img[:] = np.array([225, 228, 230], np.float32) + rng.normal(0, 5, 3)
        img += _noise(rng, (h, w, 1), 2)
    elif kind == "stone":
        # Granite or dark marble: speckles of several sizes on a grey or black ground.
        img = np.empty((h, w, 3), np.float32)
        img[:] = float(rng.uniform(25, 110)) + rng.normal(0, 4, 3)
        for sigma, amp in ((0.7, 25.0), (2.0, 40.0)):
            n = cv2.GaussianBlur(_noise(rng, (h, w), 1.0), (0, 0), sigma)
            img += (np.maximum(n - n.std() * 1.2, 0) * (amp / max(float(n.std()), 1e-6)))[
                ..., None]
        img += _noise(rng, (h, w, 1), 3)
    else:
        raise RenderError(f"background {kind!r}: unknown, expected felt, wood, cloth, white "
                          "or stone")
    return np.clip(img, 0, 255).astype(np.uint8)


def lighting(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
             strength: float = 1.0) -> np.ndarray:
    """Per-pixel BGR gain (float32 HxWx3): uneven light times a white-balance shift."""
    full = size
    # Light varies slowly: compute it on a coarse grid, then scale it up.
    w, h = max(8, size[0] // 8), max(8, size[1] // 8)
    low = rng.normal(0, 0.12 * strength, (3, 4)).astype(np.float32)
    gain = cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.normal(0, 0.15 * strength, 2)
    gain = 1.0 + gain + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    # A lamp: a soft bright spot somewhere over the table.
    lx, ly = rng.uniform(0, w), rng.uniform(0, h)
    r2 = ((xx - lx) ** 2 + (yy - ly) ** 2) / (0.6 * w) ** 2
    gain += float(rng.uniform(0, 0.25 * strength)) * np.exp(-r2)
    wb = 1.0 + rng.normal(0, 0.06 * strength, 3).astype(np.float32)
    gain = cv2.resize(gain.astype(np.float32), full, interpolation=cv2.INTER_LINEAR)
    return np.clip(gain[..., None] * wb[None, None, :], 0.35, 1.6).astype(np.float32)


# --------------------------------------------------------------------------- hands, clutter

@dataclass
class Occluder:
    """Something above the cards (a hand and arm): its pixels, its opacity, its shadow."""

    x0: int
    y0: int
    patch: np.ndarray  # BGR uint8
    alpha: np.ndarray  # float32 0..1, same height and width as patch
    shadow: np.ndarray = field(repr=False)  # float32 0..1, same size
    shadow_strength: float = 0.45


def hand_occluder(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                  target: tuple[float, float] | None = None,
                  edge: str | None = None, scale: float | None = None) -> Occluder:
    """A skin-coloured hand and sleeved arm reaching from a table edge (N E S W of the
    frame) towards ``target`` (the fingertips' end). ``scale`` 1 suits a 720-pixel-high
    frame whose cards are about 190 pixels long."""
    w, h = size
    if target is None:
        target = (float(rng.uniform(0.2, 0.8) * w), float(rng.uniform(0.2, 0.8) * h))
    edge = edge or "NESW"[int(rng.integers(4))]
    k = (float(rng.uniform(1.0, 1.35)) if scale is None else float(scale)) * h / 720.0
    tx, ty = target
    start = {"N": (tx + rng.uniform(-200, 200), -60), "S": (tx + rng.uniform(-200, 200), h + 60),
             "W": (-60, ty + rng.uniform(-150, 150)), "E": (w + 60, ty + rng.uniform(-150, 150))}
    sx, sy = start[edge]
    canvas = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    skin = np.array(_SKIN[int(rng.integers(len(_SKIN)))], np.float32) + rng.normal(0, 8, 3)
    skin_c = tuple(int(c) for c in np.clip(skin, 0, 255))
    crease = tuple(int(c) for c in np.clip(skin * 0.72, 0, 255))
    nail = tuple(int(c) for c in np.clip(skin * 1.12 + 15, 0, 255))
    sleeve = tuple(int(c) for c in rng.integers(20, 220, 3))
    d = np.array([tx - sx, ty - sy], np.float64)
    length = float(np.hypot(*d)) or 1.0
    d /= length
    n = np.array([-d[1], d[0]])
    arm_w = float(rng.uniform(38, 52)) * k
    palm = np.array([tx, ty]) - d * 95 * k
    wrist = palm - d * 45 * k
    cuff = np.array([sx, sy]) + d * max(40.0, (length - 140 * k) * float(rng.uniform(0.3, 0.8)))

    def pt(p: np.ndarray) -> tuple[int, int]:
        return int(round(p[0])), int(round(p[1]))

    def both(draw: Any) -> None:
        draw(canvas, skin_c)
        draw(alpha, 255)

    # The sleeve from the edge to the cuff, the bare forearm from the cuff to the wrist.
    for a, b, col, wa, wb in ((np.array([sx, sy]), cuff, sleeve, arm_w * 1.25, arm_w * 1.1),
                              (cuff, wrist, skin_c, arm_w * 0.85, arm_w * 0.68)):
        poly = np.array([a + n * wa, b + n * wb, b - n * wb, a - n * wa], np.int32)
        cv2.fillConvexPoly(canvas, poly, col, cv2.LINE_AA)
        cv2.fillConvexPoly(alpha, poly, (255,), cv2.LINE_AA)
    ang = math.degrees(math.atan2(d[1], d[0]))
    axes = (int(52 * k), int(44 * k))
    both(lambda img, col: cv2.ellipse(img, pt(palm), axes, ang, 0, 360, col, -1, cv2.LINE_AA))
    # Four fingers, a little spread and of unequal length, with the gaps between them
    # drawn as creases and pale nails at the tips.
    spread = float(rng.uniform(0.0, 0.25))
    fw = max(3, int(15 * k))
    tips = []
    for i, rel in enumerate((0.82, 1.0, 0.95, 0.75)):
        off = (i - 1.5) * 17 * k
        base = palm + d * 36 * k + n * off
        direction = d + n * (i - 1.5) * spread * 0.4
        direction /= np.linalg.norm(direction)
        tip = base + direction * float(rng.uniform(44, 56)) * k * rel
        tips.append((base, tip, direction))
        both(lambda img, col, b=base, t=tip: cv2.line(img, pt(b), pt(t), col, fw, cv2.LINE_AA))
    for i in range(3):
        b0, t0, _ = tips[i]
        b1, t1, _ = tips[i + 1]
        cv2.line(canvas, pt((b0 + b1) / 2 + d * 4 * k), pt((t0 + t1) / 2 - d * 6 * k), crease,
                 max(1, int(2 * k)), cv2.LINE_AA)
    for _, tip, direction in tips:
        cv2.ellipse(canvas, pt(tip - direction * 5 * k), (max(2, int(5 * k)), max(2, int(4 * k))),
                    ang, 0, 360, nail, -1, cv2.LINE_AA)
    side = float(rng.choice([-1, 1]))
    thumb_base = palm + n * side * 30 * k - d * 10 * k
    thumb = palm + n * side * 58 * k + d * 22 * k
    both(lambda img, col: cv2.line(img, pt(thumb_base), pt(thumb), col, max(4, int(19 * k)),
                                   cv2.LINE_AA))
    cv2.line(canvas, pt(palm + n * side * 18 * k - d * 20 * k),
             pt(palm + n * side * 8 * k + d * 20 * k), crease, max(1, int(2 * k)), cv2.LINE_AA)
    # Light falls on the arm's middle more than on its sides.
    ys, xs = np.nonzero(alpha)
    if len(xs) == 0:
        x0 = y0 = 0
        x1, y1 = 1, 1
    else:
        x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    pad = 40
    x0, y0 = max(0, x0 - pad), max(0, y0 - pad)
    x1, y1 = min(w, x1 + pad), min(h, y1 + pad)
    a = alpha[y0:y1, x0:x1].astype(np.float32) / 255.0
    shade = cv2.GaussianBlur(a, (0, 0), 9)
    patch = np.clip(canvas[y0:y1, x0:x1].astype(np.float32) * (0.75 + 0.3 * shade[..., None]),
                    0, 255).astype(np.uint8)
    # The hand is above the table: its shadow falls offset and soft.
    dx, dy = int(rng.integers(10, 35)), int(rng.integers(10, 35))
    shifted = np.zeros_like(a)
    shifted[dy:, dx:] = a[:a.shape[0] - dy, :a.shape[1] - dx]
    shadow = cv2.GaussianBlur(shifted, (0, 0), float(rng.uniform(8, 16)))
    return Occluder(int(x0), int(y0), patch, a, shadow, float(rng.uniform(0.3, 0.55)))


def _clutter_face(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A flat object seen from above: (BGR image, uint8 mask)."""
    if kind == "COIN":
        r = int(rng.integers(28, 45))
        img = np.zeros((2 * r + 2, 2 * r + 2, 3), np.uint8)
        mask = np.zeros(img.shape[:2], np.uint8)
        col = (60, 170, 200) if rng.random() < 0.5 else (180, 180, 175)
        cv2.circle(img, (r + 1, r + 1), r, col, -1, cv2.LINE_AA)
        cv2.circle(img, (r + 1, r + 1), r - 5, tuple(c - 40 for c in col), 2, cv2.LINE_AA)
        cv2.putText(img, str(int(rng.integers(1, 3))), (r - 8, r + 12), cv2.FONT_HERSHEY_DUPLEX,
                    1.0, tuple(c - 60 for c in col), 2, cv2.LINE_AA)
        cv2.circle(mask, (r + 1, r + 1), r, (255,), -1, cv2.LINE_AA)
    elif kind == "COASTER":
        r = int(rng.integers(70, 100))
        img = np.zeros((2 * r + 2, 2 * r + 2, 3), np.uint8)
        mask = np.zeros(img.shape[:2], np.uint8)
        cork = np.array((90, 140, 190), np.float32) + rng.normal(0, 10, 3)
        cv2.circle(img, (r + 1, r + 1), r, tuple(int(c) for c in cork), -1, cv2.LINE_AA)
        img = np.clip(img + rng.normal(0, 10, img.shape), 0, 255).astype(np.uint8)
        cv2.circle(img, (r + 1, r + 1), r - 14, tuple(int(c) for c in rng.integers(20, 200, 3)),
                   5, cv2.LINE_AA)
        cv2.circle(mask, (r + 1, r + 1), r, (255,), -1, cv2.LINE_AA)
    elif kind == "SCOREPAD":
        w, h = int(rng.integers(200, 260)), int(rng.integers(280, 360))
        img = np.full((h, w, 3), 245, np.uint8)
        for y in range(40, h, 22):
            cv2.line(img, (8, y), (w - 8, y), (200, 170, 140), 1)
        cv2.line(img, (w // 2, 10), (w // 2, h - 10), (120, 120, 200), 1)
        cv2.putText(img, "NS", (30, 30), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.9, (120, 60, 20), 2,
                    cv2.LINE_AA)
        cv2.putText(img, "EW", (w // 2 + 30, 30), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.9,
                    (120, 60, 20), 2, cv2.LINE_AA)
        for k, y in enumerate(range(58, h - 10, 22)):
            if rng.random() < 0.8:
                for x in (20, w // 2 + 20):
                    cv2.putText(img, str(int(rng.integers(0, 17)) * 10 + 2 * (k % 2)), (x, y),
                                cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.7, (110, 50, 20), 1,
                                cv2.LINE_AA)
        mask = np.full((h, w), 255, np.uint8)
    elif kind == "PHONE":
        w, h = int(rng.integers(140, 170)), int(rng.integers(290, 330))
        img = np.zeros((h, w, 3), np.uint8)
        mask = np.zeros((h, w), np.uint8)
        cv2.rectangle(mask, (0, 0), (w - 1, h - 1), 255, -1)
        body = tuple(int(c) for c in rng.integers(10, 60, 3))
        img[:] = body
        screen = (50, 45, 40) if rng.random() < 0.6 else tuple(int(c) for c in rng.integers(80,
                                                                                         220, 3))
        cv2.rectangle(img, (8, 16), (w - 9, h - 17), screen, -1)
        cv2.rectangle(img, (w // 2 - 20, 6), (w // 2 + 20, 10), (5, 5, 5), -1)
    else:
        raise RenderError(f"clutter {kind!r}: unknown, expected one of {', '.join(CLUTTER_KINDS)}")
    return img, mask


# --------------------------------------------------------------------------- the table

@dataclass
class _Placed:
    id: int
    code: str
    style: str
    kind: str  # "card" or "clutter"
    H: np.ndarray  # face -> frame homography
    corners: np.ndarray  # 4x2 quad in the frame
    x0: int
    y0: int
    patch: np.ndarray  # lit BGR, in the ROI
    alpha: np.ndarray  # float32 ROI
    shadow: np.ndarray  # float32 ROI
    face_size: tuple[int, int]


def _warp(face: np.ndarray, mask: np.ndarray, H: np.ndarray, frame_size: tuple[int, int],
          pad: int) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """Warp ``face`` into the smallest frame region that holds it (plus ``pad``)."""
    fw, fh = frame_size
    h, w = face.shape[:2]
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), H)[0]
    x0 = max(0, int(np.floor(corners[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(corners[:, 1].min())) - pad)
    x1 = min(fw, int(np.ceil(corners[:, 0].max())) + pad + 1)
    y1 = min(fh, int(np.ceil(corners[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ H
    size = (x1 - x0, y1 - y0)
    patch = cv2.warpPerspective(face, T, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpPerspective(mask, T, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0,))
    return x0, y0, patch, alpha.astype(np.float32) / 255.0


def _tilt(rng: np.random.Generator, size: tuple[int, int], amount: float) -> np.ndarray:
    """A mild camera tilt: a homography moving the frame's corners by up to ``amount``."""
    w, h = size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + rng.uniform(-amount, amount, (4, 2)).astype(np.float32) * np.array([w, h],
                                                                                   np.float32)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


class TableScene:
    """A table seen by a fixed camera: one background, light and tilt for a whole game.

    Faces are rendered once per (code, style) and warped once when placed, so
    ``draw`` only composes cached pixels: fast enough for a live virtual table.

    >>> import numpy as np
    >>> table = TableScene(np.random.default_rng(0))
    >>> cid = table.place("AS", (640, 360), 30, "en-sans")
    >>> frame = table.draw()
    >>> frame.shape, [a["code"] for a in table.annotations()]
    ((720, 1280, 3), ['AS'])
    >>> table.remove("AS"); len(table.annotations())
    0
    """

    def __init__(self, rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                 background: str | np.ndarray | None = None, light: float = 1.0,
                 tilt: float = 0.0, card_height: float | None = None,
                 style: DeckStyle | str | None = None) -> None:
        self.size = (int(size[0]), int(size[1]))
        self.rng = rng
        if isinstance(background, np.ndarray):
            if background.shape[:2] != (self.size[1], self.size[0]):
                raise RenderError(f"background: shape {background.shape}, expected "
                                  f"{self.size[1]}x{self.size[0]}")
            bg = background
        else:
            bg = render_background(rng, self.size, background)
        self.light = lighting(rng, self.size, light) if light > 0 else np.ones(
            (self.size[1], self.size[0], 3), np.float32)
        self.background = np.clip(bg.astype(np.float32) * self.light, 0, 255).astype(np.uint8)
        self.tilt = _tilt(rng, self.size, tilt) if tilt > 0 else np.eye(3)
        self.card_height = float(card_height or rng.uniform(0.24, 0.32) * self.size[1])
        self.style = get_style(style, rng)
        self._face_seed = int(rng.integers(2**31))
        self._faces: dict[tuple[str, str], np.ndarray] = {}
        self._noise_bank: dict[float, list[np.ndarray]] = {}
        self._items: list[_Placed] = []
        self._next_id = 0

    # faces are cached so a card keeps the same look all game long
    def face(self, code: str, style: DeckStyle | str | None = None) -> np.ndarray:
        st = get_style(style) if style is not None else self.style
        key = (code, st.name)
        if key not in self._faces:
            _check_code(code)
            seed = [self._face_seed, *code.encode(), *st.name.encode()]
            self._faces[key] = render_card(code, st, np.random.default_rng(seed))
        return self._faces[key]

    def _homography(self, face_size: tuple[int, int], center: tuple[float, float],
                    angle_deg: float, height: float, narrow: float = 1.0) -> np.ndarray:
        w, h = face_size
        s = height / h
        a = math.radians(angle_deg)
        c, si = math.cos(a) * s, math.sin(a) * s
        # Squeeze the width (narrow decks), rotate and scale about the face's centre,
        # then move it to ``center``.
        A = np.array([[c, -si, center[0]], [si, c, center[1]], [0, 0, 1]], np.float64)
        A = A @ np.array([[narrow, 0, -narrow * w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
        return self.tilt @ A

    def _add(self, code: str, style: str, kind: str, face: np.ndarray, mask: np.ndarray,
             center: tuple[float, float], angle_deg: float, height: float,
             below: bool = False, narrow: float = 1.0) -> int:
        H = self._homography((face.shape[1], face.shape[0]), center, angle_deg, height, narrow)
        pad = 6
        warped = _warp(face, mask, H, self.size, pad)
        if warped is None:
            raise RenderError(f"place {code} at {center}: outside the frame")
        x0, y0, patch, alpha = warped
        ph, pw = alpha.shape
        light = self.light[y0:y0 + ph, x0:x0 + pw]
        patch = np.clip(patch.astype(np.float32) * light, 0, 255).astype(np.uint8)
        # Cards lie flat: a thin, close shadow down and to the right.
        shadow = np.zeros_like(alpha)
        shadow[2:, 2:] = alpha[:-2, :-2]
        shadow = cv2.GaussianBlur(shadow, (0, 0), 2.0)
        h, w = face.shape[:2]
        corners = cv2.perspectiveTransform(
            np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), H)[0]
        item = _Placed(self._next_id, code, style, kind, H, corners, x0, y0, patch, alpha,
                       shadow, (w, h))
        self._next_id += 1
        if below:
            self._items.insert(0, item)
        else:
            self._items.append(item)
        return item.id

    def place(self, code: str, center: tuple[float, float], angle_deg: float = 0.0,
              style: DeckStyle | str | None = None, height: float | None = None,
              bend: float = 0.0) -> int:
        """Put a card face up on top of the others; returns its placement id.

        ``angle_deg`` turns the card clockwise in the image; ``height`` is the card's
        long side in frame pixels (the scene's default otherwise); ``bend`` (about
        -0.15..0.15) shades the face as a card bowed across its width catches the light.
        """
        st = get_style(style) if style is not None else self.style
        face = self.face(code, st)
        if bend:
            x = np.linspace(-1.0, 1.0, face.shape[1], dtype=np.float32)
            gain = 1.0 + bend * x - abs(bend) * 0.5 * x * x
            face = np.clip(face.astype(np.float32) * gain[None, :, None], 0, 255).astype(
                np.uint8)
        return self._add(code, st.name, "card", face, _card_mask(14), center, angle_deg,
                         height or self.card_height, narrow=st.narrow)

    def place_clutter(self, kind: str, center: tuple[float, float], angle_deg: float = 0.0,
                      rng: np.random.Generator | None = None, on_top: bool = False) -> int:
        """Put a non-card object (coin, coaster, score pad, phone) under the cards
        (or on top of those already placed, with ``on_top``)."""
        rng = rng or self.rng
        face, mask = _clutter_face(kind, rng)
        # Real sizes against a card's 88 mm: a coin ~25 mm, a coaster ~100 mm,
        # a score pad ~150 mm, a phone ~150 mm long.
        lo, hi = _CLUTTER_SIZE[kind]
        height = self.card_height * float(rng.uniform(lo, hi))
        return self._add(kind, "", "clutter", face, mask, center, angle_deg, height,
                         below=not on_top)

    def remove(self, what: int | str) -> None:
        """Take away a placement by id, or the top-most card with that code."""
        for item in reversed(self._items):
            if item.id == what or item.code == what:
                self._items.remove(item)
                return
        raise RenderError(f"remove {what!r}: not on the table")

    def clear(self) -> None:
        self._items.clear()

    def draw(self, occluders: list[Occluder] | tuple[Occluder, ...] = (),
             rng: np.random.Generator | None = None, noise: float = 2.0) -> np.ndarray:
        """The frame the camera sees now (BGR uint8); sensor noise only when ``rng`` is given."""
        frame = self.background.copy()
        for item in self._items:
            ph, pw = item.alpha.shape
            roi = frame[item.y0:item.y0 + ph, item.x0:item.x0 + pw]
            f = roi.astype(np.float32)
            f *= (1.0 - 0.35 * item.shadow)[..., None]
            a = item.alpha[..., None]
            f += (item.patch.astype(np.float32) - f) * a
            # Round, not truncate, or the faint shadow tail darkens the whole region.
            roi[:] = np.clip(f + 0.5, 0, 255).astype(np.uint8)
        for occ in occluders:
            ph, pw = occ.alpha.shape
            roi = frame[occ.y0:occ.y0 + ph, occ.x0:occ.x0 + pw]
            f = roi.astype(np.float32)
            f *= (1.0 - occ.shadow_strength * occ.shadow)[..., None]
            light = self.light[occ.y0:occ.y0 + ph, occ.x0:occ.x0 + pw]
            a = occ.alpha[..., None]
            f += (occ.patch.astype(np.float32) * light - f) * a
            roi[:] = np.clip(f + 0.5, 0, 255).astype(np.uint8)
        if rng is not None and noise > 0:
            frame = cv2.add(frame, self._noise_field(noise, rng), dtype=cv2.CV_8U)
        return frame

    def _noise_field(self, sigma: float, rng: np.random.Generator) -> np.ndarray:
        """One of a few cached sensor-noise fields (int16), picked by ``rng``: drawing
        fresh noise for every frame would cost more than the whole composition."""
        key = round(float(sigma), 2)
        bank = self._noise_bank.get(key)
        if bank is None:
            gen = np.random.default_rng([self._face_seed, int(key * 100)])
            h, w = self.size[1], self.size[0]
            bank = [np.round(_noise(gen, (h, w, 3), key)).astype(np.int16) for _ in range(4)]
            self._noise_bank = {key: bank}
        return bank[int(rng.integers(len(bank)))]

    def _seen_share(self, owner: np.ndarray, k: int, quad: np.ndarray, H: np.ndarray) -> float:
        """Share of a face region (``quad``, face pixels) that item ``k`` shows in the frame."""
        h, w = owner.shape
        pts = cv2.perspectiveTransform(quad[None], H)[0]
        x0, y0 = np.floor(np.clip(pts.min(0), 0, [w, h])).astype(int)
        x1, y1 = np.ceil(np.clip(pts.max(0), 0, [w, h])).astype(int)
        area = max(float(cv2.contourArea(pts.astype(np.float32))), 1.0)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        region = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(region, np.round(pts - [x0, y0]).astype(np.int32), (1,))
        return float((owner[y0:y1, x0:x1][region > 0] == k).sum()) / area

    def annotations(self, occluders: list[Occluder] | tuple[Occluder, ...] = (),
                    min_index_visible: float = 0.6) -> list[dict[str, Any]]:
        """One dict per placed thing, bottom to top: code, quad, index_boxes,
        visible_fraction, index_readable, index_shown, readable, belote (see
        ``render_scene``)."""
        w, h = self.size
        owner = np.full((h, w), -1, np.int32)
        for k, item in enumerate(self._items):
            ph, pw = item.alpha.shape
            sub = owner[item.y0:item.y0 + ph, item.x0:item.x0 + pw]
            sub[item.alpha > 0.5] = k
        for occ in occluders:
            ph, pw = occ.alpha.shape
            sub = owner[occ.y0:occ.y0 + ph, occ.x0:occ.x0 + pw]
            sub[occ.alpha > 0.5] = -2
        out = []
        for k, item in enumerate(self._items):
            ph, pw = item.alpha.shape
            inside = item.alpha > 0.5
            area = int(inside.sum())
            mine = owner[item.y0:item.y0 + ph, item.x0:item.x0 + pw] == k
            full_area = float(cv2.contourArea(item.corners.astype(np.float32)))
            visible = float(mine.sum() / max(full_area, area, 1))
            boxes: list[list[float]] = []
            readable: list[bool] = []  # for each box in ``boxes``
            shown: list[float] = []  # for each box: the least seen of its rank and suit
            if item.kind == "card" and item.code != "BACK":
                for quad, parts in zip(index_quads(item.style), index_part_quads(item.style),
                                       strict=True):
                    pts = cv2.perspectiveTransform(quad[None], item.H)[0]
                    region = np.zeros((h, w), np.uint8)
                    cv2.fillConvexPoly(region, np.round(pts).astype(np.int32), (1,))
                    n_in = int(region.sum())
                    if n_in == 0:
                        continue
                    # Share of the index that is in the frame and not covered.
                    poly_area = float(cv2.contourArea(pts.astype(np.float32)))
                    seen = int((owner[region > 0] == k).sum())
                    if seen >= min_index_visible * max(poly_area, 1.0):
                        x1, y1 = np.clip(pts.min(0), 0, [w - 1, h - 1])
                        x2, y2 = np.clip(pts.max(0), 0, [w - 1, h - 1])
                        boxes.append([float(x1), float(y1), float(x2), float(y2)])
                        # Readable by eye: most of its rank and of its suit sign seen.
                        part_seen = min(self._seen_share(owner, k, part, item.H)
                                        for part in parts)
                        shown.append(round(min(part_seen, 1.0), 3))
                        readable.append(part_seen >= READABLE_SHARE)
            out.append({"code": item.code, "quad": item.corners.astype(float).tolist(),
                        "index_boxes": boxes, "visible_fraction": round(visible, 4),
                        "index_readable": readable, "index_shown": shown,
                        "readable": any(readable),
                        "belote": item.kind == "card" and is_belote(item.code),
                        "kind": item.kind if item.code != "BACK" else "back",
                        "style": item.style, "id": item.id})
        return out


# --------------------------------------------------------------------------- scenes

def degrade(frame: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
            faults: dict[str, Any] | None = None) -> np.ndarray:
    """Camera faults: blur (focus or motion), sensor noise and JPEG compression.

    When ``faults`` is a dict it is filled with what was done (the same random
    draws either way, so the frame is the same): ``blur`` ("none", "focus" or
    "motion"), ``blur_px`` (the focus blur's sigma, or the motion's length, in
    pixels), ``noise`` (sigma), ``grey`` (black and white) and ``jpeg`` (the
    quality, or None).
    """
    out = frame
    blur, blur_px = "none", 0.0
    r = rng.random()
    if r < 0.35 * strength:
        blur, blur_px = "focus", float(rng.uniform(0.5, 1.8) * strength)
        out = cv2.GaussianBlur(out, (0, 0), blur_px)
    elif r < 0.5 * strength:
        k = int(rng.integers(3, 9))
        blur, blur_px = "motion", float(k)
        kern: np.ndarray = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = np.asarray(cv2.warpAffine(kern, M, (k, k)))
        kern /= max(kern.sum(), 1e-6)
        out = cv2.filter2D(out, -1, kern)
    sigma = float(rng.uniform(0, 7) * strength)
    if sigma > 0.5:
        # Drawn at half resolution and scaled up: demosaicing spreads a camera's
        # noise over neighbouring pixels anyway, and it is four times cheaper.
        h, w = out.shape[:2]
        n = cv2.resize(_noise(rng, ((h + 1) // 2, (w + 1) // 2, 3), sigma), (w, h),
                       interpolation=cv2.INTER_LINEAR)
        out = np.clip(out.astype(np.float32) + n, 0, 255).astype(np.uint8)
    grey = rng.random() < 0.04 * strength
    if grey:
        # Some cameras and phone photos are black and white.
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    quality = None
    if rng.random() < 0.8:
        q = int(rng.integers(int(95 - 55 * min(strength, 1)), 96))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            quality = q
    if faults is not None:
        faults.update(blur=blur, blur_px=round(blur_px, 3),
                      noise=round(sigma, 3) if sigma > 0.5 else 0.0, grey=grey, jpeg=quality)
    return out


def _glare(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp's reflection on glossy cards: a soft bright patch washing colours out."""
    h, w = frame.shape[:2]
    spot: np.ndarray = np.zeros((h // 4, w // 4), np.float32)
    c = (int(rng.uniform(0, w // 4)), int(rng.uniform(0, h // 4)))
    axes = (int(rng.uniform(10, 50)), int(rng.uniform(6, 30)))
    cv2.ellipse(spot, c, axes, float(rng.uniform(0, 180)), 0, 360, (1.0,), -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(3, 10)))
    spot = cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    strength = float(rng.uniform(0.2, 0.6))
    out = frame.astype(np.float32)
    out += (255.0 - out) * spot * strength
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _spread_positions(rng: np.random.Generator, n: int, size: tuple[int, int],
                      margin: float, min_dist: float) -> list[tuple[float, float]]:
    w, h = size
    pts: list[tuple[float, float]] = []
    for _ in range(n):
        best, best_d = None, -1.0
        for _try in range(30):
            p = (float(rng.uniform(margin, w - margin)), float(rng.uniform(margin, h - margin)))
            d = min((math.dist(p, q) for q in pts), default=1e9)
            if d >= min_dist:
                best = p
                break
            if d > best_d:
                best, best_d = p, d
        assert best is not None
        pts.append(best)
    return pts


def render_cards_apart(rng: np.random.Generator, size: tuple[int, int], share: float,
                       style: DeckStyle | str | None, n_cards: int = 4,
                       background: str | None = None, light: float | None = None,
                       tilt: float | None = None, strength: float = 1.0
                       ) -> tuple[np.ndarray, list[str]]:
    """A frame of ``n_cards`` distinct belote cards lying apart, each ``share`` of the
    frame's height, turned any way, and the cards' codes. ``light`` and ``tilt`` None:
    drawn (0.3-1.3, 0-0.06); the camera's faults at ``strength`` (:func:`degrade`)."""
    scene = TableScene(rng, size, background=background,
                       light=float(rng.uniform(0.3, 1.3)) if light is None else light,
                       tilt=float(rng.uniform(0.0, 0.06)) if tilt is None else tilt,
                       card_height=share * size[1], style=style)
    codes = [BELOTE_CODES[int(i)] for i in rng.choice(32, n_cards, replace=False)]
    centres = _spread_positions(rng, n_cards, size, scene.card_height * 0.6,
                                scene.card_height * 1.3)
    for code, centre in zip(codes, centres, strict=True):
        scene.place(code, centre, float(rng.uniform(0, 360)))
    return degrade(scene.draw([], rng), rng, strength), codes


def render_scene(rng: np.random.Generator, n_cards: int = 8,
                 style: DeckStyle | str | None = None, size: tuple[int, int] = (1280, 720),
                 negatives: bool = True, codes: list[str] | None = None,
                 hands: int | None = None, overlap: float = 0.6, degrade_strength: float = 1.0,
                 background: str | None = None, faults: dict[str, Any] | None = None,
                 ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A synthetic camera frame of cards on a table, and what is in it.

    Returns ``(frame_bgr, annotations)``; each annotation is a dict:
    ``code`` ("TH", or a negative "BACK", "5C", "JOKER", "COIN"...), ``quad`` (4x2 face
    corners in frame pixels, clockwise from the face's top-left), ``index_boxes``
    ([x1, y1, x2, y2] of each corner index that can be seen), ``visible_fraction``
    (share of the card not hidden by others, hands or the frame edge),
    ``index_readable`` (for each of ``index_boxes``: it shows its rank and its suit
    sign, see :data:`READABLE_SHARE`), ``index_shown`` (for each: the share seen of
    the less seen of the two, 0 to 1), ``readable`` (one of them does), ``belote``
    (True only for the 32 cards). ``style`` None mixes decks; ``codes`` fixes the
    cards (otherwise ``n_cards`` distinct belote cards are drawn at random);
    ``overlap`` near 0 spreads cards apart, near 1 lets them pile up. ``faults``, a
    dict, is filled with the camera faults the frame was given (see :func:`degrade`).
    """
    if codes is None:
        picked = rng.choice(len(BELOTE_CODES), size=min(n_cards, 32), replace=False)
        codes = [BELOTE_CODES[int(i)] for i in picked]
    for c in codes:
        _check_code(c)
    # Cards from 17 % of the frame's height (a camera high above a wide table) to 36 %.
    scene = TableScene(rng, size, background=background, light=float(rng.uniform(0.3, 1.3)),
                       tilt=float(rng.uniform(0.0, 0.06)),
                       card_height=float(rng.uniform(0.17, 0.36) * size[1]), style=style)
    w, h = size
    extra: list[str] = []
    if negatives:
        for _ in range(int(rng.integers(0, 4))):
            extra.append(NEGATIVE_CODES[int(rng.integers(len(NEGATIVE_CODES)))])
        for _ in range(int(rng.integers(0, 3))):
            kind = CLUTTER_KINDS[int(rng.integers(len(CLUTTER_KINDS)))]
            at = (float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h))
            scene.place_clutter(kind, at, float(rng.uniform(0, 360)), rng)
    all_codes = list(codes) + extra
    order = rng.permutation(len(all_codes))
    min_dist = scene.card_height * (1.0 - overlap) * 0.9
    centers = _spread_positions(rng, len(all_codes), size, scene.card_height * 0.45, min_dist)
    mixed = style is None and rng.random() < 0.3
    for i, at in zip(order, centers, strict=True):
        code = all_codes[int(i)]
        st = get_style(None, rng) if mixed or code in NEGATIVE_CODES and style is None else (
            scene.style)
        bend = float(rng.normal(0, 0.06)) if rng.random() < 0.5 else 0.0
        scene.place(code, at, float(rng.uniform(0, 360)), st,
                    scene.card_height * float(rng.uniform(0.95, 1.05)), bend)
    if negatives and rng.random() < 0.25:
        # A coin or a phone put down on the cards.
        kind = ("COIN", "PHONE")[int(rng.integers(2))]
        at = (float(rng.uniform(0.15, 0.85) * w), float(rng.uniform(0.15, 0.85) * h))
        scene.place_clutter(kind, at, float(rng.uniform(0, 360)), rng, on_top=True)
    n_hands = int(rng.integers(0, 3)) if hands is None else hands
    occ = [hand_occluder(rng, size) for _ in range(n_hands)]
    frame = scene.draw(occ)
    if rng.random() < 0.3:
        frame = _glare(frame, rng)
    frame = degrade(frame, rng, degrade_strength, faults)
    return frame, scene.annotations(occ)


def place_spread(scene: TableScene, rng: np.random.Generator, codes: list[str],
                 style: DeckStyle | str | None = None) -> None:
    """Lay ``codes`` overlapping as a player spreads them face up: in a fan (turned about a
    point below them) or in a row (each shifted along the last one's width), left to
    right, each on the one before, so that only a strip of each card shows its index."""
    w, h = scene.size
    height = scene.card_height
    n = len(codes)
    base = float(rng.uniform(0, 360))
    if rng.random() < 0.6:  # a fan
        step = float(rng.uniform(6, 16))
        radius = height * float(rng.uniform(0.5, 0.85))
        reach = radius + height * 0.6
        px = float(rng.uniform(min(reach, w / 2), max(w - reach, w / 2)))
        py = float(rng.uniform(min(reach, h / 2), max(h - reach, h / 2)))
        for j, code in enumerate(codes):
            a = base + (j - (n - 1) / 2) * step
            t = math.radians(a)
            scene.place(code, (px + radius * math.sin(t), py - radius * math.cos(t)), a, style)
    else:  # a row
        shift = height * float(rng.uniform(0.12, 0.3))
        t = math.radians(base)
        ux, uy = math.cos(t), math.sin(t)  # the card's width, turned clockwise by base
        half = shift * (n - 1) / 2
        reach = half + height * 0.6
        cx = float(rng.uniform(min(reach, w / 2), max(w - reach, w / 2)))
        cy = float(rng.uniform(min(reach, h / 2), max(h - reach, h / 2)))
        for j, code in enumerate(codes):
            d = j * shift - half
            scene.place(code, (cx + d * ux, cy + d * uy), base + float(rng.normal(0, 1.5)),
                        style)


def render_spread_scene(rng: np.random.Generator, style: DeckStyle | str | None = None,
                        size: tuple[int, int] = (1280, 720), n_cards: int | None = None,
                        loose: int | None = None, degrade_strength: float = 1.0,
                        full_deck: bool = False) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A frame with 3-7 belote cards spread overlapping (:func:`place_spread`) and 0-2 cards
    lying apart; returns ``(frame_bgr, annotations)`` as :func:`render_scene` does.
    ``full_deck``: the cards are drawn from a 52-card deck (:data:`FULL_DECK_CODES`), as a
    hand of another game shows them: the 2s to 6s among them are no belote cards."""
    n = int(rng.integers(3, 8)) if n_cards is None else n_cards
    extra = int(rng.integers(0, 3)) if loose is None else loose
    pool = FULL_DECK_CODES if full_deck else BELOTE_CODES
    picked = rng.choice(len(pool), size=min(n + extra, len(pool)), replace=False)
    codes = [pool[int(i)] for i in picked]
    scene = TableScene(rng, size, background=None, light=float(rng.uniform(0.3, 1.3)),
                       tilt=float(rng.uniform(0.0, 0.06)),
                       card_height=float(rng.uniform(0.17, 0.36) * size[1]), style=style)
    if extra:
        at = _spread_positions(rng, len(codes) - n, size, scene.card_height * 0.45,
                               scene.card_height * 0.9)
        for code, centre in zip(codes[n:], at, strict=True):
            scene.place(code, centre, float(rng.uniform(0, 360)))
    place_spread(scene, rng, codes[:n])
    frame = scene.draw([])
    if rng.random() < 0.3:
        frame = _glare(frame, rng)
    return degrade(frame, rng, degrade_strength), scene.annotations()


def with_style(style: DeckStyle, **changes: Any) -> DeckStyle:
    """A variant of a deck style (e.g. another font), for experiments."""
    return replace(style, **changes)


# --------------------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    """``python -m vision.lab.render samples DIR [N] [SEED]`` writes N frames with their
    annotations (DIR/scene_000.jpg + DIR/annotations.json). The renderer's speed is
    measured by ``benchmarks/render.py``."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["samples"] and len(args) >= 2:
        folder = Path(args[1])
        n = int(args[2]) if len(args) > 2 else 8
        rng = np.random.default_rng(int(args[3]) if len(args) > 3 else 0)
        folder.mkdir(parents=True, exist_ok=True)
        labels = {}
        for i in range(n):
            frame, notes = render_scene(rng)
            name = f"scene_{i:03d}.jpg"
            cv2.imwrite(str(folder / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            labels[name] = notes
        (folder / "annotations.json").write_text(json.dumps(labels, indent=1) + "\n")
        print(f"wrote {n} frames to {folder}")
        return 0
    print("usage: python -m vision.lab.render samples DIR [N] [SEED]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
