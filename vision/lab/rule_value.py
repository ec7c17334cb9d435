"""What each of the reader's rules adds: each switched off in turn (its settings changed in
the reader's record, or its function replaced) and the cards read right and wrong counted
against the reader as it ships, on frames and pictures no figure of the model card reports:

* ``held``: the held-out designs' frames at each design's seed + 1 (the frames
  ``benchmarks/real_decks.py --choose 1`` reads), colour and grey;
* ``lamp``: the first half of those colour frames lit warm and red (``lights.lit``);
* ``black``: black decks (``lights.py``'s four styles, gold and silver ink), seeds 69851...;
* ``spread``: spread cards of the held-out designs (``--spread`` frames, seed 29961);
* ``photos``: the real photos' test part;
* ``faces``: one-card pictures of the held-out designs (cards cut out of table frames,
  seeds 9891 and 9893, and their drawn faces, seed 9879) and the test part's ``cards/``
  crops; ``black_faces``: black decks' drawn faces, printed and as a photo (seed 9889).

Prints one line a rule and writes ``--out`` (JSON): per set, ``[cards, right, wrong]``.
The model card lists what each rule adds (``vision/models/README.md``, "Reader rules").

    .venv/bin/python -m vision.lab.rule_value [--frames 20] [--spread 60] [--rules a,b]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
Frames = list[tuple[np.ndarray, set[str], set[str]]]
Faces = list[tuple[str, np.ndarray]]


def rules(reader: Any) -> dict[str, tuple[str, Callable[[], AbstractContextManager[Any]]]]:
    """Each rule's name: the kind of input it reads (``frames`` or ``faces``), and how it
    is switched off."""
    import vision.face
    import vision.frame
    from vision.lab.rule_cases import setting, tuned
    from vision.reader import CardReader

    inf = float("inf")
    join: Callable[..., Any] = vision.frame.join_reads  # type: ignore[attr-defined]

    def no_pair(*args: Any, **kwargs: Any) -> Any:
        """The join with two doubtful boxes never naming a card together."""
        kwargs.pop("suit_exponents", None)
        kwargs.pop("pair_exponent", None)
        return join(*args[:5], 1e-9, **kwargs)

    def once(reader_: Any, image: np.ndarray) -> Any:
        return vision.face._read_face_once(reader_, image)

    return {
        "crowd": ("frames", lambda: tuned(reader, crowd_least=10**9)),
        "sharpen": ("frames", lambda: tuned(reader, sharpen_length=inf)),
        "sharpen_agree": ("frames", lambda: tuned(reader, sharpen_agree="any")),
        "black": ("frames", lambda: tuned(reader, dark_least=10**9)),
        "black_by_named": ("frames", lambda: tuned(reader, named_dark_share=inf)),
        "negative_spade": ("frames", lambda: tuned(
            reader, negative_spade_pair_exponent=reader.classifier.pair_exponent(True))),
        "pair": ("frames", lambda: setting(vision.frame, "join_reads", no_pair)),
        "face_pair": ("faces", lambda: tuned(reader, face_pair_accept=inf)),
        "face_shape": ("faces", lambda: setting(vision.face, "_read_face_shapes", once)),
        "face_large": ("faces", lambda: tuned(reader, face_large=inf)),
        "face_placed": ("faces", lambda: tuned(reader, face_choice="surest")),
        "face_doubt_nearer": ("faces", lambda: tuned(reader, face_doubt_nearer=inf)),
        "face_corner_model": ("faces", lambda: setting(CardReader, "corner_reader",
                                                        lambda self: None)),
    }


#: ``lights.py``'s lamps: the blue and green gains (low, high) of a warm and a red light.
LIGHTS = {"warm": ((0.45, 0.7), (0.7, 0.85)), "red": ((0.25, 0.45), (0.45, 0.6))}


def _lit(frame: np.ndarray, light: str, rng: np.random.Generator) -> np.ndarray:
    """``frame`` (BGR) under a ``LIGHTS`` light: blue and green fall, red stays."""
    (b0, b1), (g0, g1) = LIGHTS[light]
    gain = np.array([rng.uniform(b0, b1), rng.uniform(g0, g1), 1.0], np.float32)
    out: np.ndarray = np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return out


def frame_sets(frames: int, spread: int) -> dict[str, Frames]:
    from scorer.cards import CARD_CODES
    from vision.lab import decks, render
    from vision.lab.black_decks import BLACK_BASES, INKS, black_style
    from vision.lab.dataset import real_cards, split_of
    from vision.lab.evaluate import (
        as_saved,
        cards_in_sight,
        design_frames,
        design_styles,
        load_labels,
    )

    render.art_styles(held_out=None, french_art=True)
    manifest = decks.load_manifest() or {"held_out": []}
    held_out = [d for d in decks.BENCH_DESIGNS if d in manifest["held_out"]]
    rng = np.random.default_rng(9842)
    sets: dict[str, Frames] = {"held": [], "lamp": [], "black": [], "spread": [], "photos": []}
    for design in held_out:
        seed = 9701 + decks.BENCH_DESIGNS.index(design) + 1  # real_decks.py --choose 1
        got = design_frames(design_styles(design), frames, seed)
        for k, (frame, readable, present) in enumerate(got):
            grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
            sets["held"] += [(frame, readable, present), (grey, readable, present)]
            if k < frames // 2:
                sets["lamp"] += [(_lit(frame, light, rng), readable, present)
                                 for light in LIGHTS]
    for ink in INKS:
        for k, base in enumerate(BLACK_BASES):
            sets["black"] += list(design_frames([black_style(base, ink)], max(frames // 5, 2),
                                                69851 + 10 * k))
    styles = [s for d in held_out for s in design_styles(d)]
    spread_rng = np.random.default_rng(29961)
    for i in range(spread):
        frame, things = render.render_spread_scene(spread_rng, style=styles[i % len(styles)])
        sets["spread"].append((as_saved(frame), *cards_in_sight(things)))
    belote = set(CARD_CODES)
    photos = real_cards() / "scenes"
    labels, _ = load_labels(photos, ROOT / "vision/lab/real_label_fixes.json")
    for name in sorted(labels):
        if split_of(name) == "test" and (photos / name).is_file():
            truth = {c for c in labels[name] if c in belote}
            sets["photos"].append((cv2.imread(str(photos / name)), truth, truth))
    return sets


def face_sets(frames: int) -> dict[str, Faces]:
    from vision.imagefile import load_image
    from vision.lab import decks
    from vision.lab.black_decks import BLACK_BASES, INKS, black_style
    from vision.lab.dataset import real_cards, split_of
    from vision.lab.pictures import crop_pictures, face_pictures

    manifest = decks.load_manifest() or {"held_out": []}
    held_out = [d for d in decks.BENCH_DESIGNS if d in manifest["held_out"]]
    faces: Faces = list(crop_pictures(held_out, max(frames // 5, 2), 9891))
    faces += list(crop_pictures(held_out, max(frames // 10, 1), 9893, spread=True))
    faces += [(c, x) for _, c, x in face_pictures([f"art-{d}" for d in held_out], 9879)]
    faces += [(p.parent.name, load_image(p)) for p in sorted((real_cards() / "cards").rglob("*"))
              if p.is_file() and split_of(p.name) == "test"]
    black = [black_style(b, i) for b in BLACK_BASES for i in INKS]
    black_faces = [(c, x) for way, c, x in face_pictures(black, 9889) if way != "flattened"]
    return {"faces": faces, "black_faces": black_faces}


def count_frames(reader: Any, frames: Frames) -> list[int]:
    cards = right = wrong = 0
    for frame, readable, present in frames:
        read = {d.code for d in reader.read(frame) if d.code is not None}
        cards += len(readable)
        right += len(read & readable)
        wrong += len(read - present)
    return [cards, right, wrong]


def count_faces(reader: Any, faces: Faces) -> list[int]:
    from scorer.cards import CARD_CODES

    cards = right = wrong = 0
    for code, picture in faces:
        found = reader.read_face(picture)
        got = found.code if found else None
        expected = code if code in CARD_CODES else None
        cards += expected is not None
        right += expected is not None and got == expected
        wrong += got is not None and got != expected
    return [cards, right, wrong]


def main(argv: list[str] | None = None) -> int:
    from vision.reader import CardReader

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=20, help="frames per held-out design")
    p.add_argument("--spread", type=int, default=60, help="spread frames in all")
    p.add_argument("--rules", default="", help="comma-separated rules (default: all)")
    p.add_argument("--out", default="rule_value.json")
    args = p.parse_args(argv)
    reader = CardReader(threads=1)
    table = rules(reader)
    wanted = [r for r in args.rules.split(",") if r] or list(table)
    unknown = sorted(set(wanted) - set(table))
    if unknown:
        p.error(f"--rules: unknown {', '.join(unknown)} (of {', '.join(table)})")
    kinds = {table[r][0] for r in wanted}
    frames = frame_sets(args.frames, args.spread) if "frames" in kinds else {}
    faces = face_sets(args.frames) if "faces" in kinds else {}
    result: dict[str, Any] = {}
    for name, (kind, off) in [("base", ("all", nullcontext)), *[(r, table[r]) for r in wanted]]:
        t0 = time.time()
        with off():
            row: dict[str, Any] = {}
            if kind in ("all", "frames"):
                row.update({k: count_frames(reader, v) for k, v in frames.items()})
            if kind in ("all", "faces"):
                row.update({k: count_faces(reader, v) for k, v in faces.items()})
        row["seconds"] = round(time.time() - t0)
        result[name] = row
        print(name, json.dumps(row), flush=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
