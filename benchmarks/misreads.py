"""Where the reader's misreads come from, on the deck designs it was trained on.

A card is named one of two ways (``vision.reader.join_reads``): by an index box read
surely (``sure``), or by two doubtful boxes a card's two indices apart that guess the same
card, their chances joined by the pair rule (``pair``; on grey frames at the model's
``pair_exponent``, ``vision.lab.pair_rule``). This reads the
training designs' frames (``vision.lab.deck_rules.dev_designs``: never the held-out
designs that ``benchmarks/real_decks.py`` reports; ``--frames`` frames of each, seeds
8300 + 17 k, none of the other benchmarks'), in colour and turned grey, and counts for
each way the cards named that a person could read (``right``) and those not in the frame
(``wrong``); a card in the frame that a person could not read counts in neither. The
reader is the shipped one; only ``join_reads`` is wrapped, in this process, to see each
frame's box reads. Nothing here is tuned on. Prints the figures and writes
``benchmarks/misreads.json``.

    .venv/bin/python benchmarks/misreads.py [--frames 48] [--jobs 2] [--out FILE]
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

OUT = ROOT / "benchmarks" / "misreads.json"
SEED = 8300
WAYS = ("sure", "pair")


def way_named(code: str, reads: list[tuple[str, float, float]]) -> str:
    """How ``code`` was named, from the frame's box reads (likeliest class, its chance,
    the box's threshold): ``sure`` when one of its boxes reached its threshold, else
    ``pair`` (two doubtful boxes joined)."""
    return "sure" if any(c == code and p >= t for c, p, t in reads) else "pair"


def tally(named: list[tuple[str, str]], readable: set[str], present: set[str]
          ) -> dict[str, dict[str, int]]:
    """Per way, the cards named right (a person could read them) and wrong (not in the
    frame); ``named``: (code, way) of each card the reader named."""
    out = {w: {"right": 0, "wrong": 0} for w in WAYS}
    for code, way in named:
        if code in readable:
            out[way]["right"] += 1
        elif code not in present:
            out[way]["wrong"] += 1
    return out


def _design(job: tuple[int, str, int]) -> dict[str, Any]:
    import cv2

    from vision.lab import render
    from vision.lab.evaluate import design_frames, design_styles
    from vision.lab.pair_rule import record_box_reads
    from vision.reader import CardReader

    k, design, n = job
    render.art_styles(held_out=None, french_art=True)
    seen = record_box_reads()
    reader = CardReader()
    out: dict[str, Any] = {mode: {w: {"right": 0, "wrong": 0} for w in WAYS}
                           for mode in ("colour", "grey")}
    out["cards"] = 0
    for frame, readable, present in design_frames(design_styles(design), n, SEED + 17 * k):
        out["cards"] += len(readable)
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        for mode, picture in (("colour", frame), ("grey", grey)):
            seen.clear()
            found = [d.code for d in reader.read(picture) if d.code is not None]
            reads = [(classes[int(p.argmax())], float(p.max()), float(t))
                     for _, probs, thresholds, classes, _ in seen[-1:]
                     for p, t in zip(probs, thresholds, strict=True)]
            named = [(code, way_named(code, reads)) for code in found]
            for way, counts in tally(named, readable, present).items():
                for key, value in counts.items():
                    out[mode][way][key] += value
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from vision.lab.deck_rules import dev_design_options, dev_record, over_dev_designs

    dev_design_options(p, 48, OUT)
    args = p.parse_args(argv)
    t0 = time.time()
    designs, per = over_dev_designs(p, _design, args.frames, args.jobs)
    result = dev_record("cards named right and wrong, by how they were named (one sure index, "
                        "or two doubtful indices joined), on the training designs' frames",
                        designs, args.frames, SEED)
    result["cards"] = sum(d["cards"] for d in per)
    for mode in ("colour", "grey"):
        result[mode] = {w: {key: sum(d[mode][w][key] for d in per) for key in ("right", "wrong")}
                        for w in WAYS}
        print(f"{mode}: {json.dumps(result[mode])}")
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{result['cards']} cards a person could read; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
