"""Benchmark of the frame loop besides the card reader: tracker, service (scorer
check and fold), SQLite store (WAL, synchronous FULL) and bus, per frame.

The reader's answers for every frame of a seeded virtual-table game are
recorded once (``--reads``, made on the first run with the real ONNX reader);
then they are replayed through ``TablePipeline.feed`` (no frame, so no
picture is made) ``--runs`` times, and the milliseconds per frame are
printed and written to JSON. ``--tree PATH`` measures the checkout at PATH
instead (a ``git worktree`` of an earlier commit, say) with the same reads:
runs of two trees taken one after the other on the same machine tell what a
change costs the loop, the reader's own time (10 to 40 ms a frame) left out.

    .venv/bin/python benchmarks/frame_loop.py [--hands 2] [--seed 3] [--runs 3]
        [--tree PATH] [--reads FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def record(path: Path, seed: int, hands: int) -> None:
    """The reader's answers for every frame of the game (this checkout's reader)."""
    from vision.lab.virtual_table import VirtualTable
    from vision.reader import CardReader

    table = VirtualTable(seed=seed, hands=hands)
    reader = CardReader()
    frames = [(ts, reader.read(frame)) for ts, frame in table]
    path.write_bytes(pickle.dumps((table.events, table.spoken, table.calibration, frames)))


def measure(path: Path, runs: int) -> dict[str, Any]:
    """Replay the recorded reads through the loop ``runs`` times."""
    from companion.bus import Bus
    from companion.pipeline import TablePipeline, compare
    from companion.service import TableService
    from companion.store import Store
    from vision.tracker import PlayTracker

    events, spoken_at, calibration, frames = pickle.loads(path.read_bytes())

    class Replay:
        now: list[Any] = []

        def read(self, frame: Any) -> list[Any]:
            return self.now

    per_frame: list[float] = []
    matched = True
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-loop-") as tmp:
            store = Store(Path(tmp) / "loop.db")
            service = TableService(store, Bus())
            reader = Replay()
            pipeline = TablePipeline(service, reader, PlayTracker(calibration))
            service.start_game(events[0], source="simulator")
            spoken = list(spoken_at)
            total = 0.0
            for ts, detections in frames:
                reader.now = detections
                start = time.perf_counter()
                pipeline.speak(spoken)
                pipeline.feed(ts, None)
                total += time.perf_counter() - start
            matched = matched and compare(events, [s.event for s in service.events()]) == []
            store.close()
        per_frame.append(1000 * total / len(frames))
    return {"frames": len(frames), "runs_ms_per_frame": [round(v, 3) for v in per_frame],
            "ms_per_frame_median": round(statistics.median(per_frame), 3),
            "matched_simulator": matched}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=2)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure")
    p.add_argument("--reads", type=Path, default=Path(tempfile.gettempdir())
                   / "belote-frame-loop-reads.pkl", help="recorded reads (made if missing)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "frame_loop.json"))
    args = p.parse_args(argv)
    tree = args.tree.resolve()
    sys.path.insert(0, str(tree))
    if not args.reads.exists():
        record(args.reads, args.seed, args.hands)
    result = measure(args.reads, args.runs)
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    out = {"benchmark": "frame_loop",
           "what": "recorded reads -> play tracker -> table service (scorer, SQLite WAL "
                   "synchronous FULL, bus), per frame, the reader left out",
           "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(),
                       "python": platform.python_version()},
           "settings": {"hands": args.hands, "seed": args.seed, "runs": args.runs,
                        "tree_commit": commit},
           **result}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"frame loop besides the reader ({commit}): {result['ms_per_frame_median']} ms "
          f"per frame (runs {result['runs_ms_per_frame']}) over {result['frames']} frames; "
          f"matched the simulator: {result['matched_simulator']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
