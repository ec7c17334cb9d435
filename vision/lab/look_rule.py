"""How much a box's first read counts beside its second look, chosen on the training
designs' frames.

A box the first read is unsure of gets a second look (``vision.reader.CardReader``): the
index cut again closer up, several ways. Until this rule the look alone decided. When
both guess the same card, ``vision.reader.fuse_look`` raises that card's chance to
``1 - ((1 - p_first) * (1 - p_look)) ** exponent``: at exponent 1 the two as independent
readings, which they are not (one index, cut two ways), so the exponent is chosen as
``vision.lab.pair_rule`` chooses the grey pair exponent. This reads ``--frames`` frames
of each training design (``vision.lab.deck_rules.dev_designs``: never the held-out
designs of ``benchmarks/real_decks.py``; seeds 6300 + 17 k, none of the benchmarks'), in
colour and turned grey, with the shipped reader and the look alone, keeps each frame's
first reads and looks, and reads the frame's boxes again at every exponent of a grid.
For each it counts the cards named that the look alone did not name: those a person
could read (``right``) and those not in the frame (``wrong``). Kept, for colour frames
and for grey ones apart: the loosest exponent (largest) on the grid that named no wrong
card; ``--write`` stores them in the classifier's JSON (``second_look.look_exponent``,
``grey.look_exponent``).

    .venv/bin/python -m vision.lab.look_rule [--frames 96] [--jobs 2] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision import reader as _reader

# The reader's own, kept before ``record_reads`` wraps them.
_FUSE_LOOK = _reader.fuse_look
_JOIN_READS = _reader.join_reads

ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "benchmarks" / "look_rule.json"
SEED = 6300
GRID = tuple(round(1.0 - 0.05 * k, 2) for k in range(11))  # 1.00, 0.95 ... 0.50
MODES = ("colour", "grey")

# One join of a frame's boxes: (boxes, probabilities, thresholds, classes, none's index,
# pair exponent, read at the grey thresholds, the rows given a look, their first reads,
# their looks).
Join = tuple[list[Any], np.ndarray, np.ndarray, list[str], int, float, bool, np.ndarray,
             np.ndarray, np.ndarray]


def record_reads() -> list[Join]:
    """Wrap ``vision.reader.fuse_look`` and ``join_reads`` (and the classifier's
    ``look_exponent``, which says whether the frame is read at the grey thresholds) in
    this process so that each join the reader makes appends its box reads, and the first
    reads and looks of the boxes given a look, to the list returned. The reader reads
    with the look alone."""
    import vision.reader as reader_module
    from vision.classify import CardClassifier

    join = _JOIN_READS
    seen: list[Join] = []
    pending: list[tuple[bool, np.ndarray, np.ndarray]] = []
    greys: list[bool] = []

    def exponent_spy(self, grey=False):
        greys.append(bool(grey))
        return None

    def fuse_spy(first, looked, none_index, exponent):
        pending.append((greys[-1] if greys else False, np.array(first, copy=True),
                        np.array(looked, copy=True)))
        return np.array(looked, copy=True)

    def join_spy(boxes, probs, thresholds, classes, none_index, pair_exponent=1.0):
        grey, first, looked = (pending.pop() if pending
                               else (False, np.zeros((0, probs.shape[1])),
                                     np.zeros((0, probs.shape[1]))))
        pending.clear()
        greys.clear()
        # The rows given a look hold the look's probabilities as they are (looked alone).
        rows = np.array([int(np.nonzero((probs == row).all(axis=1))[0][0]) for row in looked],
                        dtype=int)
        seen.append((list(boxes), probs.copy(), thresholds.copy(), list(classes), none_index,
                     float(pair_exponent), grey, rows, first, looked))
        return join(boxes, probs, thresholds, classes, none_index, pair_exponent)

    CardClassifier.look_exponent = exponent_spy  # type: ignore[method-assign]
    reader_module.fuse_look = fuse_spy
    reader_module.join_reads = join_spy
    return seen


def named(joins: list[Join], exponent: float | None, grey: bool) -> set[str]:
    """The cards the frame's joins name when each look read at the grey thresholds
    (``grey``) or at the colour ones (not ``grey``) is fused with its first read at
    ``exponent`` (None: the look alone); the other looks alone."""
    out: set[str] = set()
    for boxes, probs, thresholds, classes, none_index, pair, at_grey, rows, first, looked \
            in joins:
        p = probs.copy()
        if len(rows):
            p[rows] = _FUSE_LOOK(first, looked, none_index,
                                 exponent if at_grey == grey else None)
        out |= {d.code for d in _JOIN_READS(boxes, p, thresholds, classes, none_index, pair)
                if d.code is not None}
    return out


def count(frames: list[tuple[list[Join], set[str], set[str]]], exponent: float, grey: bool
          ) -> dict[str, int]:
    """Cards named with the looks of one kind (``grey`` or colour) fused at ``exponent``
    and not by the look alone, over ``frames`` (joins, cards a person could read, cards in
    the frame): right and wrong; and the cards the look alone named that are no longer
    named (``lost``)."""
    out = {"right": 0, "wrong": 0, "lost": 0}
    for joins, readable, present in frames:
        before = named(joins, None, grey)
        after = named(joins, exponent, grey)
        for code in after - before:
            if code in readable:
                out["right"] += 1
            elif code not in present:
                out["wrong"] += 1
        out["lost"] += len(before - after)
    return out


def loosest(grid: dict[float, dict[str, int]]) -> float | None:
    """The largest exponent that named no wrong card, None if every one did."""
    clean = [e for e, c in grid.items() if c["wrong"] == 0]
    return max(clean) if clean else None


def _design(job: tuple[int, str, int]) -> dict[str, dict[float, dict[str, int]]]:
    import cv2

    from vision.lab import render
    from vision.lab.evaluate import design_frames, design_styles
    from vision.reader import CardReader

    k, design, n = job
    render.art_styles(held_out=None, french_art=True)
    seen = record_reads()
    reader = CardReader()
    frames: list[tuple[list[Join], set[str], set[str]]] = []
    for frame, readable, present in design_frames(design_styles(design), n, SEED + 17 * k):
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        for picture in (frame, grey):
            seen.clear()
            reader.read(picture)
            frames.append((list(seen), set(readable), set(present)))
    # A colour frame lit by a coloured lamp is read at the grey thresholds: its looks count
    # with the grey frames'.
    return {mode: {e: count(frames, e, mode == "grey") for e in GRID} for mode in MODES}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from vision.classify import DEFAULT_MODEL
    from vision.lab.deck_rules import dev_design_options, dev_record, over_dev_designs

    dev_design_options(p, 96, OUT)
    p.add_argument("--write", action="store_true",
                   help="store the exponents in the shipped classifier's JSON")
    args = p.parse_args(argv)
    meta_path = DEFAULT_MODEL.with_suffix(".json")
    if args.write and (json.loads(meta_path.read_text()).get("second_look") is None):
        p.error(f"{meta_path}: the model has no second look")
    t0 = time.time()
    designs, per = over_dev_designs(p, _design, args.frames, args.jobs)
    result = dev_record("cards named when a box's first read counts beside its second look, "
                        "right and wrong, at each exponent, on the training designs' frames",
                        designs, args.frames, SEED)
    chosen: dict[str, float | None] = {}
    for mode in MODES:
        grid = {e: {key: sum(d[mode][e][key] for d in per) for key in ("right", "wrong", "lost")}
                for e in GRID}
        result[mode] = {f"{e:.2f}": c for e, c in grid.items()}
        for e, c in grid.items():
            print(f"{mode} exponent {e:.2f}: {c['right']} right, {c['wrong']} wrong, "
                  f"{c['lost']} lost")
        chosen[mode] = loosest(grid)
        print(f"{mode} frames: exponent {chosen[mode]} (the loosest naming no wrong card)")
    result["exponents"] = chosen
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    if args.write:
        meta = json.loads(meta_path.read_text())
        for mode, entry in (("colour", meta["second_look"]), ("grey", meta.get("grey"))):
            if entry is None:
                continue
            if chosen[mode] is None:
                entry.pop("look_exponent", None)  # every exponent named a wrong card
            else:
                entry["look_exponent"] = chosen[mode]
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        print(f"written to {meta_path}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
