"""The sharpened frames' gate, how sure a card named only on one must be and what the
frame as it is must have guessed there (the reader settings' ``sharpen_depth``,
``sharpened_sure``, ``sharpen_agree``), chosen on training designs only.

A frame smeared by the camera's motion that leaves a card unsure is sharpened
(``vision.motion``) and read again (``CardReader.sharpened_reads``). Here frames of each
development design (the deck designs the general model was trained on, less those
``benchmarks/enroll.py`` reports: ``vision.lab.deck_rules.dev_designs``; the renderer's
scenes and camera faults, half at piquet size, seeds 9601... never used elsewhere) are
read without the sharpened pass; on each frame left with a card unsure, the streak the
frame's cepstrum gives is kept (with the blur the renderer gave the frame), and every
card the sharpened frame names that the frame as it is did not (its trough at least the
shallowest of ``DEPTH_GRID``, whatever was guessed there), with its confidence, the
agreements (``vision.settings.SHARPEN_AGREEMENTS``) its place's guesses meet and whether it
is in the frame. The rule chosen, of the agreements x ``DEPTH_GRID`` x ``SURE_GRID``, names
the most readable cards and none that is not in the frame, sharpening at most
``UNSMEARED_SHARE`` of the frames the camera did not smear.

The designs held out of training (``benchmarks/real_decks.py``) are never used here.
Prints the figures and writes ``benchmarks/sharpen_rule.json``.

    python -m vision.lab.sharpen_rule [--frames 60] [--jobs 2]
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
DEPTH_GRID = (2.0, 2.5, 3.0, 3.5)
# A sharpened frame is read twice: the gate may sharpen at most this share of the frames
# left unsure that the camera did not smear (sharp, or out of focus), where sharpening
# names next to nothing (a budget of time, set before the figures were read).
UNSMEARED_SHARE = 0.1


def _frames_of(job: tuple[int, str, int]) -> list[dict[str, Any]]:
    """Worker: design ``design``'s frames (the k-th development design): one row per frame
    left with a card unsure."""
    import cv2

    from vision import motion
    from vision.lab import render
    from vision.lab.evaluate import cards_in_sight, design_scenes, design_styles
    from vision.reader import CardReader
    from vision.settings import SHARPEN_AGREEMENTS
    from vision.sharpened import guesses_at, sharpen_agrees

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
        added = reader.sharpened_reads(gray, frame, found, depth=min(DEPTH_GRID),
                                       agree="any")
        doubts = [d for d in found if d.code is None]
        rows.append({"design": design, "frame": i, "blur": faults["blur"],
                     "blur_px": faults["blur_px"], "length": round(streak.length, 2),
                     "depth": round(streak.depth, 2), "readable": sorted(readable),
                     "read": sorted(named & readable),
                     "added": [{"code": d.code, "confidence": round(d.confidence, 5),
                                "present": d.code in present, "readable": d.code in readable,
                                "agrees": [a for a in SHARPEN_AGREEMENTS
                                           if sharpen_agrees(d.code, guesses_at(d, doubts), a)]}
                               for d in added if d.code is not None]})
    print(f"{design}: {len(rows)} frames with a card unsure", file=sys.stderr)
    return rows


def choose(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The (agreement, least depth, threshold) of ``SHARPEN_AGREEMENTS`` x ``DEPTH_GRID`` x
    ``SURE_GRID`` naming the most readable cards and none that is not in the frame, its
    gate sharpening at most ``UNSMEARED_SHARE`` of the frames the camera did not smear (of
    equals, the strictest agreement, then the deepest trough and the surest threshold: the
    fewest frames sharpened and cards named); and for each the cards it adds (right,
    wrong) and that share."""
    from vision.settings import SHARPEN_AGREEMENTS, shipped_settings

    length = shipped_settings().sharpen_length
    unsmeared = [r for r in rows if r["blur"] != "motion"]
    grid = {}
    best: tuple[int, int, float, float] | None = None
    for depth in DEPTH_GRID:
        gated = [r for r in rows if r["length"] >= length and r["depth"] >= depth]
        share = (sum(r["blur"] != "motion" for r in gated) / len(unsmeared)
                 if unsmeared else 0.0)
        added = [a for r in gated for a in r["added"]]
        for loose, agree in enumerate(SHARPEN_AGREEMENTS):
            for sure in SURE_GRID:
                kept = [a for a in added
                        if a["confidence"] >= sure and agree in a["agrees"]]
                right = sum(a["readable"] for a in kept)
                wrong = sum(not a["present"] for a in kept)
                grid[f"{agree}/{depth}/{sure}"] = {
                    "readable_added": right, "not_there": wrong,
                    "there_unreadable": len(kept) - right - wrong,
                    "unsmeared_sharpened_share": round(share, 3)}
                if (wrong == 0 and share <= UNSMEARED_SHARE
                        and (best is None or (right, -loose, depth, sure) > best)):
                    best = (right, -loose, depth, sure)
    chosen = None if best is None else {"agree": SHARPEN_AGREEMENTS[-best[1]],
                                        "depth": best[2], "sure": best[3],
                                        "readable_added": best[0]}
    return {"chosen": chosen, "unsmeared_share_at_most": UNSMEARED_SHARE,
            "grid_agree/depth/sure": grid}


