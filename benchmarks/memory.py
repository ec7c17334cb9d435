"""Peak memory of reading a photo (issue 74): ``vision read`` and ``vision enroll``
on an 8000 x 8000 JPEG, each in a process of its own, its peak resident memory
taken from the kernel (``wait4``'s ``ru_maxrss``).

The photo is a held-out deck design's frame smeared 8 pixels by the camera's
motion (the frame ``tests/vision/test_motion.py`` reads; ``make decks`` caches
the designs), enlarged to 8000 pixels wide on a plain table, given the sensor's
noise and smeared again 8 pixels at full size, so that the reader finds the
streak and its doubts there and sharpens (``vision.motion``); the same photo
without the last smear is read too (nothing to sharpen), and the frame as it
was rendered (1280 x 720). A probe run of each read, in a process of its own,
counts what was sharpened: how many pieces, the largest, the pixels in all.

    .venv/bin/python benchmarks/memory.py [--side 8000] [--out benchmarks/memory.json]

Prints the figures and writes benchmarks/memory.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBE = """
import json, sys
import numpy as np
from vision import motion
pieces = []
real = motion.sharpen
def counted(frame, *args, **kwargs):
    pieces.append(int(np.asarray(frame).shape[0]) * int(np.asarray(frame).shape[1]))
    return real(frame, *args, **kwargs)
motion.sharpen = counted
from vision.imagefile import load_image
from vision.reader import CardReader
frame = load_image(sys.argv[1])
found = CardReader(still=True).read(frame)
print(json.dumps({"pieces": pieces, "frame_px": int(frame.shape[0] * frame.shape[1]),
                  "cards": sorted(d.code for d in found if d.code),
                  "doubts": sum(1 for d in found if d.code is None)}))
"""


def held_out_frame() -> Any:
    """The held-out design's frame smeared 8 pixels (BGR, 1280 x 720), or None
    without the deck designs cached."""
    from vision.lab import decks

    if decks.load_manifest() is None:
        return None
    from benchmarks.misses import HELD_OUT_OFFSET
    from benchmarks.real_decks import seed_of
    from vision.lab import render
    from vision.lab.evaluate import design_scenes, design_styles

    render.art_styles(held_out=None, french_art=True)
    scenes = design_scenes(design_styles("kde-dondorf"), 13,
                           seed_of("kde-dondorf") + HELD_OUT_OFFSET)
    *_, (frame, _things, faults) = scenes
    assert faults["blur"] == "motion"
    return frame


def photos(frame: Any, side: int, folder: Path) -> dict[str, Path]:
    """The photos read: the frame as rendered, and ``side`` x ``side`` JPEGs made
    from it, smeared at full size or not."""
    import cv2
    import numpy as np

    from vision import motion

    out = {"rendered_1280x720": folder / "rendered.png"}
    cv2.imwrite(str(out["rendered_1280x720"]), frame)
    h, w = frame.shape[:2]
    tall = round(side * h / w)
    canvas = np.empty((side, side, 3), np.uint8)
    canvas[:] = frame[:4].reshape(-1, 3).mean(axis=0).astype(np.uint8)  # the table's cloth
    top = (side - tall) // 2
    canvas[top:top + tall] = cv2.resize(frame, (side, tall), interpolation=cv2.INTER_LINEAR)
    noise = np.random.default_rng(1).normal(0, 12, canvas.shape).astype(np.float32)
    sharp = (canvas.astype(np.float32) + noise).clip(0, 255).astype(np.uint8)
    del canvas, noise
    angle = motion.estimate(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).angle
    smeared = cv2.filter2D(sharp, -1, motion.streak(8, angle), borderType=cv2.BORDER_REFLECT)
    for name, image in ((f"smeared_{side}", smeared), (f"sharp_{side}", sharp)):
        out[name] = folder / f"{name}.jpg"
        cv2.imwrite(str(out[name]), image, [cv2.IMWRITE_JPEG_QUALITY, 97])
    return out


# Started from a small launcher, not from this process: a child forked from this
# one (the renderer and its decks loaded) would count this process's pages as its
# own until it runs the command.
LAUNCH = """
import json, resource, subprocess, sys, time
start = time.monotonic()
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"rc": run.returncode, "stdout": run.stdout, "stderr": run.stderr[-2000:],
                  "seconds": round(time.monotonic() - start, 1),
                  "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak(command: list[str]) -> dict[str, Any]:
    """Run ``command`` in a process of its own: its peak memory, time and output."""
    launched = subprocess.run([sys.executable, "-c", LAUNCH, *command], cwd=ROOT,
                              capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    run = json.loads(launched.stdout)
    if run["rc"] != 0:
        raise RuntimeError(f"{command}: {run['stderr']}")
    return {"peak_mb": round(run["peak_kb"] / 1024), "seconds": run["seconds"],
            "stdout": run["stdout"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=int, default=8000)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "memory.json"))
    args = ap.parse_args(argv)
    frame = held_out_frame()
    if frame is None:
        print("no deck designs cached: make decks")
        return 1
    load = round(os.getloadavg()[0], 2)
    reads: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        made = photos(frame, args.side, folder)
        for name, path in made.items():
            run = peak([sys.executable, "-m", "cli.main", "vision", "read", "--unknown",
                        str(path)])
            probe = json.loads(peak([sys.executable, "-c", PROBE, str(path)])["stdout"])
            pieces = probe["pieces"]
            reads[name] = {
                "peak_mb": run["peak_mb"], "seconds": run["seconds"],
                "cards": probe["cards"], "doubts": probe["doubts"],
                "sharpened": {"pieces": len(pieces), "largest_px": max(pieces, default=0),
                              "total_px": sum(pieces), "frame_px": probe["frame_px"]}}
            r = reads[name]
            print(f"vision read {name}: peak {r['peak_mb']} MB, {r['seconds']} s; "
                  f"{len(r['cards'])} cards, {r['doubts']} doubts; sharpened "
                  f"{r['sharpened']['pieces']} pieces, largest {r['sharpened']['largest_px']} "
                  f"px, {r['sharpened']['total_px']} px of {r['sharpened']['frame_px']}")
        # enroll: the smeared photo as the one picture of a card.
        card = folder / "deck" / "7C"
        card.mkdir(parents=True)
        (card / "photo.jpg").symlink_to(made[f"smeared_{args.side}"])
        run = peak([sys.executable, "-m", "cli.main", "vision", "enroll", str(folder / "deck"),
                    "--out", str(folder / "deck.npz")])
        enroll = {"peak_mb": run["peak_mb"], "seconds": run["seconds"]}
        print(f"vision enroll smeared_{args.side}: peak {enroll['peak_mb']} MB, "
              f"{enroll['seconds']} s")
    result = {"side": args.side, "reads": reads, "enroll": enroll,
              "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                          "load_average_1min_at_start": load,
                          "platform": platform.platform()}}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
