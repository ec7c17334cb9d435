"""Speed and size of the card reader, the lab's measure (``belote-table vision bench``
and ``benchmarks/vision.py`` run it).

Times the full reader (locate + read) on synthetic 1280x720 table frames with
8 belote cards (and, of each frame, the mean time in the classifier's and the
detector's runs, and the patches the classifier reads), and the classifier
alone per card, on 1 and on 2 threads;
adds the model's size on disk and the process's peak memory. Writes the
figures to ``benchmarks/vision.json`` by default.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

# The source tree's root: the lab lives in a checkout, beside benchmarks/.
ROOT = Path(__file__).resolve().parents[2]

OUT = ROOT / "benchmarks" / "vision.json"


def _frames(n: int, seed: int) -> list[np.ndarray]:
    from vision.lab.render import render_scene

    rng = np.random.default_rng(seed)
    return [render_scene(rng, n_cards=8, negatives=False, hands=0, overlap=0.2)[0]
            for _ in range(n)]


def cpu(info: str | None = None) -> dict[str, Any]:
    """The processor's name and the widest 8-bit dot-product instructions it has: the
    8-bit classifier runs about twice as fast with VNNI (one instruction multiplies
    and sums uint8 x int8 in 32 bits) as with AVX2 alone, so a figure means little
    without them. ``info``: the text of Linux's /proc/cpuinfo (read when None); elsewhere
    what ``platform`` says."""
    name = ""
    flags: set[str] = set()
    if info is None:
        try:
            info = Path("/proc/cpuinfo").read_text()
        except OSError:
            info = ""
    for line in info.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not name:
            name = value.strip()
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
    name = name or platform.processor() or platform.machine()
    order = ["avx512_vnni", "avx_vnni", "avx2", "asimddp", "asimd"]
    best = next((f for f in order if f in flags), None)
    return {"cpu": name, "cores": os.cpu_count(), "int8_instructions": best or "none known"}


class _Timed:
    """An onnxruntime session that adds up the seconds its runs take, and the inputs'
    first dimension (the patches read, for the classifier)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.seconds = 0.0
        self.items = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)

    def run(self, names: Any, feeds: dict[str, np.ndarray], *args: Any) -> Any:
        t0 = time.perf_counter()
        out = self.session.run(names, feeds, *args)
        self.seconds += time.perf_counter() - t0
        self.items += int(next(iter(feeds.values())).shape[0])
        return out


def run(model_path: str | Path | None = None, frames: int = 10, repeats: int = 3,
        out: Path | None = OUT, seed: int = 123) -> dict[str, Any]:
    """Measure and return the figures (and write them to ``out`` unless it is None)."""
    from vision.locate import index_crop
    from vision.reader import CardReader

    images = _frames(frames, seed)
    result: dict[str, Any] = {"frame": "1280x720, 8 belote cards (vision.lab.render, top-down)",
                    "frames": frames, "machine": platform.machine(),
                    "processor": platform.processor() or platform.machine(), **cpu()}
    for threads in (1, 2):
        reader = CardReader(model_path, threads=threads)
        for frame in images[:2]:
            reader.read(frame)  # warm-up: first runs allocate
        times = []
        # Where a frame's time goes: the two models' runs (and how many patches the
        # classifier reads), the rest being the reader's own work (cutting, rules).
        models = {name: m for name, m in (("classifier", reader.classifier),
                                          ("detector", reader.detector)) if m is not None}
        timed = {name: _Timed(m.session) for name, m in models.items()}
        for name, t in timed.items():
            models[name].session = t
        try:
            for _ in range(repeats):
                for frame in images:
                    t0 = time.perf_counter()
                    reader.read(frame)
                    times.append((time.perf_counter() - t0) * 1000)
        finally:
            for name, t in timed.items():
                models[name].session = t.session
        # The models' mean times, beside the frame's mean (the figure of merit is its median).
        result[f"ms_per_frame_{threads}t_mean"] = round(statistics.mean(times), 2)
        for name, t in timed.items():
            result[f"ms_per_frame_{threads}t_{name}"] = round(t.seconds * 1000 / len(times), 2)
        result[f"patches_per_frame_{threads}t"] = round(timed["classifier"].items / len(times), 1)
        result[f"ms_per_frame_{threads}t"] = round(statistics.median(times), 2)
        result[f"ms_per_frame_{threads}t_p90"] = round(float(np.percentile(times, 90)), 2)
        # Per card: the classifier alone, on a batch of 8 cards (two indices each).
        blank = np.full((720, 1280, 3) if reader.classifier.channels == 3 else (720, 1280), 200,
                        np.uint8)
        crops = np.stack([index_crop(blank, (100, 100, 140, 170))
                          for _ in range(16)]) if reader.design == "B" else None
        if crops is None:
            from vision.locate import corner_crops

            quad = np.array([[100, 100], [250, 100], [250, 320], [100, 320]], np.float32)
            gray = np.full((720, 1280), 200, np.uint8)
            crops = np.concatenate([corner_crops(gray, quad) for _ in range(8)])
        reader.classifier.probabilities(crops)
        t0 = time.perf_counter()
        n = 200
        for _ in range(n):
            reader.classifier.probabilities(crops)
        result[f"ms_per_card_{threads}t"] = round((time.perf_counter() - t0) * 1000 / n / 8, 3)
        model_files = [reader.classifier.model_path]
        if reader.design == "B":
            model_files.append(reader.classifier.model_path.with_name(
                reader.classifier.meta["detector"]))
        result["design"] = reader.design
        result["model_files"] = [p.name for p in model_files]
        result["model_bytes"] = sum(p.stat().st_size for p in model_files)
    result["model_mb"] = round(result["model_bytes"] / 1e6, 3)
    # ru_maxrss is in kilobytes on Linux.
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["measured"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        # The one results file keeps what other machines measured beside this run.
        if out.is_file():
            kept = json.loads(out.read_text()).get("other_machines")
            if kept:
                result["other_machines"] = kept
        out.write_text(json.dumps(result, indent=2) + "\n")
    return result

