"""Benchmark of the reader on pictures of one card each (``CardReader.read_face``).

A card photographed alone, or cut out of a photo and warped flat, is read by
``read_face`` (``belote-table vision eval`` on a ``DIR/<CARD>/`` folder, and deck
enrollment's pictures). Each picture's answer is right (its card; for a card that is
no belote card, 2 to 6, a back or a joker: no card), unknown (no card named, for a
belote card) or wrong (another card named, or a card named for one that is none).

Sets, each card face once:

1. The deck designs held out of training (``vision.lab.decks.HELD_OUT``), three ways:
   as printed (the cached art, 250 x 350), as a phone photo of it (smaller, 180 x 252,
   slightly blurred, JPEG quality 85) and as a phone photo flattened by a warp (500 x
   700, corners up to 3 % off, lit unevenly, noisy, blurred, JPEG 80): the 32 belote
   cards, the 2-6, the back and the joker.
2. The same designs with the indices of a French deck printed over theirs
   (``art-<design>-fr``: serif R/D/V, aces "1" or "A"), the three ways.
3. The designs trained on, the three ways (trained on: not a measure of a design never
   seen).
4. The real photos' ``cards/`` crops of the held-out bursts (``split_of``: ``test``).
5. ``crops``: each card a person could name in table frames of the held-out designs
   (``render_scene``, cards overlapping a little, the camera's faults, JPEG; seed 9881),
   cut out at its outline's bounding box and 5 % more, as a collection of photos cut per
   card gives them: its neighbours' indices often lie in the picture too. Read with each
   of ``read_face``'s choices among several cards read surely (``FACE_CHOICES``:
   "placed", shipped; "pairs_first", shipped before; "surest", before that).
6. ``spread_crops``: the same, each card a person could name in frames of the held-out
   designs' cards spread overlapping, a fan or a row (``render_spread_scene``, as
   ``spread.py`` draws them; seed 9883): cut out at its bounding box, such a card's
   picture is mostly the cards lying over it, one of them often whole.
7. ``black_decks``: the faces of ``lights.py``'s black decks (four drawn styles printed
   in one gold or silver ink on black paper), the three ways; ``black_crops``: their
   cards cut out of table frames (2 a style, seed 9885), as in 5.
8. ``index_fonts``: two drawn styles (``FONT_STYLES``: English K/Q/J and French R/D/V)
   with their indices printed in each face of the glyph atlases that no drawn style
   prints (``vision/lab/assets``; the shipped classifier never learnt them), the three
   ways: a maker's own index font.

Nothing here is tuned on. Prints the figures and writes ``benchmarks/card_faces.json``.

    .venv/bin/python benchmarks/card_faces.py [--model PATH] [--out FILE]
        [--only index_fonts]

``--only index_fonts`` reads set 8 alone (a candidate's index faces, in minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from scorer.cards import CARD_CODES  # noqa: E402
from vision.lab import decks, render  # noqa: E402
from vision.lab.black_decks import BLACK_BASES, INKS, black_style  # noqa: E402
from vision.lab.dataset import real_cards as real_cards_folder  # noqa: E402
from vision.lab.dataset import split_of, use_real_cards  # noqa: E402
from vision.lab.evaluate import design_styles  # noqa: E402
from vision.lab.pictures import WAYS, crop_pictures, face_pictures  # noqa: E402
from vision.reader import FACE_CHOICES, CardReader, load_image  # noqa: E402

OUT = ROOT / "benchmarks" / "card_faces.json"
CROPS_SEED = 9881
SPREAD_CROPS_SEED = 9883
BLACK_CROPS_SEED = 9885
FONT_STYLES = ("en-bicycle", "fr-grimaud")


class Answers:
    """Right, unknown and wrong answers, for belote cards and for the others."""

    def __init__(self) -> None:
        self.n: Counter[str] = Counter()
        self.wrong: Counter[str] = Counter()

    def add(self, truth: str, read: str | None) -> None:
        belote = truth in CARD_CODES
        kind = "belote" if belote else "not_belote"
        if read == (truth if belote else None):
            self.n[f"{kind}_right"] += 1
        elif read is None:
            self.n[f"{kind}_unknown"] += 1
        else:
            self.n[f"{kind}_wrong"] += 1
            self.wrong[f"{truth}->{read}"] += 1

    def figures(self) -> dict[str, Any]:
        b = sum(self.n[f"belote_{k}"] for k in ("right", "unknown", "wrong"))
        o = sum(self.n[f"not_belote_{k}"] for k in ("right", "wrong"))
        return {"belote_cards": b, "read_right": self.n["belote_right"],
                "unknown": self.n["belote_unknown"], "misread": self.n["belote_wrong"],
                "accuracy": round(self.n["belote_right"] / b, 4) if b else None,
                "other_faces": o, "other_named_a_card": self.n["not_belote_wrong"],
                "wrong": dict(self.wrong.most_common())}


def design_faces(reader: CardReader, designs: list[str], suffix: str = "") -> dict[str, Any]:
    """Each design's faces (``art-<design><suffix>``), each drawn once and read ``WAYS``."""
    return {"designs": designs,
            **style_faces(reader, [f"art-{design}{suffix}" for design in designs])}


def style_faces(reader: CardReader, styles: list[str]) -> dict[str, Any]:
    """Each style's faces, each drawn once and read ``WAYS``."""
    answers = {way: Answers() for way in WAYS}
    for way, code, picture in face_pictures(styles):
        found = reader.read_face(picture)
        answers[way].add(code, found.code if found else None)
    return {way: a.figures() for way, a in answers.items()}


