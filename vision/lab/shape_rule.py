"""How a read of a picture of one card stretched to the other shape must agree with the
picture's read as it is for ``read_face`` to take it (the reader settings' ``shape_agree``),
chosen on pictures of what the reader was trained on only.

``read_face`` reads a picture of one card; where it names no card surely, it reads the
picture again stretched to the other shape (w x h as h x w: a card lying across a photo,
warped into an upright picture, has its indices squashed), and takes a sure read there.
A card that was not squeezed is squeezed by that stretch, and its index can then be read
surely as another card while the picture as it is guessed it right (an AC as an AS, a
tarocco jack's "F" as a K). Three agreements (``vision.reader.SHAPE_AGREEMENTS``): the
stretched read is taken whatever the picture as it is guessed ("any", as before), where
that guess has its rank ("rank"), or where it is the same card ("card"); where the picture
as it is boxed nothing, it is taken.

Each picture is read with "any"; one where the stretched read was taken against the guess
(``watching``) is read again the two other ways. The pictures:
``face_rule.py``'s (the trained designs' faces printed, as a photo and flattened; the drawn
styles in white, in black and turned grey; cards cut out of table frames, fans and rows),
and ``small``: every card of the designs trained on (``vision.lab.deck_rules.dev_designs``)
brought down to ``SMALL_HEIGHTS`` pixels high as a crop out of a webcam's frame is
(softened, a table's margin, JPEG; seed 7005).

The agreement chosen leaves unknown the most wrong reads while losing at most
``RIGHT_LOST_PER_1000`` of every 1000 right reads (of equals, the fewer lost; set before
any figure was read). The designs held out of training, ``lights.py``'s four black styles
and the index fonts ``card_faces.py`` reports are never used here. Prints the figures and
writes ``benchmarks/shape_rule.json``.

    .venv/bin/python -m vision.lab.shape_rule [--jobs 2]
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent

OUT = ROOT / "benchmarks" / "shape_rule.json"
SMALL_HEIGHTS = (100, 140, 180, 220, 260, 300)
SMALL_SEED = 7005
# As face_rule.py: a right read left unknown costs a card typed by hand, a wrong one a
# wrong score (set before any figure was read).
RIGHT_LOST_PER_1000 = 1.0


def small_pictures(designs: list[str], seed: int = SMALL_SEED):
    """(way, card, picture): every belote card of ``designs`` (the cached art) brought down
    to each of ``SMALL_HEIGHTS`` pixels high, softened a little, in a margin of table,
    saved as JPEG: a card cut out of a small frame."""
    import cv2
    import numpy as np

    from vision.lab.deck_rules import design_art

    rng = np.random.default_rng(seed)
    for design in designs:
        for code, art in design_art(design).items():
            h, w = art.shape[:2]
            for height in SMALL_HEIGHTS:
                small = cv2.resize(art, (max(1, round(w * height / h)), height),
                                   interpolation=cv2.INTER_AREA)
                small = cv2.GaussianBlur(small, (0, 0), float(rng.uniform(0.4, 0.9)))
                pad = max(2, height // 20)
                table = [float(v) for v in rng.integers(30, 140, 3)]
                small = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                                           value=table)
                ok, jpeg = cv2.imencode(".jpg", small,
                                        [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
                yield f"small-{height}", code, cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


@contextmanager
def watching() -> Iterator[list[str]]:
    """Within the block, in this process, each stretched read ``read_face`` takes that the
    strictest agreement would not is appended (its card) to the list given; the reader
    reads as before, and ``vision.face.shape_agrees`` is its own again afterwards."""
    import vision.face as face_module
    from vision.settings import SHAPE_AGREEMENTS

    agrees = face_module.shape_agrees
    disputed: list[str] = []

    def spy(code: str, first: Any, agree: str | None = None) -> bool:
        taken = agrees(code, first, agree)
        if taken and not agrees(code, first, SHAPE_AGREEMENTS[-1]):
            disputed.append(code)
        return taken

    face_module.shape_agrees = spy
    try:
        yield disputed
    finally:
        face_module.shape_agrees = agrees


def _reads_of(job: tuple[str, list[Any]]) -> list[dict[str, Any]]:
    """Worker: each picture of one set, its card and what each agreement reads."""
    from vision.lab import render
    from vision.lab.face_rule import pictures
    from vision.reader import SHAPE_AGREEMENTS, CardReader

    kind, items = job
    render.art_styles(held_out=False)
    reader = CardReader()
    source = small_pictures(items) if kind == "small" else pictures(kind, items)
    rows = []
    with watching() as disputed:
        for _way, code, picture in source:
            reader.settings = dataclasses.replace(reader.settings, shape_agree="any")
            disputed.clear()
            found = reader.read_face(picture)
            row = {"set": kind, "pictured": code,
                   "any": None if found is None else found.code}
            for agree in SHAPE_AGREEMENTS[1:]:
                if disputed:
                    reader.settings = dataclasses.replace(reader.settings, shape_agree=agree)
                    again = reader.read_face(picture)
                    row[agree] = None if again is None else again.code
                else:
                    row[agree] = row["any"]
            rows.append(row)
    print(f"{kind}: {len(rows)} pictures", file=sys.stderr)
    return rows


def tally(rows: list[dict[str, Any]], agree: str) -> dict[str, int]:
    """Pictures read right, wrong and left unknown by ``agree``."""
    right = sum(r[agree] == r["pictured"] for r in rows)
    unknown = sum(r[agree] is None for r in rows)
    return {"right": right, "wrong": len(rows) - right - unknown, "unknown": unknown}


def choose(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The agreement with the fewest wrong reads of those losing at most
    ``RIGHT_LOST_PER_1000`` in 1000 of "any"'s right reads (of equals, the fewer lost)."""
    from vision.reader import SHAPE_AGREEMENTS

    counts = {agree: tally(rows, agree) for agree in SHAPE_AGREEMENTS}
    allowed = RIGHT_LOST_PER_1000 * counts["any"]["right"] / 1000.0
    fair = [a for a in SHAPE_AGREEMENTS if counts["any"]["right"] - counts[a]["right"] <= allowed]
    chosen = min(fair, key=lambda a: (counts[a]["wrong"], -counts[a]["right"]))
    return {"counts": counts, "right_lost_at_most": round(allowed, 2), "chosen": chosen}


