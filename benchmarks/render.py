"""Synthetic renderer speed: what the virtual table costs per frame.

Prints the figures and writes benchmarks/render.json (draw of a 1280x720 table
with 8 cards, with a hand over it, card and scene rendering), one thread.

    .venv/bin/python benchmarks/render.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.lab.render import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench"]))
