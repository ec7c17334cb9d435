"""Where the reader misses cards: the breakdown ``benchmarks/misses.py`` writes."""

from __future__ import annotations

import json

import cv2
import pytest

from vision.lab.evaluate import (
    SAVED_QUALITY,
    design_frames,
    evaluate,
    make_synthetic_set,
    miss_breakdown,
    synthetic_frames,
)


def card(read: bool, blur: str = "none", share: float = 0.25, shown: float = 1.0) -> dict:
    return {"read": read, "blur": blur, "share": share, "shown": shown}


def test_breakdown_sorts_each_card_into_one_band_of_each_kind():
    cards = [card(True), card(False, "motion", 0.18), card(True, "focus", 0.23, 0.95),
             card(False, "none", 0.30, 0.8), card(True, "motion", 0.35, 0.9)]
    out = miss_breakdown(cards, [{"blur": "motion"}])
    assert out["all"] == {"cards": 5, "missed": 2, "invented": 1, "read_right": 60.0}
    blur = out["by camera blur"]
    assert [blur[k]["cards"] for k in ("none", "focus", "motion")] == [2, 1, 2]
    assert [blur[k]["missed"] for k in ("none", "focus", "motion")] == [1, 0, 1]
    assert blur["motion"]["invented"] == 1 and blur["none"]["invented"] == 0
    # Bands are closed below: 23 % is the band calibrate calls good, 95 % is "fully".
    size = out["by card size"]
    assert [f["cards"] for f in size.values()] == [1, 2, 2]
    seen = out["by index seen"]
    assert [f["cards"] for f in seen.values()] == [2, 3]
    assert seen["80-95 % of the index seen"]["missed"] == 1
    # Sharp and fully seen: the first card and the third's 95 % is not sharp.
    assert out["sharp, index fully seen"] == {"cards": 1, "missed": 0, "invented": 0,
                                              "read_right": 100.0}
    for group in ("by camera blur", "by card size", "by index seen"):
        assert sum(f["cards"] for f in out[group].values()) == 5, group


def test_an_empty_band_has_no_share_read_right():
    out = miss_breakdown([card(True, "focus")])
    assert out["by camera blur"]["motion"] == {"cards": 0, "missed": 0, "invented": 0,
                                              "read_right": None}


def test_the_frames_told_are_the_frames_written(tmp_path):
    out = make_synthetic_set(tmp_path / "s", 3, 9001, "french")
    labels = json.loads((out / "labels.json").read_text())
    told = list(synthetic_frames(3, 9001, "french"))
    assert [name for name, *_ in told] == sorted(labels)
    for name, frame, things, faults in told:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
        assert ok and (out / name).read_bytes() == buf.tobytes()
        assert faults["blur"] in {"none", "focus", "motion"}
        assert all("index_shown" in a for a in things)


@pytest.fixture(scope="module")
def misses():
    from benchmarks import misses

    return misses


@pytest.mark.slow
def test_the_benchmark_counts_what_eval_counts(misses, tmp_path, monkeypatch):
    """On the same frames, the breakdown's readable cards, misses and inventions are
    `vision eval`'s readable figures."""
    cards = invented = missed = 0
    from vision.reader import CardReader
    reader = CardReader()
    for name, seed, decks, _ in misses.SYNTHETIC:
        if name not in misses.GROUPS["random scenes"]:
            continue
        r = evaluate(reader, make_synthetic_set(tmp_path / name, 6, seed, decks))["readable"]
        cards, missed, invented = cards + r["cards"], missed + r["missed"], invented + r["invented"]
    monkeypatch.setattr(misses, "DATA", tmp_path)
    result = misses.main(["--frames", "6", "--jobs", "1", "--out", str(tmp_path / "m.json")])
    assert json.loads((tmp_path / "m.json").read_text())["breakdown"] == result["breakdown"]
    everything = result["breakdown"]["all"]
    assert (everything["cards"], everything["missed"], everything["invented"]) == (
        cards, missed, invented)
    assert cards > 100
    assert len(result["missed"]) == missed
    # The frames rendered again are those just written.
    assert result["stored_frames"] == {"compared": 24, "identical": 24}


def test_card_share_is_the_faces_height_over_the_frames(misses):
    quad = [[100, 100], [160, 100], [160, 190], [100, 190]]
    assert misses.card_share(quad, 720) == pytest.approx(90 / 720)


@pytest.mark.parametrize("args", [["--frames", "0"], ["--jobs", "-1"], ["--frames", "many"]])
def test_the_benchmark_refuses_a_bad_count_and_writes_nothing(misses, tmp_path, capsys, args):
    out = tmp_path / "m.json"
    with pytest.raises(SystemExit) as stop:
        misses.main([*args, "--out", str(out)])
    assert stop.value.code == 2 and not out.exists()
    assert args[0] in capsys.readouterr().err


def test_design_frames_repeat_with_their_seed_and_name_only_cards_in_sight():
    styles = ["fr-ducale", "fr-grimaud"]
    first = list(design_frames(styles, 3, 4242))
    again = list(design_frames(styles, 3, 4242))
    other = list(design_frames(styles, 3, 4243))
    assert len(first) == 3
    for (f1, r1, p1), (f2, r2, p2) in zip(first, again, strict=True):
        assert f1.dtype == "uint8" and f1.ndim == 3 and f1.shape[2] == 3
        assert (f1 == f2).all() and r1 == r2 and p1 == p2
        assert r1 <= p1
    assert any(not (a[0].shape == b[0].shape and (a[0] == b[0]).all())
               for a, b in zip(first, other, strict=True))