def streaks(rows: list[dict[str, Any]], depth: float) -> dict[str, Any]:
    """How the gate (``sharpen_length``, a trough ``depth`` deep) sorts the frames left
    unsure, by the blur the renderer gave them."""
    from vision.settings import shipped_settings

    length = shipped_settings().sharpen_length
    out: dict[str, Any] = {}
    for name, test in (("motion 6-8 px", lambda r: r["blur"] == "motion" and r["blur_px"] >= 6),
                       ("motion 3-5 px", lambda r: r["blur"] == "motion" and r["blur_px"] < 6),
                       ("focus", lambda r: r["blur"] == "focus"),
                       ("none", lambda r: r["blur"] == "none")):
        these = [r for r in rows if test(r)]
        out[name] = {"frames": len(these),
                     "sharpened": sum(r["length"] >= length
                                      and r["depth"] >= depth for r in these)}
    return out


def main(argv: list[str] | None = None) -> int:
    from vision.lab.deck_rules import dev_design_options, dev_record, over_dev_designs
    from vision.settings import shipped_settings

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    dev_design_options(p, 60, OUT)
    args = p.parse_args(argv)
    t0 = time.time()
    designs, runs = over_dev_designs(p, _frames_of, args.frames, args.jobs)
    rows = [r for run in runs for r in run]
    picked = choose(rows)
    tuned = shipped_settings()
    in_use: dict[str, Any] = {"agree": tuned.sharpen_agree, "depth": tuned.sharpen_depth,
                              "sure": tuned.sharpened_sure}
    chosen = picked["chosen"] or in_use
    readable = sum(len(r["readable"]) for r in rows)
    before = sum(len(r["read"]) for r in rows)
    result = {**dev_record("the sharpened frames' gate, how sure a card named only on one "
                           "must be and what the frame as it is guessed there, chosen on "
                           "training designs", designs, args.frames, SEED),
              "length_at_least": tuned.sharpen_length,
              "frames_left_unsure_at_chosen_depth": streaks(rows, chosen["depth"]),
              "rule": picked, "in_use": in_use,
              "cards_on_those_frames": {"readable": readable, "read_as_they_are": before},
              "added": [{k: r[k] for k in ("design", "frame", "blur", "blur_px", "length",
                                           "depth", "added")} for r in rows if r["added"]],
              "frames": [[r["blur"], r["blur_px"], r["length"], r["depth"]] for r in rows],
              "seconds": round(time.time() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({"chosen": picked["chosen"], "in_use": result["in_use"],
                      "frames_left_unsure_at_chosen_depth":
                          result["frames_left_unsure_at_chosen_depth"],
                      "cards_on_those_frames": result["cards_on_those_frames"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
