"""The spread benchmark (``benchmarks/spread.py``): its dev frames are apart from the
frames it reports, and read with the crowded pass and without."""

from __future__ import annotations

import json

import pytest

from vision.lab import decks

BENCH = "spread"  # the ``bench`` fixture (conftest.py) gives its module


def test_the_dev_frames_are_read_with_and_without_the_crowded_pass(bench, tmp_path,
                                                                 monkeypatch):
    seen: list = []
    measured = bench.measure

    def measure(reader, styles, n, seed):
        # The reader's own pass is a bound method; the pass left out, a stand-in.
        seen.append((tuple(styles), seed, hasattr(reader._crowded_boxes, "__self__")))
        return measured(reader, styles, n, seed)

    monkeypatch.setattr(bench, "measure", measure)
    out = tmp_path / "dev.json"
    assert bench.main(["--dev", "--frames", "2", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert set(got) >= {"crowded_pass", "without"}
    for mode in ("crowded_pass", "without"):
        total = got[mode]["total"]
        assert total["cards"] == sum(got[mode][k]["cards"]
                                     for k in ("first_styles", "trained_designs")) > 0
    # Never the reported seeds, never a held-out design nor the Paris art.
    assert {seed for _, seed, _ in seen} == {19951, 19952}
    styles = {s for names, _, _ in seen for s in names}
    assert not any(f"art-{d}" in styles for d in decks.BENCH_DESIGNS)
    assert [crowded for _, _, crowded in seen] == [True, True, False, False]


def test_frames_are_refused_below_one(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--dev", "--frames", "0"])
    assert "--frames" in capsys.readouterr().err
