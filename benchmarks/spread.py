"""Benchmark of the card reader on cards spread overlapping: a fan, or a row.

A player shows cards spread face up (a fan turned about a point below them, or a
row, each card shifted along the last one's width); a photo of a hand laid down
looks the same. Only a strip of each card shows, with one of its corner indices:
the indices lie close together, each beside the next card's edge.
``vision.lab.render.render_spread_scene`` draws 3-7 such cards, and 0-2 lying apart,
with the renderer's camera faults; the frames are saved and read back as JPEG.

Sets (seeds never used by training; 40 frames each by default):

* ``first_styles``: the ten drawn styles, in turn (seed 9951);
* ``held_out_designs``: the four deck designs never trained on
  (``vision.lab.decks.HELD_OUT``), bridge and piquet size in turn (seeds 9961...);
* ``paris_french``: the Paris-pattern art printed as a French deck (seed 9971);
* ``full_deck``, apart from the total: hands drawn from a 52-card deck, as another game
  is played (``render_spread_scene(full_deck=True)``): the 2s to 6s among the cards are
  no belote card, and naming one as a belote card is inventing it. The first styles
  (seed 9981) and the four held-out designs (seeds 9991...).

Each frame is read as ``run`` reads the camera's frames (the figures at each set's top
level), and as a still picture (``vision read``, ``vision eval``: ``CardReader(still=True)``)
two ways (``STILL_WAYS``): ``still``, as now, the first level's box of an index that gave
way to the finer level's read too; ``still_one_box``, one box an index, as up to commit
4ce624e. A card counts when a person could name it (the renderer's ``readable``); a card
named that is not in the frame is invented. Prints the figures and writes them to
``benchmarks/spread.json``.

``--dev`` reads instead the frames the reader's rules for crowded indices were chosen
on (the reader settings' ``crowd_span`` and the rest), never a figure of merit: the drawn
styles (seed 19951) and the designs trained on (seed 19952, no held-out design, no
Paris art), 120 frames each by default, with the crowded pass and without it; written
under ``dev`` in ``benchmarks/spread.json``.

    .venv/bin/python benchmarks/spread.py [--frames 40] [--model PATH] [--out FILE]
    .venv/bin/python benchmarks/spread.py --dev [--frames 120]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks import write_figures  # noqa: E402
from vision.lab import decks, render  # noqa: E402
from vision.lab.evaluate import as_saved, cards_in_sight, design_styles  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "spread.json"
# The ways a frame is read as a still picture (``vision read``, ``vision eval``): as now,
# the first level's box of an index that gave way to the finer level's read too
# (``IndexDetector.both_levels``); and one box an index, as up to commit 4ce624e.
STILL_WAYS = {"still": True, "still_one_box": False}


def spread_frames(styles: list[Any], n: int, seed: int, full_deck: bool = False):
    """``n`` spread frames of ``styles`` in turn, saved and read back as JPEG; yields
    ``(frame, readable, present)`` (see ``cards_in_sight``)."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        frame, things = render.render_spread_scene(rng, style=styles[i % len(styles)],
                                                   full_deck=full_deck)
        yield (as_saved(frame), *cards_in_sight(things))


def figures(cards: int, read: int, invented: int) -> dict[str, Any]:
    """Cards a person could name, read right and invented, with recall and precision."""
    return {"cards": cards, "read": read, "invented": invented,
            "recall": round(read / cards, 4) if cards else None,
            "precision": round(read / (read + invented), 4) if read + invented else None}


def measure(reader: CardReader, styles: list[Any], n: int, seed: int,
            still: CardReader | None = None, full_deck: bool = False) -> dict[str, Any]:
    """The frames read by ``reader`` (as ``run`` reads the camera's); with ``still`` (a
    ``CardReader(still=True)``), read as still pictures too (``STILL_WAYS``); with
    ``full_deck``, hands drawn from a 52-card deck."""
    # Each way: its reader, and the still reader's ``both_levels`` (None: as it is).
    ways: dict[str, tuple[CardReader, bool | None]] = {"camera": (reader, None)}
    if still is not None:
        ways |= {way: (still, both) for way, both in STILL_WAYS.items()}
    tallies = {way: [0, 0, 0] for way in ways}  # cards, read, invented
    detector = still.detector if still is not None else None
    was = detector.both_levels if detector is not None else True
    try:
        for frame, readable, present in spread_frames(styles, n, seed, full_deck):
            for way, (r, both) in ways.items():
                if both is not None and detector is not None:
                    detector.both_levels = both
                named = {d.code for d in r.read(frame) if d.code is not None}
                tally = tallies[way]
                tally[0] += len(readable)
                tally[1] += len(named & readable)
                tally[2] += len(named - present)
    finally:
        if detector is not None:
            detector.both_levels = was
    return {"frames": n, "seed": seed, **figures(*tallies.pop("camera")),
            **{way: figures(*t) for way, t in tallies.items()}}


