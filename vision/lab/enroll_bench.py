"""Deck enrollment measured: real deck designs (Debian's SVG card themes) and real photos.

For one design: every belote card is rasterised once with ``rsvg-convert``
(the clean picture a club would enrol from, laid on a plain table), the deck
is enrolled from those pictures through :func:`vision.enroll.enroll_folder`,
then scenes of that design (belote cards with some 2-6 of the same deck,
scattered on a table, with the renderer's camera faults) are read with and
without the deck. ``benchmarks/enroll.py`` runs it over designs held out for
reporting and the real photos; the template head's thresholds
(``vision.deck.HEADS``) were chosen on ``DEV_DESIGNS`` only, the prototype head's
on training designs that exclude ``HELD_OUT`` (``vision.lab.deck_rules``).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import RANKS, SUITS
from vision.lab.decks import CARDDECKS
from vision.lab.decks import SHEETS as AISLERIOT
from vision.lab.render import degrade, render_background

# The template head's thresholds were chosen on these; never reported as held out. The last four
# were added when the held-out figures showed cards of another design read onto a deck,
# which the first two never did (pairs of them read with each other's deck).
DEV_DESIGNS = ("anglo.svgz", "svg-nicu-white", "svg-gm-paris", "ancient_french.svgz",
               "neoclassical.svgz", "tigullio.svgz")
# Reported: designs this work never tuned on.
HELD_OUT = ("guyenne-classic.svgz", "paris.svgz", "svg-dondorf", "bellot.svgz")

_RANK_WORDS = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "jack", "Q": "queen",
               "K": "king", "A": "1"}
_SUIT_WORDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
FACE_H = 350


class DesignError(RuntimeError):
    """A design cannot be rendered (missing theme, rsvg-convert, card ids)."""


def theme_file(design: str) -> Path:
    """The SVG(Z) file of a design: ``name.svgz`` in aisleriot's themes, or a
    ``svg-*`` folder of KDE's carddecks."""
    if design.startswith("svg-"):
        found = sorted((CARDDECKS / design).glob("*.svg*"))
        if not found:
            raise DesignError(f"{CARDDECKS / design}: no SVG theme")
        return found[0]
    path = AISLERIOT / design
    if not path.is_file():
        raise DesignError(f"{path}: no such card theme")
    return path


def _ids(rank: str, suit: str) -> list[str]:
    r, s = _RANK_WORDS.get(rank, rank), _SUIT_WORDS[suit]
    return [f"{s}_{r}", f"{r}_{s}", f"{r}{s}s", f"{s}{r}"]


def _card_cut(rgba: np.ndarray) -> np.ndarray | None:
    """The card in an element's render: the largest opaque region of card shape (an
    element's box may hold invisible parts far from the card)."""
    opaque = (rgba[:, :, 3] > 200).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(opaque)
    best = None
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        if 0.55 <= w / max(h, 1) <= 0.8 and area >= 0.8 * w * h and \
                (best is None or area > best[4]):
            best = stats[k]
    if best is None:
        return None
    x, y, w, h, _ = best
    return rgba[y:y + h, x:x + w]


def render_faces(design: str, codes: list[str], cache: Path) -> dict[str, np.ndarray]:
    """BGRA faces, FACE_H tall, of ``codes`` (belote codes, or ranks 2-6 as "2S"...) in
    ``design``; transparent outside the card's rounded corners."""
    if shutil.which("rsvg-convert") is None:
        raise DesignError("rsvg-convert not found (Debian package librsvg2-bin)")
    src = theme_file(design)
    svg = cache / f"{design.replace('/', '_')}.svg"
    if not svg.is_file():
        data = src.read_bytes()
        svg.write_bytes(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    text = svg.read_text(errors="replace")
    out = {}
    for code in codes:
        ids = [i for i in _ids(code[0], code[1]) if f'id="{i}"' in text]
        if not ids:
            raise DesignError(f"{design}: no element for {code}")
        png = cache / f"{design}_{code}.png"
        if not png.is_file():
            done = subprocess.run(["rsvg-convert", "-i", ids[0], "-z", "2", str(svg), "-o",
                                   str(png)], capture_output=True)
            if done.returncode:
                raise DesignError(f"{design} {code}: rsvg-convert failed: "
                                  f"{done.stderr.decode(errors='replace').strip()}")
        rgba = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
            raise DesignError(f"{design} {code}: rsvg-convert gave no RGBA picture")
        card = _card_cut(rgba)
        if card is None:
            raise DesignError(f"{design} {code}: no card-shaped region in the render")
        h, w = card.shape[:2]
        out[code] = cv2.resize(card, (round(w * FACE_H / h), FACE_H),
                               interpolation=cv2.INTER_AREA)
    return out


def _on(background: np.ndarray, rgba: np.ndarray, x: int, y: int) -> None:
    h, w = rgba.shape[:2]
    a = rgba[:, :, 3:4].astype(np.float32) / 255.0
    roi = background[y:y + h, x:x + w].astype(np.float32)
    background[y:y + h, x:x + w] = (roi * (1 - a) + rgba[:, :, :3] * a).astype(np.uint8)


def enrollment_pictures(faces: dict[str, np.ndarray], out: Path, seed: int = 0) -> None:
    """One picture per card: the face on a plain table, a margin round it, as
    ``out/<CARD>/card.png``."""
    rng = np.random.default_rng(seed)
    for code, rgba in faces.items():
        h, w = rgba.shape[:2]
        canvas = np.full((h + 80, w + 80, 3), (60, 110, 45), np.uint8)
        canvas[:] = render_background(rng, (w + 80, h + 80), "felt")
        _on(canvas, rgba, 40, 40)
        (out / code).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out / code / "card.png"), canvas)


