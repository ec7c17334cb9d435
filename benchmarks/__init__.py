"""The project's benchmarks: each script prints its figures and writes
``benchmarks/<name>.json`` (``make bench`` runs them all).

Run them as scripts (``python benchmarks/pipeline.py``); what one benchmark
takes from another (the pipeline benchmark's filmed games, the accuracy
benchmark's test sets), and what the tests check of them, is imported from
this package (``from benchmarks import accuracy``), never loaded by file path.
"""

import json
from pathlib import Path
from typing import Any


def write_figures(out: str | Path | None, default: Path, result: dict[str, Any],
                  part: str | None = None, parts: tuple[str, ...] = (), indent: int = 1
                  ) -> Path:
    """Write a benchmark's figures; returns the file written.

    ``out`` (an ``--out`` given) gets ``result`` alone. Otherwise the benchmark's one file
    ``default`` does: the figures of one of its other modes under their key ``part``,
    beside the main figures; the main figures (``part`` None) keep the ``parts`` already
    there, so each mode's last figures stay in the one file."""
    if out is not None:
        path = Path(out)
        path.write_text(json.dumps(result, indent=indent) + "\n")
        return path
    old = json.loads(default.read_text()) if default.is_file() else {}
    if part is None:
        data = {**result, **{k: old[k] for k in parts if k in old}}
    else:
        data = {**old, part: result}
    default.write_text(json.dumps(data, indent=indent) + "\n")
    return default
