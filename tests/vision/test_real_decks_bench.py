"""The real-decks benchmark's arguments (``benchmarks/real_decks.py``): refused as said."""

from __future__ import annotations

import pytest

from vision.lab import decks

BENCH = "real_decks"  # the ``bench`` fixture (conftest.py) gives its module


def test_each_design_keeps_its_test_frames_whatever_is_held_out(bench, monkeypatch):
    before = {d: bench.seed_of(d) for d in decks.BENCH_DESIGNS}
    monkeypatch.setattr(decks, "HELD_OUT", ("tigullio", "kde-dondorf"))
    assert {d: bench.seed_of(d) for d in decks.BENCH_DESIGNS} == before
    assert len(set(before.values())) == len(before)


def test_an_unknown_trained_design_is_refused(bench, capsys, tmp_path):
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit):
        bench.main(["--trained", "paris,nowhere", "--out", str(out)])
    assert "--trained" in capsys.readouterr().err and not out.exists()


def test_a_model_without_the_corner_reader_beside_it_is_refused(bench, capsys, tmp_path):
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit):
        bench.main(["--model", str(tmp_path / "index_classifier.onnx"), "--out", str(out)])
    assert "card_corner.onnx" in capsys.readouterr().err and not out.exists()


def test_choosing_reads_other_frames_of_the_held_out_designs_only(bench, capsys, tmp_path):
    out = tmp_path / "choose.json"
    assert bench.main(["--choose", "50000", "--frames", "1", "--out", str(out)]) == 0
    import json

    got = json.loads(out.read_text())
    held = [d for d in decks.BENCH_DESIGNS if d in decks.load_manifest()["held_out"]]
    assert list(got["designs"]) == held and "real_photos" not in got
    # Never the frames reported: each design's seed moved by the offset asked for.
    assert {d: r["seed"] for d, r in got["designs"].items()} == {
        d: bench.seed_of(d) + 50000 for d in held}
    cards = sum(r["figures"]["all"]["cards"] for r in got["designs"].values())
    assert got["total"]["all"]["cards"] == got["grey_total"]["all"]["cards"] == cards > 0
    assert "other frames" in capsys.readouterr().out


def test_a_negative_offset_to_choose_on_is_refused(bench, capsys, tmp_path):
    out = tmp_path / "choose.json"
    with pytest.raises(SystemExit):
        bench.main(["--choose", "-5", "--out", str(out)])
    assert "--choose" in capsys.readouterr().err and not out.exists()