def main(argv: list[str] | None = None) -> int:
    from vision.lab import decks
    from vision.lab.deck_rules import dev_designs
    from vision.lab.face_rule import picture_sets, rule_options
    from vision.reader import SHAPE_AGREEMENTS
    from vision.settings import shipped_settings

    shape_agree = shipped_settings().shape_agree
    p, args = rule_options(__doc__, OUT, argv)
    t0 = time.time()
    designs = dev_designs(decks.manifest_or_exit(p))
    sets = picture_sets() + [("small", designs[half::2]) for half in (0, 1)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [r for rs in pool.map(_reads_of, sets) for r in rs]
    picked = choose(rows)
    changed = [r for r in rows if len({r[a] for a in SHAPE_AGREEMENTS}) > 1]
    result = {
        "benchmark": "how a read of a picture of one card stretched to the other shape must "
                     "agree with its read as it is, chosen on pictures of the designs and "
                     "drawn styles trained on",
        "measured": time.strftime("%Y-%m-%d"),
        "pictures": len(rows), "small_heights": list(SMALL_HEIGHTS),
        "rule": picked, "in_use": shape_agree,
        "by_set": {kind: {a: tally([r for r in rows if r["set"] == kind], a)
                          for a in SHAPE_AGREEMENTS}
                   for kind in dict.fromkeys(r["set"] for r in rows)},
        "changed": dict(Counter(
            f"{r['pictured']}: " + " / ".join(str(r[a]) for a in SHAPE_AGREEMENTS)
            for r in changed).most_common()),
        "seconds": round(time.time() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(picked, indent=1))
    print(f"in use: {shape_agree}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