def scene(faces: dict[str, np.ndarray], codes: list[str], rng: np.random.Generator,
          size: tuple[int, int] = (1280, 720), quads: list | None = None) -> np.ndarray:
    """``codes`` scattered on a table (a 4 x 2 grid, jittered, turned), camera faults on;
    each card's corners (4x2, frame pixels) appended to ``quads`` when given."""
    w, h = size
    frame = render_background(rng, size)
    height = float(rng.uniform(0.26, 0.34) * h)
    for i, code in enumerate(codes):
        rgba = faces[code]
        fh, fw = rgba.shape[:2]
        cx = (i % 4 + 0.5) * w / 4 + rng.uniform(-30, 30)
        cy = (i // 4 + 0.5) * h / 2 + rng.uniform(-25, 25)
        angle = float(rng.uniform(-180, 180))
        s = height / fh
        m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, s)
        m[:, 2] += (cx - fw / 2, cy - fh / 2)
        warped = cv2.warpAffine(rgba, m, size, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        if quads is not None:
            corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
            quads.append(cv2.transform(corners[None], m)[0])
        a = warped[:, :, 3:4].astype(np.float32) / 255.0
        frame = (frame * (1 - a) + warped[:, :, :3] * a).astype(np.uint8)
    return degrade(frame, rng, 0.6)


def belote_codes() -> list[str]:
    return [r + s for s in SUITS for r in RANKS]


def design_scenes(design: str, cache: Path, n: int, seed: int
                  ) -> list[tuple[np.ndarray, list[str]]]:
    """``n`` scenes of ``design``: 6 belote cards and 2 of its 2-6 each."""
    faces = render_faces(design, belote_codes(), cache)
    try:
        low = render_faces(design, [r + s for s in SUITS for r in "23456"], cache)
    except DesignError:
        low = {}
    faces = {**faces, **low}
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cards = list(rng.choice(belote_codes(), 6 if low else 8, replace=False))
        if low:
            cards += list(rng.choice(sorted(low), 2, replace=False))
        rng.shuffle(cards)
        out.append((scene(faces, cards, rng), [c for c in cards if c in set(belote_codes())]))
    return out


def score(reader, scenes: list[tuple[np.ndarray, list[str]]]) -> dict:
    """Card-level precision and recall of ``reader`` on labelled scenes, and its read time."""
    tp = fp = fn = 0
    t0 = time.perf_counter()
    for frame, truth in scenes:
        got = {d.code for d in reader.read(frame) if d.code is not None}
        want = set(truth)
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
    seconds = time.perf_counter() - t0
    return {"cards": tp + fn, "precision": round(tp / max(tp + fp, 1), 4),
            "recall": round(tp / max(tp + fn, 1), 4), "invented": fp, "missed": fn,
            "ms_per_card": round(1000 * seconds / max(tp + fn, 1), 3)}


def enroll_design(reader, design: str, cache: Path, head: str, out: Path) -> float:
    """Enrol ``design`` from one clean picture of each card into ``out``; seconds taken."""
    from vision.enroll import enroll_folder

    faces = render_faces(design, belote_codes(), cache)
    with tempfile.TemporaryDirectory() as tmp:
        enrollment_pictures(faces, Path(tmp))
        t0 = time.perf_counter()
        deck = enroll_folder(reader, tmp, head)
        seconds = time.perf_counter() - t0
    deck.save(out)
    return seconds


def extra_read_ms(reader, deck: Path, scenes: list[tuple[np.ndarray, list[str]]],
                  repeats: int = 3) -> dict:
    """Read time per card without and with ``deck``, each frame read both ways in turn
    (the best of ``repeats``), so that the machine's load weighs on both alike."""
    plain, enrolled, cards = 0.0, 0.0, 0
    for frame, truth in scenes:
        best = {None: np.inf, deck: np.inf}
        for _ in range(repeats):
            for which in (None, deck):
                reader.use_deck(which)
                t0 = time.perf_counter()
                reader.read(frame)
                best[which] = min(best[which], time.perf_counter() - t0)
        plain += best[None]
        enrolled += best[deck]
        cards += len(truth)
    reader.use_deck(None)
    return {"ms_per_card_general": round(1000 * plain / max(cards, 1), 2),
            "ms_per_card_deck": round(1000 * enrolled / max(cards, 1), 2),
            "extra_ms_per_card": round(1000 * (enrolled - plain) / max(cards, 1), 2)}
