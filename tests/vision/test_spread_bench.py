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
        seen.append((tuple(styles), seed, hasattr(reader.frames.crowded_boxes, "__self__")))
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


@pytest.mark.slow
def test_each_reported_frame_is_read_as_a_camera_frame_and_as_a_still_two_ways(
        bench, tmp_path, monkeypatch):
    """The camera's reader, then a still reader with both levels' boxes and with one box
    an index: three reads a frame, the still reader's setting put back after each."""
    from vision.reader import CardReader

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    ways: list = []
    read = CardReader.read

    def spy(self, frame):
        ways.append((self.detector.finest, self.detector.both_levels))
        return read(self, frame)

    monkeypatch.setattr(CardReader, "read", spy)
    out = tmp_path / "spread.json"
    assert bench.main(["--frames", "1", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    sets = [got["first_styles"], *got["held_out_designs"].values(), got["paris_french"]]
    # Then the hands of a 52-card deck, apart from the total: first styles, each design.
    full = [v for k, v in got["full_deck"].items() if k != "total"]
    assert list(got["full_deck"]) == ["first_styles", *got["held_out_designs"], "total"]
    assert ways == [(0.5, True), (1.0, True), (1.0, False)] * (len(sets) + len(full))
    assert got["full_deck"]["total"]["cards"] == sum(s["cards"] for s in full) > 0
    assert [s["seed"] for s in full] == [9981, *range(9991, 9991 + len(full) - 1)]
    for way in ("still", "still_one_box"):
        assert got["total"][way]["cards"] == sum(s[way]["cards"] for s in sets) \
            == got["total"]["cards"] > 0
        assert got["total"][way]["read"] == sum(s[way]["read"] for s in sets)
