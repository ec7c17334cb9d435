"""The benchmarks of pictures by card size: ``benchmarks/photos.py`` (each photo read with
the finer level and without it) and ``benchmarks/stills.py`` (each picture read before,
as the camera's frames, as a still, and as a still with one box an index), which shares
its arguments; bad ones are refused."""

from __future__ import annotations

import importlib
import json

import pytest

BENCH = "photos"  # the ``bench`` fixture (conftest.py) gives its module


@pytest.mark.parametrize("name", ["photos", "stills"])
def test_frames_are_refused_below_one_and_nothing_is_written(name, tmp_path, capsys):
    """Refused before anything is drawn, with or without deck designs cached."""
    bench = importlib.import_module(f"benchmarks.{name}")
    out = tmp_path / f"{name}.json"
    with pytest.raises(SystemExit):
        bench.main(["--frames", "0", "--out", str(out)])
    assert "--frames" in capsys.readouterr().err
    assert not out.exists()


def _run_one_cell(bench, tmp_path, monkeypatch, size, share, probe):
    """``bench`` run on 2 pictures of one cell, ``probe(reader, frame)`` noted at each
    read: the cell's row, the whole result and the notes."""
    from vision.reader import CardReader

    notes: list = []
    read = CardReader.read

    def spy(self, frame):
        notes.append(probe(self, frame))
        return read(self, frame)

    monkeypatch.setattr(CardReader, "read", spy)
    out = tmp_path / "out.json"
    assert bench.main(["--frames", "2", "--sizes", size, "--shares", str(share),
                       "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    row = got["sizes"][size]["rows"][0]
    assert row["share"] == share
    return row, got, notes


@pytest.mark.slow
def test_each_photo_is_read_with_the_finer_level_and_without(bench, tmp_path, monkeypatch):
    # The finer level exists for a photo this size only while the reader allows it.
    row, got, modes = _run_one_cell(
        bench, tmp_path, monkeypatch, "2560x1440", 0.085,
        lambda r, frame: r.detector.fine_scale(frame.shape[1], frame.shape[0]) is not None)
    for mode in ("fine", "before"):
        assert row[mode]["cards"] == 8
        assert 0 <= row[mode]["read"] <= 8 and row[mode]["invented"] >= 0
    assert modes == [True, False, True, False]
    # A held-out design first, then a drawn style, in turn.
    assert got["styles"][0].startswith("art-") and not got["styles"][1].startswith("art-")


@pytest.mark.slow
def test_each_picture_is_read_before_as_a_camera_frame_and_as_stills(tmp_path, monkeypatch):
    from vision.lab import decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    stills = importlib.import_module("benchmarks.stills")
    row, got, ways = _run_one_cell(stills, tmp_path, monkeypatch, "640x640", 0.12,
                                   lambda r, frame: (r.detector.finest, r.detector.calibrated,
                                                     r.detector.both_levels))
    for way in ("before", "camera", "still", "still_one_box"):
        assert row[way]["cards"] == 8
        assert 0 <= row[way]["read"] <= 8 and row[way]["invented"] >= 0
    assert ways == [(0.5, 1.0, False), (0.5, 0.5, True), (1.0, 0.5, True),
                    (1.0, 0.5, False)] * 2
    assert got["sizes"]["640x640"]["total"]["still"]["cards"] == 8
