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


def test_held_out_figures_split_motion_by_its_length(misses):
    rows = [card(True, "motion"), card(False, "motion"), card(False, "motion"), card(True)]
    for r, px in zip(rows, (3.0, 5.0, 8.0, 0.0), strict=True):
        r["blur_px"] = px
    got = misses.held_out_figures(rows, [])
    assert got["motion by length"] == {"3-5 px": {"cards": 2, "missed": 1},
                                       "6-8 px": {"cards": 1, "missed": 1}}
    assert got["by camera blur"]["motion"]["missed"] == 2


def test_index_check_tells_a_boxed_index_from_one_no_box_covers(misses):
    import numpy as np

    from vision.lab.render import render_scene
    from vision.reader import CardReader

    reader = CardReader()
    frame, things = render_scene(np.random.default_rng(4), n_cards=5, style="fr-grimaud")
    thing = next(a for a in things if a["belote"] and a["readable"])
    own = [b for b, r in zip(thing["index_boxes"], thing["index_readable"], strict=True) if r]
    boxed = misses.index_check(reader, frame, own, thing)
    assert boxed["box_overlap"] == pytest.approx(1.0)
    apart = [(b[0] + 400, b[1] + 400, b[2] + 400, b[3] + 400) for b in own]
    assert misses.index_check(reader, frame, apart, thing)["box_overlap"] == 0.0
    assert misses.index_check(reader, frame, [], thing) == {
        "box_overlap": 0.0, "true_box_chance": boxed["true_box_chance"]}
    assert 0.0 <= boxed["true_box_chance"] <= 1.0


@pytest.mark.slow
def test_the_held_out_mode_reads_what_real_decks_choose_reads(misses, tmp_path, monkeypatch):
    """One held-out design's frames: the general model's figures are those of
    ``real_decks.py --choose 1``; the same cards are counted with the deck; each card the
    general model misses is told by its index."""
    from benchmarks.real_decks import seed_of, synthetic_set
    from vision.lab import decks, render
    from vision.lab.evaluate import design_styles
    from vision.reader import CardReader

    design = "kde-dondorf"
    if decks.load_manifest() is None or design not in decks.HELD_OUT:
        pytest.skip("no deck designs cached (make decks)")
    monkeypatch.setattr(decks, "HELD_OUT", (design,))
    out = tmp_path / "h.json"
    result = misses.main(["--held-out", "--frames", "3", "--jobs", "1", "--out", str(out)])
    assert json.loads(out.read_text()) == result
    assert result["designs"] == [design] and result["seed_offset"] == 1
    render.art_styles(held_out=None, french_art=True)
    want = synthetic_set(CardReader(), design_styles(design), 3, seed_of(design) + 1,
                         grey_too=False)["figures"]["all"]
    general, deck = result["general"]["breakdown"]["all"], result["deck"]["breakdown"]["all"]
    assert (general["cards"], general["missed"], general["invented"]) == (
        want["cards"], want["missed"], want["invented"])
    assert deck["cards"] == general["cards"] > 10
    # The sharpened pass only adds cards the frame as it is did not name.
    unsharpened = result["unsharpened"]["breakdown"]["all"]
    assert unsharpened["cards"] == general["cards"]
    assert general["missed"] <= unsharpened["missed"]
    assert all(0.0 < result[w]["ms_per_frame"]["mean"] <= result[w]["ms_per_frame"]["max"]
               for w in ("general", "unsharpened", "deck"))
    missed = result["general"]["missed"]
    assert len(missed) == general["missed"]
    assert all(0.0 <= m["box_overlap"] <= 1.0 and 0.0 <= m["true_box_chance"] <= 1.0
               for m in missed)
    by_index = result["general_missed_by_index"]
    assert by_index["no_box_over_the_index"] + by_index["boxed_true_box_read_surely"] + \
        by_index["boxed_true_box_unsure"] == len(missed)


def test_the_held_out_mode_without_the_designs_says_how_and_writes_nothing(
        misses, tmp_path, monkeypatch, capsys):
    from vision.lab import decks

    monkeypatch.setattr(decks, "DATA", tmp_path / "nothing")
    out = tmp_path / "h.json"
    with pytest.raises(SystemExit) as stop:
        misses.main(["--held-out", "--out", str(out)])
    assert stop.value.code == 2 and not out.exists()
    assert decks.NOT_CACHED in capsys.readouterr().err
