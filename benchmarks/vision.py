"""Speed and size of the card reader: prints the figures and writes them to
``benchmarks/vision.json``. The measure itself is the lab's (``vision.lab.speed``),
which ``belote-table vision bench`` runs too.

    .venv/bin/python benchmarks/vision.py [--model PATH] [--frames 10] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.lab.speed import OUT, cpu, run  # noqa: E402

__all__ = ["OUT", "cpu", "main", "run"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="classifier .onnx (default: the shipped model)")
    p.add_argument("--frames", type=int, default=10)
    p.add_argument("--out", default=str(OUT), help="where to write the JSON (%(default)s)")
    args = p.parse_args(argv)
    out = Path(args.out)
    result = run(args.model, frames=args.frames, out=out)
    print(json.dumps(result, indent=2))
    print(f"written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
