"""Real deck designs for training: the card themes Debian ships as SVG, rasterised.

The GNOME card games' themes (package ``gnome-cards-data``, in
``/usr/share/aisleriot/cards``) lay every card out on one sheet of 13 columns
(ace, 2..10, jack, queen, king) by 5 rows (clubs, diamonds, hearts, spades,
then jokers and back). :func:`build` renders each sheet once with
``rsvg-convert`` (package ``librsvg2-bin``), cuts the cards, and writes them
under ``vision/lab/data/decks/<design>/<CODE>.png`` at the renderer's face size,
with ``decks.json`` naming each design's corner-index box (found on its aces
and low cards, which carry nothing else near the corner). The KDE card games'
themes (package ``kdegames-card-data-kf5``, in ``/usr/share/carddecks/svg-*``)
name each card by an element id (``king_heart``, ``1_spade``): those are rendered
one card at a time (``rsvg-convert -i``) into the same cache, as ``kde-<theme>``.
The art stays out of git: ``belote-table vision decks`` rebuilds the cache.

Only designs with French suits (spades, hearts, diamonds, clubs) are kept: a
German, Swiss or Italian deck puts leaves or bells in the same places, and
would teach the reader that a leaf is a spade.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import CARD_CODES

SHEETS = Path("/usr/share/aisleriot/cards")
CARDDECKS = Path("/usr/share/carddecks")
DATA = Path(__file__).with_name("data") / "decks"
FACE_W, FACE_H = 250, 350  # the renderer's face size (vision.lab.render.CARD_SIZE)
_ROWS = "CDHS"
_COLS = "A23456789TJQK"

# Designs with French suits and the letters of their indices, as read off each sheet. Left
# out: swiss-xvii (Swiss suits, no index), dondorf (an index in all four corners: the two
# unlabelled ones would be taught as no index), the bitmap copies and the Cyrillic-named
# copy of atlasnye.
DESIGNS: dict[str, str] = {
    "ancient_french": "french",  # 1 / V / D / R indices
    "anglo": "english",
    "anglo_modern": "english",
    "anglo_modern_4_color": "english",
    "anglo_poker": "english",
    "atlasnye": "english",
    "atlasnye_skat": "german",  # B / D / K, four colours
    "bellot": "english",
    "berlin": "german",
    "gnomangelo": "english",
    "guyenne-classic": "english",
    "lattmann": "german",
    "neoclassical": "english",
    "neoclassical_4_color": "english",
    "orell": "english",
    "ornamental": "english",
    "paris": "english",  # Paris-pattern courts, English indices
    "plastic": "english",
    "rheinland": "german",
    "simplistic": "english",
    "slavic_costumes": "russian",
    "tango": "english",
    "tango_nuevo": "english",
    "tarocco": "french",  # F / D / R
    "tigullio": "english",
}
# The KDE themes with French suits, by the name they take here (``kde-`` and the theme's
# folder without ``svg-``), and their index letters. Left out: xskat-german (German suits),
# konqi-modern and xskat-french (small bitmaps inside the SVG), future (no card outline),
# the three oxygen themes (the rank in one top corner, the suit in the other: no corner
# index), nicu-ornamental and nicu-white (aisleriot's ornamental, already here).
KDE_DESIGNS: dict[str, str] = {
    "kde-ancient-egyptians": "english",
    "kde-dondorf": "english",
    "kde-gm-paris": "english",  # the same Paris-pattern art as aisleriot's paris
    "kde-jolly-royal": "english",
    "kde-penguins": "english",
    "kde-standard": "english",
    "kde-tigullio-international": "english",  # the same art as aisleriot's tigullio
}
#: The designs of the benchmarks' test frames: the Paris pattern, an Italian maker's
#: design and a 4-colour deck; and the KDE copies of two of them (the same art, another
#: layout) with dondorf, the design ``benchmarks/enroll.py`` enrols. New designs are added
#: at the end: each one's test frames are drawn from a seed of its place here.
BENCH_DESIGNS = ("paris", "tigullio", "anglo_modern_4_color", "kde-gm-paris",
                 "kde-tigullio-international", "kde-dondorf")
#: The Paris pattern (aisleriot's and KDE's layouts of one art), the pattern of the decks
#: clubs play with: its art printed as a French deck is measured apart
#: (``benchmarks/real_decks.py``), held out or not.
PARIS_ART = ("paris", "kde-gm-paris")
#: The designs the shipped classifier never trained on: their figures measure a design
#: never seen. The Paris pattern was held out too until run 14 trained on it
#: (``python -m vision.lab.bulk --favour paris,kde-gm-paris``); its test frames stay as
#: they were (the seeds of ``BENCH_DESIGNS``), measured apart as trained designs.
HELD_OUT = tuple(d for d in BENCH_DESIGNS if d not in PARIS_ART)


def _render_sheet(svg: Path, width: int) -> np.ndarray:
    """The whole sheet as BGRA, ``width`` pixels wide."""
    if shutil.which("rsvg-convert") is None:
        raise RuntimeError("rsvg-convert not found: install the Debian package librsvg2-bin")
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "sheet.png"
        subprocess.run(["rsvg-convert", "-w", str(width), "-a", str(svg), "-o", str(png)],
                       check=True, capture_output=True)
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError(f"{svg}: rsvg-convert gave no RGBA image")
    return img


def _cut(sheet: np.ndarray, row: int, col: int) -> np.ndarray | None:
    """The card in grid cell (row, col), flattened onto white and resized to the face size;
    None when the cell is empty."""
    h, w = sheet.shape[:2]
    ch, cw = h / 5, w / 13
    cell = sheet[round(row * ch):round((row + 1) * ch), round(col * cw):round((col + 1) * cw)]
    alpha = cell[..., 3]
    ys, xs = np.nonzero(alpha > 128)
    if len(xs) < 0.3 * alpha.size:
        return None
    return _face(cell[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def _face(rgba: np.ndarray) -> np.ndarray:
    """A card's BGRA picture flattened onto white and resized to the face size."""
    card = rgba.astype(np.float32)
    a = card[..., 3:] / 255.0
    bgr = card[..., :3] * a + 255.0 * (1 - a)
    return cv2.resize(bgr, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA).astype(np.uint8)


