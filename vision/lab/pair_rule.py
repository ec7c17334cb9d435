"""How much a card's two doubtful indices count together on grey frames, chosen on the
training designs' frames.

``vision.reader.join_reads`` names a card from two doubtful boxes guessing it, a card's
two indices apart, when ``((1 - p1) * (1 - p2)) ** exponent`` is within their threshold.
At exponent 1 the two are counted as independent readings; they are not (one card's two
indices are printed and lit alike), and on grey frames, where the suit is told by its
shape alone, pairs named wrong cards (``benchmarks/misreads.json``). This reads
``--frames`` frames of each training design (``vision.lab.deck_rules.dev_designs``:
never the held-out designs of ``benchmarks/real_decks.py``; seeds 6100 + 17 k, none of
the benchmarks') in colour and turned grey with the shipped reader, keeps each frame's
box reads, and joins them again at every exponent of a grid. For each it counts the
cards named by a pair that a person could read (``right``) and those not in the frame
(``wrong``). The grey exponent kept is the loosest (largest) on the grid that named no
wrong card; ``--write`` stores it in the classifier's JSON (``grey.pair_exponent``).
Colour frames keep exponent 1: their target is a precision (0.98), not "never
misread", and their figures are written beside for the record.

    .venv/bin/python -m vision.lab.pair_rule [--frames 96] [--jobs 2] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "benchmarks" / "pair_rule.json"
SEED = 6100
GRID = tuple(round(1.0 - 0.05 * k, 2) for k in range(11))  # 1.00, 0.95 ... 0.50
MODES = ("colour", "grey")


def pair_named(reads: tuple[Any, ...], exponent: float) -> set[str]:
    """The cards ``join_reads`` names from two doubtful boxes at ``exponent``, given one
    frame's box reads (boxes, probabilities, thresholds, classes, none's index)."""
    from vision.reader import join_reads, sort_reads

    boxes, probs, thresholds, classes, none_index = reads
    sure, _ = sort_reads(boxes, probs, thresholds, classes, none_index)
    return {d.code for d in join_reads(boxes, probs, thresholds, classes, none_index,
                                       pair_exponent=exponent)
            if d.code is not None and d.code not in sure}


def count(frames: list[tuple[tuple[Any, ...], set[str], set[str]]], exponent: float
          ) -> dict[str, int]:
    """Cards named by pairs at ``exponent`` over ``frames`` (box reads, cards a person
    could read, cards in the frame): right (readable) and wrong (not in the frame)."""
    out = {"right": 0, "wrong": 0}
    for reads, readable, present in frames:
        for code in pair_named(reads, exponent):
            if code in readable:
                out["right"] += 1
            elif code not in present:
                out["wrong"] += 1
    return out


def loosest(grid: dict[float, dict[str, int]]) -> float | None:
    """The largest exponent whose pairs named no wrong card, None if every one did."""
    clean = [e for e, c in grid.items() if c["wrong"] == 0]
    return max(clean) if clean else None


def record_box_reads() -> list[tuple[Any, ...]]:
    """Wrap ``join_reads`` where the frame reader calls it (``vision.frame``), in this
    process, so that each frame the reader reads appends its box reads (boxes,
    probabilities, thresholds, classes, none's index) to the list returned; the reader
    reads as before."""
    import vision.frame as reader_module

    join = reader_module.join_reads  # type: ignore[attr-defined]
    seen: list[tuple[Any, ...]] = []

    def spy(boxes, probs, thresholds, classes, none_index, *args, **kwargs):
        seen.append((list(boxes), probs.copy(), thresholds.copy(), list(classes), none_index))
        return join(boxes, probs, thresholds, classes, none_index, *args, **kwargs)

    reader_module.join_reads = spy  # type: ignore[attr-defined]
    return seen


def _design(job: tuple[int, str, int]) -> dict[str, dict[float, dict[str, int]]]:
    import cv2

    from vision.lab import render
    from vision.lab.evaluate import design_frames, design_styles
    from vision.reader import CardReader

    k, design, n = job
    render.art_styles(held_out=None, french_art=True)
    seen = record_box_reads()
    reader = CardReader()
    frames: dict[str, list[tuple[tuple[Any, ...], set[str], set[str]]]] = {m: [] for m in MODES}
    for frame, readable, present in design_frames(design_styles(design), n, SEED + 17 * k):
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        for mode, picture in zip(MODES, (frame, grey), strict=True):
            seen.clear()
            reader.read(picture)
            if seen:
                frames[mode].append((seen[-1], set(readable), set(present)))
    return {mode: {e: count(frames[mode], e) for e in GRID} for mode in MODES}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from vision.classify import DEFAULT_MODEL
    from vision.lab.deck_rules import dev_design_options, dev_record, over_dev_designs

    dev_design_options(p, 96, OUT)
    p.add_argument("--write", action="store_true",
                   help="store the grey exponent in the shipped classifier's JSON")
    args = p.parse_args(argv)
    t0 = time.time()
    designs, per = over_dev_designs(p, _design, args.frames, args.jobs)
    result = dev_record("cards named by two doubtful indices joined, right and wrong, at each "
                        "exponent of the pair rule, on the training designs' frames",
                        designs, args.frames, SEED)
    for mode in MODES:
        grid = {e: {key: sum(d[mode][e][key] for d in per) for key in ("right", "wrong")}
                for e in GRID}
        result[mode] = {f"{e:.2f}": c for e, c in grid.items()}
        for e, c in grid.items():
            print(f"{mode} exponent {e:.2f}: {c['right']} right, {c['wrong']} wrong")
        if mode == "grey":
            result["grey_exponent"] = loosest(grid)
    chosen = result["grey_exponent"]
    print(f"grey frames: exponent {chosen} (the loosest naming no wrong card)")
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    if args.write:
        if chosen is None:
            p.error("every exponent on the grid named a wrong card: nothing written")
        meta_path = DEFAULT_MODEL.with_suffix(".json")
        meta = json.loads(meta_path.read_text())
        meta.setdefault("grey", {})["pair_exponent"] = chosen
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        print(f"written to {meta_path}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
