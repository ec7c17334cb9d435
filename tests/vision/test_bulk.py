"""The bulk trainer (``vision.lab.bulk``): rendered shards, worker batches, the float model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.classify import MODELS


@pytest.fixture()
def tiny_shards(monkeypatch):
    from vision.lab import bulk, decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    monkeypatch.setattr(bulk, "SHARD", 2)
    return bulk


def test_bulk_training_writes_a_float_model_trained_from_the_start(tiny_shards, tmp_path):
    import onnx
    from onnx import numpy_helper

    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--out", str(tmp_path), "--frames", "6",
                             "--steps", "3", "--batch", "8", "--workers", "2"]) == 0
    summary = json.loads((tmp_path / "bulk_summary.json").read_text())
    assert summary["frames"] == 6 and summary["shards"] == "0-2" and summary["steps"] == 3
    assert summary["patches"] > summary["real_patches"] > 0
    trained = {t.name: numpy_helper.to_array(t)
               for t in onnx.load(str(tmp_path / "index_classifier_fp32.onnx")).graph.initializer}
    before = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(start)).graph.initializer}
    assert trained.keys() == before.keys()
    assert any(not np.array_equal(trained[k], before[k]) for k in trained)


def test_bulk_trains_each_start_on_the_same_frames_into_its_own_folder(tiny_shards, tmp_path):
    import onnx
    from onnx import numpy_helper

    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--init", str(start), "--out", str(tmp_path),
                             "--frames", "4", "--steps", "2", "--batch", "8",
                             "--workers", "2"]) == 0
    assert not (tmp_path / "index_classifier_fp32.onnx").exists()
    weights = []
    for run in ("1", "2"):
        summary = json.loads((tmp_path / run / "bulk_summary.json").read_text())
        assert summary["init"] == start.name and summary["frames"] == 4
        weights.append({t.name: numpy_helper.to_array(t) for t in onnx.load(
            str(tmp_path / run / "index_classifier_fp32.onnx")).graph.initializer})
    # One start, the same frames and the same batches: the same weights.
    assert all(np.allclose(weights[0][k], weights[1][k], atol=1e-5) for k in weights[0])


def test_bulk_refuses_a_start_that_is_not_there(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", str(MODELS / "index_classifier_fp32.onnx"),
                          "--init", str(tmp_path / "gone.onnx"), "--out", str(tmp_path / "o")])
    assert "gone.onnx" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_bulk_training_refuses_too_few_frames(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--frames", "1"])
    assert "--frames" in capsys.readouterr().err


def test_bulk_refuses_a_full_deck_share_out_of_range(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--spread-full", "1.5"])
    assert "--spread-full" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


def test_bulk_refuses_a_drawn_fonts_share_out_of_range(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--drawn-fonts", "-0.1"])
    assert "--drawn-fonts" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


@pytest.mark.parametrize("share", ["-0.1", "0.9"])
def test_bulk_refuses_a_recolour_share_that_leaves_no_room_for_grey(tiny_shards, tmp_path,
                                                                    capsys, share):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--recolour", share])
    assert "--recolour" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


def test_a_shard_drawn_with_drawn_fonts_leaves_them_set_for_its_worker(tiny_shards):
    from vision.lab import render

    try:
        crops, labels = tiny_shards._shard(("synth", 5, str(MODELS / "index_detector.onnx"),
                                            0.0, 0.0, (), 1, 0.0, 0.4))
        assert len(crops) == len(labels) > 0
        assert render.DRAWN_FONTS[0] == 0.4
    finally:
        render.use_extra_styles(art=False, printed=False, french_art=False)
        assert render.DRAWN_FONTS[0] == 0.0


def test_spread_shards_of_a_full_deck_teach_its_2s_to_6s_as_no_card(tiny_shards):
    from vision.lab import dataset as ds

    crops, labels = tiny_shards._shard(("spread", 7, str(MODELS / "index_detector.onnx"),
                                        0.0, 0.0, (), 1, 1.0, 0.0))
    assert len(crops) == len(labels) > 0
    # Spread frames drawn so show 2s to 6s, and every index of one is labelled none.
    rng = np.random.default_rng(7)
    lows = 0
    for _ in range(tiny_shards.SHARD):
        _, things = ds._spread_scene(rng, 1.0)
        low = [t for t in things if t["code"][0] in "23456"]
        lows += len(low)
        assert all(y == ds.NONE_INDEX for t in low for _, y in ds.index_truth(t))
    assert lows > 0


def test_bulk_refuses_to_favour_a_held_out_design(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path),
                          "--favour", "tigullio"])
    assert "tigullio" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


def test_a_favoured_design_is_drawn_that_many_times_as_often(tiny_shards):
    from vision.lab import decks, render

    manifest = decks.load_manifest()
    if not {"bellot", "anglo"} <= set(manifest["designs"]) - set(manifest["held_out"]):
        pytest.skip("bellot and anglo not cached as training designs")
    try:
        # A held-out design favoured (the command line refuses it) is still never drawn.
        crops, labels = tiny_shards._shard(("synth", 5, str(MODELS / "index_detector.onnx"),
                                            0.0, 0.0, ("bellot", *decks.HELD_OUT), 3, 0.0,
                                            0.0))
        assert len(crops) == len(labels) > 0
        names = [st.name for st in render.EXTRA_STYLES]
        assert names.count("art-bellot") == 3 and names.count("art-bellot-fr") == 3
        assert names.count("art-anglo") == 1
        assert not any(f"art-{d}" in n for n in names for d in decks.HELD_OUT)
    finally:
        render.EXTRA_STYLES.clear()


def test_a_share_of_the_shards_is_spread_cards_evenly_through_them():
    from vision.lab import bulk

    assert [bulk.shard_kind(i) for i in range(10)] == list(bulk.KINDS)
    kinds = [bulk.shard_kind(i, 0.3) for i in range(100)]
    assert kinds.count("spread") == 30
    # Evenly through them: 3 in every 10.
    assert all(kinds[i:i + 10].count("spread") == 3 for i in range(0, 100, 10))
    assert all(bulk.shard_kind(i, 1.0) == "spread" for i in range(20))


def test_bulk_draws_spread_shards_when_asked_and_says_so(tiny_shards, tmp_path):
    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--out", str(tmp_path), "--frames", "4",
                             "--steps", "1", "--batch", "8", "--workers", "1",
                             "--spread", "0.5"]) == 0
    summary = json.loads((tmp_path / "bulk_summary.json").read_text())
    assert summary["spread"] == 0.5 and summary["kinds"]["spread"] == 0.5


def test_bulk_refuses_a_spread_share_over_one(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), "--spread", "1.5"])
    assert "--spread" in capsys.readouterr().err


def test_spread_frames_are_boxed_closer_up_too_as_the_reader_boxes_crowds():
    """On the same spread frames, the patches of ``spread=True`` hold every box of the
    first level and those the closer pass finds: more cards' indices than the first
    level alone."""
    import cv2

    from vision.classify import IndexDetector
    from vision.lab import dataset as ds

    detector = MODELS / "index_detector.onnx"
    crops, labels, _, _ = ds.detector_samples(7, 3, detector, spread=True)
    det, rng = IndexDetector(detector), np.random.default_rng(7)
    first = []
    for _ in range(3):
        frame, things = ds._spread_scene(rng)
        truth = [t for a in things for t in ds.index_truth(a)]
        first += [ds.box_label(box, truth)
                  for box, _ in det.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))]
    first = [y for y in first if y != ds.AMBIGUOUS]
    assert len(labels) > len(first)
    cards = ds.taught(labels) != ds.NONE_INDEX
    first_cards = ds.taught(np.array(first)) != ds.NONE_INDEX
    assert int(cards.sum()) > int(first_cards.sum())
    assert crops.shape[0] == len(labels)


def test_bulk_trains_a_narrower_classifier_cut_from_the_start(tiny_shards, tmp_path):
    import onnx
    from onnx import numpy_helper

    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--out", str(tmp_path), "--frames", "4",
                             "--steps", "2", "--batch", "8", "--workers", "1",
                             "--widths", "16,24,32,48,128", "--distil", "0.5"]) == 0
    summary = json.loads((tmp_path / "bulk_summary.json").read_text())
    assert summary["widths"] == [16, 24, 32, 48, 128] and summary["distil"] == 0.5
    graph = onnx.load(str(tmp_path / "index_classifier_fp32.onnx")).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [weights[n.input[1]] for n in graph.node if n.op_type == "Conv"]
    assert [w.shape[0] for w in convs] == [16, 24, 32, 48, 128]


def test_bulk_trains_a_classifier_reading_smaller_patches_taught_by_the_start(
        tiny_shards, tmp_path):
    import onnx

    from vision.lab.train import _input_scale

    start = MODELS / "index_classifier_fp32.onnx"
    assert tiny_shards.main(["--init", str(start), "--out", str(tmp_path), "--frames", "4",
                             "--steps", "2", "--batch", "8", "--workers", "1",
                             "--scale", "0.75"]) == 0
    summary = json.loads((tmp_path / "bulk_summary.json").read_text())
    assert summary["scale"] == 0.75 and summary["distil"] == 0.7
    assert summary["widths"] is None
    graph = onnx.load(str(tmp_path / "index_classifier_fp32.onnx")).graph
    assert _input_scale(graph) == 0.75
    assert _input_scale(onnx.load(str(start)).graph) == 1.0


def test_bulk_trains_a_smaller_classifier_further_taught_by_another(tiny_shards, tmp_path):
    """A classifier already reading smaller patches, trained further (--scale as its own)
    and taught by the shipped one (--teacher), not by itself."""
    from onnx import load

    from vision.lab.train import _input_scale

    start = MODELS / "index_classifier_fp32.onnx"
    first = tmp_path / "first"
    assert tiny_shards.main(["--init", str(start), "--out", str(first), "--frames", "2",
                             "--steps", "1", "--batch", "8", "--workers", "1",
                             "--scale", "0.75"]) == 0
    again = tmp_path / "again"
    assert tiny_shards.main(["--init", str(first / "index_classifier_fp32.onnx"),
                             "--out", str(again), "--frames", "2", "--steps", "1",
                             "--batch", "8", "--workers", "1", "--scale", "0.75",
                             "--teacher", str(start)]) == 0
    summary = json.loads((again / "bulk_summary.json").read_text())
    assert summary["teacher"] == "index_classifier_fp32.onnx" and summary["scale"] == 0.75
    assert _input_scale(load(str(again / "index_classifier_fp32.onnx")).graph) == 0.75


def test_bulk_refuses_a_teacher_with_nothing_to_teach_or_no_model(tiny_shards, tmp_path,
                                                                   capsys):
    start = str(MODELS / "index_classifier_fp32.onnx")
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", start, "--out", str(tmp_path), "--teacher", start])
    assert "--teacher: only with --widths or --scale" in capsys.readouterr().err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", start, "--out", str(tmp_path), "--scale", "0.75",
                          "--teacher", str(bad)])
    assert "--teacher" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


@pytest.mark.parametrize(("option", "value"), [
    ("--widths", "16,24,32"), ("--widths", "a,b,c,d,e"), ("--widths", "16,24,32,48,0"),
    ("--scale", "0"), ("--scale", "1.5"), ("--scale", "-0.75")])
def test_bulk_refuses_widths_or_a_scale_it_cannot_train(tiny_shards, tmp_path, capsys,
                                                        option, value):
    """Widths that are not five channel counts, a scale that is no share of the patch's
    side: refused, nothing written."""
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", "x.onnx", "--out", str(tmp_path), option, value])
    assert option in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()


def test_bulk_refuses_widths_wider_than_the_start(tiny_shards, tmp_path, capsys):
    with pytest.raises(SystemExit):
        tiny_shards.main(["--init", str(MODELS / "index_classifier_fp32.onnx"),
                          "--out", str(tmp_path), "--frames", "2", "--steps", "1",
                          "--workers", "1", "--widths", "16,24,32,256,128"])
    assert "--widths" in capsys.readouterr().err
    assert not (tmp_path / "bulk_summary.json").exists()
