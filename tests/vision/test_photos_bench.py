"""The photos benchmark (``benchmarks/photos.py``): bad arguments are refused, and each
photo is read with the finer level and without it."""

from __future__ import annotations

import json

import pytest

BENCH = "photos"  # the ``bench`` fixture (conftest.py) gives its module


def test_frames_are_refused_below_one_and_nothing_is_written(bench, tmp_path, capsys):
    out = tmp_path / "photos.json"
    with pytest.raises(SystemExit):
        bench.main(["--frames", "0", "--out", str(out)])
    assert "--frames" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_each_photo_is_read_with_the_finer_level_and_without(bench, tmp_path, monkeypatch):
    from vision.reader import CardReader

    modes: list[bool] = []
    read = CardReader.read

    def spy(self, frame):
        # The finer level exists for a photo this size only while the reader allows it.
        modes.append(self.detector.fine_scale(frame.shape[1], frame.shape[0]) is not None)
        return read(self, frame)

    monkeypatch.setattr(CardReader, "read", spy)
    out = tmp_path / "photos.json"
    assert bench.main(["--frames", "2", "--sizes", "2560x1440", "--shares", "0.085",
                       "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    row = got["sizes"]["2560x1440"]["rows"][0]
    assert row["share"] == 0.085
    for mode in ("fine", "before"):
        assert row[mode]["cards"] == 8
        assert 0 <= row[mode]["read"] <= 8 and row[mode]["invented"] >= 0
    assert modes == [True, False, True, False]
    # A held-out design first, then a drawn style, in turn.
    assert got["styles"][0].startswith("art-") and not got["styles"][1].startswith("art-")