def font_faces(reader: CardReader) -> dict[str, Any]:
    """``FONT_STYLES`` printed in each atlas face no drawn style uses: per face, and all."""
    used = {st.font for st in render.STYLES}
    fonts = [f for f in render.atlas_fonts() if f not in used]
    out: dict[str, Any] = {"styles": list(FONT_STYLES), "fonts": {}}
    for font in fonts:
        styles = []
        for name in FONT_STYLES:
            style = render.with_style(render.get_style(name), name=f"{name}+{font}", font=font)
            render.register_style(style)
            styles.append(style.name)
        out["fonts"][font] = style_faces(reader, styles)
    out["all"] = {way: {k: sum(f[way][k] for f in out["fonts"].values())
                        for k in ("belote_cards", "read_right", "unknown", "misread",
                                  "other_faces", "other_named_a_card")}
                  for way in WAYS}
    return out


def real_cards(reader: CardReader) -> dict[str, Any]:
    """The ``cards/`` crops of the real photos' held-out bursts."""
    answers = Answers()
    folder = real_cards_folder() / "cards"
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        for path in sorted(sub.iterdir()):
            if split_of(path.name) != "test":
                continue
            found = reader.read_face(load_image(path))
            answers.add(sub.name, found.code if found else None)
    return {"split": "test (bursts 4 and 5 of the session)", **answers.figures()}


def crops(reader: CardReader, designs: list[str], frames: int = 20,
          seed: int = CROPS_SEED, spread: bool = False,
          styles_of: Callable[[str], list[str]] = design_styles) -> dict[str, Any]:
    """:func:`crop_pictures`, read by ``read_face`` with each of its choices; the reader's
    choice is put back after."""
    answers = {choice: Answers() for choice in FACE_CHOICES}
    was = reader.settings
    try:
        for code, crop in crop_pictures(designs, frames, seed, spread, styles_of):
            for choice, got in answers.items():
                reader.settings = dataclasses.replace(was, face_choice=choice)
                found = reader.read_face(crop)
                got.add(code, found.code if found else None)
    finally:
        reader.settings = was
    return {"designs": designs, "frames_per_design": frames, "seed": seed,
            **{choice: a.figures() for choice, a in answers.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="classifier .onnx (default: the shipped model)")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--only", choices=("index_fonts",),
                   help="read this set alone (the JSON holds it alone)")
    p.add_argument("--real-cards", metavar="DIR",
                   help="the real photos' folder, as tests/data/real-cards (default: "
                        "$BELOTE_REAL_CARDS, else tests/data/real-cards)")
    args = p.parse_args(argv)
    try:
        use_real_cards(args.real_cards)
    except ValueError as e:
        p.error(str(e))
    if args.only and Path(args.out).resolve() == OUT.resolve():
        p.error("--only: give --out too (benchmarks/card_faces.json holds every set)")
    manifest = decks.manifest_or_exit(p)
    t0 = time.time()
    reader = CardReader(args.model)
    render.art_styles(held_out=None, french_art=True)
    head: dict[str, Any] = {"benchmark": "pictures of one card each, read by read_face",
                            "measured": time.strftime("%Y-%m-%d", time.gmtime()),
                            "model": args.model or "shipped"}
    if args.only:
        result = {**head, "index_fonts": font_faces(reader),
                  "seconds": round(time.time() - t0, 1)}
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
        _print_fonts(result)
        return 0
    held = list(manifest["held_out"])
    trained = [d for d in manifest["designs"] if d not in held]
    result = {
        **head,
        "held_out_designs": design_faces(reader, held),
        "held_out_designs_french_indices": design_faces(reader, held, "-fr"),
        "trained_designs": design_faces(reader, trained),
        "real_cards": real_cards(reader),
        "crops": crops(reader, held),
        "spread_crops": crops(reader, held, frames=10, seed=SPREAD_CROPS_SEED, spread=True)}
    blacks = [black_style(base, ink) for base in BLACK_BASES for ink in INKS]
    result["black_decks"] = {"styles": blacks, **style_faces(reader, blacks)}
    result["black_crops"] = crops(reader, blacks, frames=2, seed=BLACK_CROPS_SEED,
                                  styles_of=lambda style: [style])
    result["index_fonts"] = font_faces(reader)
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for key in ("held_out_designs", "held_out_designs_french_indices", "trained_designs",
                "black_decks"):
        for way in WAYS:
            f = result[key][way]
            print(f"{key}, {way}: {f['read_right']}/{f['belote_cards']} right, "
                  f"{f['misread']} misread, {f['other_named_a_card']} of {f['other_faces']} "
                  f"other faces named a card")
    _print_fonts(result)
    f = result["real_cards"]
    print(f"real cards/ crops (test): {f['read_right']}/{f['belote_cards']} right, "
          f"{f['misread']} misread")
    for kind, name in (("crops", "table frames"), ("spread_crops", "cards spread overlapping"),
                       ("black_crops", "black decks' table frames")):
        for key in FACE_CHOICES:
            f = result[kind][key]
            print(f"cards cut out of {name}, {key}: {f['read_right']}/{f['belote_cards']} "
                  f"right, {f['misread']} misread")
    return 0


def _print_fonts(result: dict[str, Any]) -> None:
    for way in WAYS:
        f = result["index_fonts"]["all"][way]
        wrong = {font: v[way]["wrong"] for font, v in result["index_fonts"]["fonts"].items()
                 if v[way]["wrong"]}
        print(f"index fonts never learnt, {way}: {f['read_right']}/{f['belote_cards']} right, "
              f"{f['misread']} misread, {f['other_named_a_card']} of {f['other_faces']} other "
              f"faces named a card; {wrong}")


if __name__ == "__main__":
    sys.exit(main())
