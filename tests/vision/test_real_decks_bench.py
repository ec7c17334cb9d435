"""The real-decks benchmark's arguments (``benchmarks/real_decks.py``): refused as said."""

from __future__ import annotations

import pytest

from vision.lab import decks


@pytest.fixture()
def bench():
    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    from benchmarks import real_decks

    return real_decks


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