def total(sets: list[dict[str, Any]]) -> dict[str, Any]:
    """The sets' figures added up, each way they were read."""
    out = figures(*(sum(s[k] for s in sets) for k in ("cards", "read", "invented")))
    for way in STILL_WAYS:
        out[way] = figures(*(sum(s[way][k] for s in sets) for k in ("cards", "read", "invented")))
    return out


def dev(reader: CardReader, manifest: dict[str, Any], n: int, out: str | None, t0: float
        ) -> int:
    """The dev frames (see the module's text), read with the crowded pass and without."""
    trained = [d for d in manifest["designs"] if d not in decks.BENCH_DESIGNS]
    sets = {"first_styles": (list(render.STYLES), 19951),
            "trained_designs": ([f"art-{d}" for d in trained], 19952)}
    result: dict[str, Any] = {
        "benchmark": "cards spread overlapping: the dev frames the crowded pass was chosen on",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()), "frames_per_set": n}
    assert reader.frames is not None
    crowded = reader.frames.crowded_boxes
    for mode in ("crowded_pass", "without"):
        if mode == "without":
            reader.frames.crowded_boxes = (  # type: ignore[method-assign]
                lambda gray, boxes, cards=None: [])
        result[mode] = {name: measure(reader, styles, n, seed)
                        for name, (styles, seed) in sets.items()}
        result[mode]["total"] = figures(*(sum(s[k] for s in result[mode].values())
                                          for k in ("cards", "read", "invented")))
        print(f"{mode}: {json.dumps(result[mode]['total'])}", flush=True)
    reader.frames.crowded_boxes = crowded  # type: ignore[method-assign]
    result["seconds"] = round(time.time() - t0, 1)
    print(f"written to {write_figures(out, OUT, result, part='dev')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, help="frames per set (40; --dev: 120)")
    p.add_argument("--model", help="classifier .onnx (default: the shipped model)")
    p.add_argument("--detector", help="index detector .onnx (default: the model's own)")
    p.add_argument("--dev", action="store_true",
                   help="the frames the crowded pass was chosen on, with it and without")
    p.add_argument("--out", help="the figures alone to this file (default: "
                                 "benchmarks/spread.json, --dev's under dev)")
    args = p.parse_args(argv)
    if args.frames is None:
        args.frames = 120 if args.dev else 40
    if args.frames < 1:
        p.error("--frames: expected a whole number from 1")
    manifest = decks.manifest_or_exit(p)
    t0 = time.time()
    reader = CardReader(args.model)
    still = CardReader(args.model, still=True)
    if args.detector:
        from vision.classify import STILL_FINEST, IndexDetector

        meta = reader.classifier.meta
        reader.detector, still.detector = (
            IndexDetector(Path(args.detector), heat_threshold=float(meta["heat_threshold"]),
                          stride=int(meta["stride"])) for _ in range(2))
        still.detector.finest = STILL_FINEST
    render.art_styles(held_out=None, french_art=True)
    if args.dev:
        return dev(reader, manifest, args.frames, args.out, t0)
    result: dict[str, Any] = {
        "benchmark": "cards spread overlapping (a fan or a row), one index of each showing",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": args.model or "shipped", "detector": args.detector or "shipped"}
    result["first_styles"] = measure(reader, list(render.STYLES), args.frames, 9951, still)
    print(f"first styles: {json.dumps(result['first_styles'])}", flush=True)
    held = [d for d in decks.HELD_OUT if d in manifest["held_out"]]
    result["held_out_designs"] = {}
    for k, design in enumerate(held):
        styles = design_styles(design)
        result["held_out_designs"][design] = measure(reader, styles, args.frames, 9961 + k,
                                                     still)
        print(f"{design}: {json.dumps(result['held_out_designs'][design])}", flush=True)
    styles = [f"art-{d}-fr" for d in decks.PARIS_ART if d in manifest["designs"]]
    result["paris_french"] = measure(reader, styles, args.frames, 9971, still)
    print(f"Paris art, French indices: {json.dumps(result['paris_french'])}", flush=True)
    sets = [result["first_styles"], *result["held_out_designs"].values(),
            result["paris_french"]]
    result["total"] = total(sets)
    print(f"all: {json.dumps(result['total'])}", flush=True)
    full = {"first_styles": measure(reader, list(render.STYLES), args.frames, 9981, still,
                                    full_deck=True)}
    for k, design in enumerate(held):
        full[design] = measure(reader, design_styles(design), args.frames, 9991 + k, still,
                               full_deck=True)
    full["total"] = total(list(full.values()))
    result["full_deck"] = full
    print(f"hands of a 52-card deck: {json.dumps(full['total'])}", flush=True)
    result["seconds"] = round(time.time() - t0, 1)
    print(f"written to {write_figures(args.out, OUT, result, parts=('dev',))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
