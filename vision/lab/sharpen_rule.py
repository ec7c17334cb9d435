"""How sure a card named only on a sharpened frame must be (``vision.reader.SHARPENED_SURE``),
chosen on training designs only.

A frame smeared by the camera's motion that leaves a card unsure is sharpened
(``vision.motion``) and read again (``CardReader.sharpened_reads``). Here frames of each
development design (the deck designs the general model was trained on, less those
``benchmarks/enroll.py`` reports: ``vision.lab.deck_rules.dev_designs``; the renderer's
scenes and camera faults, half at piquet size, seeds 9601... never used elsewhere) are
read without the sharpened pass; on each frame left with a card unsure, the streak the
frame's cepstrum gives is kept (with the blur the renderer gave the frame), and every
card the sharpened frame names that the frame as it is did not, with its confidence and
whether it is in the frame. The threshold chosen is the loosest of ``SURE_GRID`` naming
no card that is not in the frame; the frames' cards a person could read, read without
and with the pass at it, are counted too.

The designs held out of training (``benchmarks/real_decks.py``) are never used here.
Prints the figures and writes ``benchmarks/sharpen_rule.json``.

    python -m vision.lab.sharpen_rule [--frames 40] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "sharpen_rule.json"
SEED = 9601
SURE_GRID = (0.9, 0.917, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999)


def _frames_of(job: tuple[int, str, int]) -> list[dict[str, Any]]:
    """Worker: design ``design``'s frames (the k-th development design): one row per frame
    left with a card unsure."""
    import cv2

    from vision import motion
    from vision.lab import render
    from vision.lab.evaluate import cards_in_sight, design_scenes, design_styles
    from vision.reader import CardReader

    k, design, frames = job
    render.art_styles(held_out=False)
    reader = CardReader()
    rows = []
    for i, (frame, things, faults) in enumerate(
            design_scenes(design_styles(design), frames, SEED + k)):
        readable, present = cards_in_sight(things)
        found = reader.read(frame, sharpen=False)
        if not any(d.code is None for d in found):
            continue
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        streak = motion.estimate(gray)
        named = {d.code for d in found if d.code is not None}
        added = reader.sharpened_reads(gray, frame, found)
        rows.append({"design": design, "frame": i, "blur": faults["blur"],
                     "blur_px": faults["blur_px"], "length": round(streak.length, 2),
                     "depth": round(streak.depth, 2), "readable": sorted(readable),
                     "read": sorted(named & readable),
                     "added": [{"code": d.code, "confidence": round(d.confidence, 5),
                                "present": d.code in present, "readable": d.code in readable}
                               for d in added]})
    print(f"{design}: {len(rows)} frames with a card unsure", file=sys.stderr)
    return rows


def choose(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The loosest of ``SURE_GRID`` naming no card that is not in the frame, and the cards
    each threshold adds (right, wrong)."""
    added = [a for r in rows for a in r["added"]]
    grid = {}
    chosen = None
    for sure in SURE_GRID:
        kept = [a for a in added if a["confidence"] >= sure]
        right = sum(a["readable"] for a in kept)
        wrong = sum(not a["present"] for a in kept)
        grid[f"{sure}"] = {"readable_added": right, "not_there": wrong,
                           "there_unreadable": len(kept) - right - wrong}
        if wrong == 0 and chosen is None:
            chosen = sure
    return {"chosen": chosen, "grid": grid}


def streaks(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How the gate (``SHARPEN_LENGTH``, ``SHARPEN_DEPTH``) sorts the frames left unsure,
    by the blur the renderer gave them."""
    from vision.reader import SHARPEN_DEPTH, SHARPEN_LENGTH

    out: dict[str, Any] = {}
    for name, test in (("motion 6-8 px", lambda r: r["blur"] == "motion" and r["blur_px"] >= 6),
                       ("motion 3-5 px", lambda r: r["blur"] == "motion" and r["blur_px"] < 6),
                       ("focus", lambda r: r["blur"] == "focus"),
                       ("none", lambda r: r["blur"] == "none")):
        these = [r for r in rows if test(r)]
        out[name] = {"frames": len(these),
                     "sharpened": sum(r["length"] >= SHARPEN_LENGTH
                                      and r["depth"] >= SHARPEN_DEPTH for r in these)}
    return out


def main(argv: list[str] | None = None) -> int:
    from vision.lab.deck_rules import dev_design_options, dev_record, over_dev_designs
    from vision.reader import SHARPEN_DEPTH, SHARPEN_LENGTH, SHARPENED_SURE

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    dev_design_options(p, 40, OUT)
    args = p.parse_args(argv)
    t0 = time.time()
    designs, runs = over_dev_designs(p, _frames_of, args.frames, args.jobs)
    rows = [r for run in runs for r in run]
    picked = choose(rows)
    sure = picked["chosen"]
    readable = sum(len(r["readable"]) for r in rows)
    before = sum(len(r["read"]) for r in rows)
    gained = sum(a["readable"] for r in rows for a in r["added"]
                 if sure is not None and a["confidence"] >= sure)
    result = {**dev_record("how sure a card named only on a sharpened frame must be, "
                           "chosen on training designs", designs, args.frames, SEED),
              "gate": {"length_at_least": SHARPEN_LENGTH, "depth_at_least": SHARPEN_DEPTH},
              "frames_left_unsure": streaks(rows),
              "rule": picked, "in_use": SHARPENED_SURE,
              "cards_on_those_frames": {"readable": readable, "read_as_they_are": before,
                                        "added_at_chosen": gained},
              "added": [{k: r[k] for k in ("design", "frame", "blur", "blur_px", "length",
                                           "depth", "added")} for r in rows if r["added"]],
              "seconds": round(time.time() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("frames_left_unsure", "rule",
                                             "cards_on_those_frames")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
