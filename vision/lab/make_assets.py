"""Rebuild the glyph atlases under vision/lab/assets/ that the card renderer composes from.

Run once, in the training environment (it needs Pillow, which the runtime does not):

    .venv/bin/python -m vision.lab.make_assets

Each font gives one greyscale PNG: a row of fixed-size cells, one glyph per cell,
white ink on black, in the order of ``GLYPHS``. ``atlases.json`` names the fonts,
the cell size and the glyph order. The renderer reads only these PNGs and the JSON,
so a Raspberry Pi needs nothing but numpy and OpenCV to draw cards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ASSETS = Path(__file__).with_name("assets")
CELL = 96
# Index characters of French (R D V) and English (K Q J) decks, "10" as one glyph
# because real decks set it narrow, and the four suit signs.
GLYPHS = list("0123456789AKQJRDV") + ["10", "suit-S", "suit-H", "suit-D", "suit-C"]
SUIT_CHARS = {"suit-S": "\u2660", "suit-H": "\u2665", "suit-D": "\u2666", "suit-C": "\u2663"}

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation",
             "/usr/share/fonts/opentype/urw-base35", "/usr/share/fonts/truetype/freefont",
             "/usr/share/fonts/opentype/linux-libertine", "/usr/share/fonts/truetype/crosextra")
# (atlas name, index font file, suit font file, licence); suit signs come from DejaVu,
# the only installed family that has them.
DEJAVU = "DejaVu (Bitstream Vera licence)"
FONTS = [
    ("dejavu-serif-bold", "DejaVuSerif-Bold.ttf", "DejaVuSans.ttf", DEJAVU),
    ("dejavu-sans-bold", "DejaVuSans-Bold.ttf", "DejaVuSans.ttf", DEJAVU),
    (
        "dejavu-sans-condensed-bold",
        "DejaVuSansCondensed-Bold.ttf",
        "DejaVuSans-Bold.ttf",
        DEJAVU,
    ),
    ("liberation-serif-bold", "LiberationSerif-Bold.ttf", "DejaVuSerif.ttf", "SIL OFL 1.1"),
    ("liberation-sans-bold", "LiberationSans-Bold.ttf", "DejaVuSans.ttf", "SIL OFL 1.1"),
    ("liberation-sans-narrow-bold", "LiberationSansNarrow-Bold.ttf", "DejaVuSerif-Bold.ttf",
     "SIL OFL 1.1"),
    ("liberation-mono-bold", "LiberationMono-Bold.ttf", "DejaVuSansMono-Bold.ttf", "SIL OFL 1.1"),
]
# More index faces, for training only (``vision.lab.bulk --art-fonts``: the art mix prints
# its indices in any atlas's face); Debian's fonts-urw-base35, fonts-freefont-ttf,
# fonts-linuxlibertine, fonts-crosextra-caladea and fonts-crosextra-carlito.
URW = "URW base 35 (AGPL-3 with the font exception)"
FREE = "GNU FreeFont (GPL-3+ with the font exception)"
EXTRA_FONTS = [
    ("nimbus-roman-bold", "NimbusRoman-Bold.otf", "DejaVuSerif-Bold.ttf", URW),
    ("nimbus-sans-bold", "NimbusSans-Bold.otf", "DejaVuSans-Bold.ttf", URW),
    ("nimbus-sans-narrow-bold", "NimbusSansNarrow-Bold.otf", "DejaVuSans.ttf", URW),
    ("c059-bold", "C059-Bold.otf", "DejaVuSerif.ttf", URW),
    ("p052-bold", "P052-Bold.otf", "DejaVuSerif-Bold.ttf", URW),
    ("urw-bookman-demi", "URWBookman-Demi.otf", "DejaVuSans.ttf", URW),
    ("urw-gothic-demi", "URWGothic-Demi.otf", "DejaVuSans-Bold.ttf", URW),
    ("free-serif-bold", "FreeSerifBold.ttf", "FreeSerif.ttf", FREE),
    ("free-sans-bold", "FreeSansBold.ttf", "FreeSans.ttf", FREE),
    ("libertine-bold", "LinLibertine_RB.otf", "DejaVuSerif.ttf",
     "Linux Libertine (GPL-2 with the font exception, or SIL OFL 1.1)"),
    ("biolinum-bold", "LinBiolinum_RB.otf", "DejaVuSans.ttf",
     "Linux Biolinum (GPL-2 with the font exception, or SIL OFL 1.1)"),
    ("caladea-bold", "Caladea-Bold.ttf", "DejaVuSerif-Bold.ttf", "Apache-2.0"),
    ("carlito-bold", "Carlito-Bold.ttf", "DejaVuSans-Bold.ttf", "SIL OFL 1.1"),
]
FONTS = FONTS + EXTRA_FONTS


def _find(name: str) -> Path:
    for folder in FONT_DIRS:
        path = Path(folder) / name
        if path.exists():
            return path
    raise FileNotFoundError(f"font {name}: not found in {', '.join(FONT_DIRS)} "
                            "(apt-get install fonts-dejavu-core fonts-liberation "
                            "fonts-urw-base35 fonts-freefont-ttf fonts-linuxlibertine "
                            "fonts-crosextra-caladea fonts-crosextra-carlito)")


def _glyph_cell(text: str, font_path: Path):
    """One glyph, scaled to fill the cell's height (or width when wider), centred."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(font_path), 200)
    big = Image.new("L", (600, 400), 0)
    draw = ImageDraw.Draw(big)
    # "10" is set tight, as printed decks do, so it stays as tall as the other ranks.
    draw.text((20, 20), text, fill=255, font=font)
    if text == "10":
        big = Image.new("L", (600, 400), 0)
        draw = ImageDraw.Draw(big)
        one_w = draw.textlength("1", font=font)
        draw.text((20, 20), "1", fill=255, font=font)
        draw.text((20 + one_w * 0.82, 20), "0", fill=255, font=font)
    box = big.getbbox()
    if box is None:
        raise ValueError(f"glyph {text!r}: empty in {font_path.name}")
    glyph = big.crop(box)
    w, h = glyph.size
    scale = (CELL - 4) / max(w, h)
    glyph = glyph.resize((max(1, round(w * scale)), max(1, round(h * scale))),
                         Image.Resampling.LANCZOS)
    cell = Image.new("L", (CELL, CELL), 0)
    cell.paste(glyph, ((CELL - glyph.size[0]) // 2, (CELL - glyph.size[1]) // 2))
    return cell


def build(out: Path = ASSETS) -> dict:
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    fonts: dict[str, dict[str, str]] = {}
    meta = {"cell": CELL, "glyphs": GLYPHS, "fonts": fonts}
    for name, index_file, suit_file, licence in FONTS:
        index_font, suit_font = _find(index_file), _find(suit_file)
        atlas = Image.new("L", (CELL * len(GLYPHS), CELL), 0)
        for i, g in enumerate(GLYPHS):
            if g in SUIT_CHARS:
                cell = _glyph_cell(SUIT_CHARS[g], suit_font)
            else:
                cell = _glyph_cell(g, index_font)
            atlas.paste(cell, (i * CELL, 0))
        atlas.save(out / f"{name}.png", optimize=True)
        fonts[name] = {"index_font": index_file, "suit_font": suit_file,
                               "licence": licence}
    (out / "atlases.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    meta = build()
    total = sum(p.stat().st_size for p in ASSETS.glob("*.png"))
    print(f"{len(meta['fonts'])} atlases, {len(GLYPHS)} glyphs each, {total} bytes in {ASSETS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
