"""A benchmark keeps one results file, ``benchmarks/<name>.json``: its other modes' last
figures go under their key there (``benchmarks.write_figures``)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import write_figures


def test_a_mode_goes_under_its_key_and_the_main_figures_keep_it(tmp_path: Path) -> None:
    one = tmp_path / "misses.json"
    assert write_figures(None, one, {"cards": 10}) == one
    write_figures(None, one, {"designs": 4}, part="held_out")
    assert json.loads(one.read_text()) == {"cards": 10, "held_out": {"designs": 4}}
    # The main figures again: the mode's last figures stay, the old main ones go.
    write_figures(None, one, {"missed": 2}, parts=("held_out",))
    assert json.loads(one.read_text()) == {"missed": 2, "held_out": {"designs": 4}}
    # A mode run again replaces its own figures only.
    write_figures(None, one, {"designs": 5}, part="held_out")
    assert json.loads(one.read_text()) == {"missed": 2, "held_out": {"designs": 5}}


def test_a_file_named_by_out_gets_the_figures_alone(tmp_path: Path) -> None:
    one, other = tmp_path / "misses.json", tmp_path / "try.json"
    write_figures(None, one, {"cards": 10})
    assert write_figures(other, one, {"designs": 4}, part="held_out") == other
    assert json.loads(other.read_text()) == {"designs": 4}
    assert json.loads(one.read_text()) == {"cards": 10}


def test_the_benchmarks_with_modes_keep_them_in_their_one_file() -> None:
    folder = Path(__file__).resolve().parent.parent / "benchmarks"
    for name, part in (("misses", "held_out"), ("enroll_table", "count"), ("spread", "dev")):
        assert part in json.loads((folder / f"{name}.json").read_text()), name
        assert not list(folder.glob(f"{name}-*.json")), name
