"""Synthetic renderer speed: what the virtual table costs per frame.

Prints the figures and writes benchmarks/render.json (draw of a 1280x720 table
with 8 cards, with a hand over it, card and scene rendering), one thread.

    .venv/bin/python benchmarks/render.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.lab.render import TableScene, hand_occluder, render_card, render_scene  # noqa: E402

OUT = ROOT / "benchmarks" / "render.json"


def bench(out: Path | None = None, repeat: int = 40) -> dict[str, Any]:
    """Time the renderer on one core: the virtual table's ``draw`` (1280x720, 8 cards),
    with and without a hand and sensor noise, and whole training scenes."""
    cv2.setNumThreads(1)

    def median_ms(fn: Any, n: int) -> float:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return round(float(np.median(times)) * 1000, 2)

    rng = np.random.default_rng(0)
    t = time.perf_counter()
    table = TableScene(rng, background="felt")
    setup_ms = (time.perf_counter() - t) * 1000
    codes = ["7H", "AS", "KD", "TC", "QH", "JS", "9D", "8C"]
    t = time.perf_counter()
    for k, code in enumerate(codes):
        table.place(code, (160 + 140 * k, 200 + 300 * (k % 2)), 25 * k)
    place_ms = (time.perf_counter() - t) * 1000 / len(codes)
    hand = hand_occluder(rng, table.size, target=(640, 360))
    noise_rng = np.random.default_rng(1)
    figures = {
        "threads": 1,
        "frame": list(table.size),
        "cards": len(codes),
        "table_setup_ms": round(setup_ms, 1),
        "place_ms_per_card": round(place_ms, 2),
        "draw_ms": median_ms(table.draw, repeat),
        "draw_with_hand_ms": median_ms(lambda: table.draw([hand]), repeat),
        "draw_with_hand_and_noise_ms": median_ms(lambda: table.draw([hand], noise_rng), repeat),
        "annotations_ms": median_ms(lambda: table.annotations([hand]), 10),
        "render_card_ms": median_ms(lambda: render_card("KH", "fr-grimaud", rng), repeat),
        "render_scene_ms": median_ms(lambda: render_scene(rng), 10),
        "target_draw_ms": 30,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(figures, indent=1) + "\n")
    return figures


def main(argv: list[str] | None = None) -> int:
    print(json.dumps(bench(OUT), indent=1))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
