"""The still pictures benchmark (``benchmarks/stills.py``): bad arguments are refused, and
each picture is read three ways."""

from __future__ import annotations

import json

import pytest

BENCH = "stills"  # the ``bench`` fixture (conftest.py) gives its module


def test_frames_are_refused_below_one_and_nothing_is_written(bench, tmp_path, capsys):
    out = tmp_path / "stills.json"
    with pytest.raises(SystemExit):
        bench.main(["--frames", "0", "--out", str(out)])
    assert "--frames" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_each_picture_is_read_before_as_a_camera_frame_and_as_a_still(bench, tmp_path,
                                                                       monkeypatch):
    from vision.reader import CardReader

    ways: list[tuple[float, float]] = []
    read = CardReader.read

    def spy(self, frame):
        ways.append((self.detector.finest, self.detector.calibrated))
        return read(self, frame)

    monkeypatch.setattr(CardReader, "read", spy)
    out = tmp_path / "stills.json"
    assert bench.main(["--frames", "2", "--sizes", "640x640", "--shares", "0.12",
                       "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    row = got["sizes"]["640x640"]["rows"][0]
    assert row["share"] == 0.12
    for way in ("before", "camera", "still"):
        assert row[way]["cards"] == 8
        assert 0 <= row[way]["read"] <= 8 and row[way]["invented"] >= 0
    assert ways == [(0.5, 1.0), (0.5, 0.5), (1.0, 0.5)] * 2
    assert got["sizes"]["640x640"]["total"]["still"]["cards"] == 8