def _ink(face: np.ndarray) -> np.ndarray:
    """Printed pixels: dark or coloured, away from the outline."""
    f = face.astype(np.int16)
    dark = f.min(axis=2) < 170
    coloured = (f.max(axis=2) - f.min(axis=2)) > 60
    m = (dark | coloured).astype(np.uint8)
    edge = 6
    m[:edge] = m[-edge:] = 0
    m[:, :edge] = m[:, -edge:] = 0
    return m


def index_box(faces: dict[str, np.ndarray]) -> tuple[int, int, int, int]:
    """The top-left corner index (rank over suit) of a design: the ink near the corner of its
    aces, 2s, 3s and 10s, which print nothing else there; x1, y1, x2, y2 in face pixels."""
    boxes = []
    for code, face in faces.items():
        if code[0] not in "A23T":
            continue
        m = _ink(face)[: FACE_H * 2 // 5, : FACE_W * 2 // 5]
        n, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        parts = [s for s in stats[1:] if s[4] >= 4 and s[0] < FACE_W // 5 and s[1] < FACE_H // 4
                 and s[2] < FACE_W // 4 and s[3] < FACE_H // 5]
        if not parts:
            continue
        # The index: the parts stacked in the corner column (a pip further in is left out).
        x0 = min(s[0] for s in parts)
        col = [s for s in parts if s[0] < x0 + 30]
        boxes.append((min(s[0] for s in col), min(s[1] for s in col),
                      max(s[0] + s[2] for s in col), max(s[1] + s[3] for s in col)))
    if not boxes:
        return (4, 6, 48, 96)
    b = np.array(boxes)
    x1, y1 = np.median(b[:, 0]), np.median(b[:, 1])
    x2, y2 = np.percentile(b[:, 2], 90), np.percentile(b[:, 3], 90)
    return (int(max(x1 - 3, 0)), int(max(y1 - 3, 0)), int(x2 + 3), int(y2 + 3))


def _sheet_faces(svg: Path) -> dict[str, np.ndarray]:
    """Every card of an aisleriot sheet, by code (and BACK, JOKER)."""
    sheet = _render_sheet(svg, FACE_W * 13)
    faces: dict[str, np.ndarray] = {}
    for r, suit in enumerate(_ROWS):
        for c, rank in enumerate(_COLS):
            face = _cut(sheet, r, c)
            if face is not None:
                faces[rank + suit] = face
    back = _cut(sheet, 4, 2)
    if back is not None:
        faces["BACK"] = back
    joker = _cut(sheet, 4, 0)
    if joker is not None:
        faces["JOKER"] = joker
    return faces


def _kde_faces(theme: str) -> dict[str, np.ndarray]:
    """Every card of a KDE theme (``svg-<name>``) the renderer draws, by code, rendered one
    element at a time, flattened onto white at the face size."""
    from vision.lab.enroll_bench import DesignError, render_faces

    codes = [r + s for s in "SHDC" for r in _COLS]
    out: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for code in codes:
            try:
                out[code] = _face(render_faces(theme, [code], Path(tmp))[code])
            except DesignError:
                continue
    return out


def build(out: Path = DATA, sheets: Path = SHEETS, log=print,
          carddecks: Path = CARDDECKS) -> dict:
    """Rasterise every design of :data:`DESIGNS` found under ``sheets``, and of
    :data:`KDE_DESIGNS` under ``carddecks``, into ``out``; returns (and writes as
    ``out/decks.json``) each design's cards, index style and box."""
    out.mkdir(parents=True, exist_ok=True)
    before = load_manifest(out) or {"designs": {}}
    manifest: dict = {"source": str(sheets), "kde_source": str(carddecks),
                      "held_out": list(HELD_OUT), "designs": {}}
    for name, indices in {**DESIGNS, **KDE_DESIGNS}.items():
        if name.startswith("kde-"):
            src = carddecks / ("svg-" + name[4:])
            found = sorted(src.glob("*.svg*")) if src.is_dir() else []
            if not found or shutil.which("rsvg-convert") is None:
                log(f"{name}: {src} missing, skipped")
                continue
            stamp = _stamp(found[0])
        else:
            src = sheets / f"{name}.svgz"
            if not src.is_file():
                log(f"{name}: {src} missing, skipped")
                continue
            stamp = _stamp(src)
        old = before["designs"].get(name)
        if old is not None and old.get("stamp") == stamp and old.get("indices") == indices \
                and all((out / name / f"{c}.png").is_file() for c in old["cards"]):
            # Rasterised from this very file before: kept (make test asks every time).
            manifest["designs"][name] = old
            continue
        if name.startswith("kde-"):
            faces = _kde_faces(src.name)
            if not set(CARD_CODES) <= set(faces):
                log(f"{name}: {len(faces)} faces, belote cards missing, skipped")
                continue
        else:
            faces = _sheet_faces(src)
        folder = out / name
        folder.mkdir(exist_ok=True)
        for code, face in faces.items():
            cv2.imwrite(str(folder / f"{code}.png"), face)
        box = index_box(faces)
        manifest["designs"][name] = {"indices": indices, "box": list(box),
                                     "cards": sorted(faces), "stamp": stamp}
        log(f"{name}: {len(faces)} faces, index box {box}")
    (out / "decks.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def _stamp(path: Path) -> str:
    """What tells one version of a theme file from another: its size and time."""
    st = path.stat()
    return f"{path.name} {st.st_size} {int(st.st_mtime)}"


def load_manifest(root: Path = DATA) -> dict | None:
    """The cache's manifest, or None when :func:`build` has not run."""
    path = root / "decks.json"
    return json.loads(path.read_text()) if path.is_file() else None


#: What a command needing the cached designs says when they are not there.
NOT_CACHED = "no deck designs cached: run belote-table vision decks first"


def manifest_or_exit(parser: argparse.ArgumentParser, root: Path | None = None) -> dict:
    """The cache's manifest; without one, ``parser`` exits saying how to make it."""
    manifest = load_manifest(root or DATA)
    if manifest is None:
        parser.error(NOT_CACHED)
    return manifest
