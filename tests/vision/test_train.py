"""Training smoke test: a few steps through the real training code, exported to ONNX,
checked against onnxruntime, then loaded by the reader."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.slow
def test_a_few_training_steps_give_a_working_onnx_reader(tmp_path):
    from vision.lab import train
    from vision.lab.render import render_scene
    from vision.reader import CardReader

    out = tmp_path / "models"
    summary = train.run(seed=3, steps=4, det_steps=2, scenes=3, out=out, real=False,
                        faces=40, cache=tmp_path / "cache", log=lambda _: None,
                        detector_scenes=2)
    for name in ("index_classifier.onnx", "index_classifier_fp32.onnx",
                 "index_classifier.json", "index_detector.onnx",
                 "card_corner.onnx", "card_corner.json", "train_summary.json"):
        assert (out / name).is_file(), name
    # The export check ran against onnxruntime inside train.run.
    assert summary["classifier"]["onnx_max_diff"] < 1e-3
    assert summary["detector"]["onnx_max_diff"] < 1e-3
    # The reader's classifier is the float one made 8-bit, and calibrated as such.
    quantized = summary["classifier"]["quantized"]
    assert quantized["samples"] > 0 and 0.0 <= quantized["float_agreement"] <= 1.0
    assert (out / "index_classifier.onnx").stat().st_size < \
        (out / "index_classifier_fp32.onnx").stat().st_size / 2
    # The detector's own boxes were cut from frames of their own (hard negatives).
    [shard] = (tmp_path / "cache").glob("detbox6_*.npz")
    assert summary["detector_scenes"] == 2
    with np.load(shard) as d:
        assert d["crops"].shape[1:] == (32, 32, 3) and len(d["labels"]) == len(d["crops"])
        assert d["looks"].shape[:2] == (len(d["crops"]), 7)
    meta = json.loads((out / "index_classifier.json").read_text())
    assert meta["float_model"] == "index_classifier_fp32.onnx"
    assert meta["temperature"] > 0 and 0.5 <= meta["threshold"] <= 1.0
    assert len(meta["classes"]) == 33 and meta["classes"][-1] == "none"
    frame, _ = render_scene(np.random.default_rng(1), n_cards=3)
    for model in ("index_classifier.onnx", "card_corner.onnx"):
        found = CardReader(out / model).read(frame)
        assert isinstance(found, list)
    # `vision train --only quantize` makes the same 8-bit model again from the float one.
    made = (out / "index_classifier.onnx").read_bytes()
    (out / "index_classifier.onnx").unlink()
    again = train.run(seed=3, steps=4, det_steps=2, scenes=3, out=out, real=False, faces=40,
                      cache=tmp_path / "cache", log=lambda _: None, detector_scenes=2,
                      parts=("quantize",))
    assert (out / "index_classifier.onnx").read_bytes() == made
    assert again["classifier"]["temperature"] == summary["classifier"]["temperature"]
    (out / "index_classifier_fp32.onnx").unlink()
    # Refused before any data are loaded (none are cached here).
    with pytest.raises(ValueError, match="no float classifier"):
        train.run(seed=3, steps=4, scenes=3, out=out, real=False, cache=tmp_path / "empty",
                  log=lambda _: None, detector_scenes=2, parts=("quantize",))
    assert not (tmp_path / "empty").exists()


@pytest.fixture(scope="module")
def detector_boxes():
    """The shipped detector's boxes on four rendered frames (patches, labels, looks)."""
    from vision.classify import DEFAULT_MODEL
    from vision.lab import dataset as ds

    return ds.detector_samples(11, 4, DEFAULT_MODEL.with_name("index_detector.onnx"))


def test_detector_boxes_are_labelled_with_the_card_under_them(detector_boxes):
    """The shipped detector's boxes on rendered frames: a box on an index gets that
    card's label (the shipped classifier agrees), a box clear of every index ``none``."""
    from vision.classify import CardClassifier
    from vision.lab import dataset as ds
    from vision.locate import LOOKS

    crops, labels, looks, _ = detector_boxes
    assert crops.shape == (len(labels), 32, 32, 3)
    # The second look's patches are cut where the detector boxes the index on a closer
    # look: for some boxes that is another box than the first read's.
    assert looks.shape[:2] == (len(labels), len(LOOKS))
    assert (looks[:, 0] != crops).any(axis=(1, 2, 3)).any()
    cards = ds.taught(labels) != ds.NONE_INDEX
    assert cards.sum() >= 8 and (~cards).sum() >= 8
    read = CardClassifier().probabilities(crops[cards]).argmax(axis=1)
    assert (read == labels[cards]).mean() >= 0.8
    # A box on a hidden index keeps the card it shows, apart from the 32 classes.
    assert (labels[~cards] == ds.NONE_INDEX).all() or (labels >= ds.HIDDEN).any()


def test_second_look_is_calibrated_on_the_boxes_it_will_read(detector_boxes):
    """With every box unsure, the second look is fitted on all of them: a positive
    temperature, a threshold in range, most cards read surely and right, almost none
    wrong. With no box unsure there is nothing to fit."""
    from vision.classify import CardClassifier
    from vision.lab import dataset as ds
    from vision.lab import train

    crops, _, looks, look_labels = detector_boxes
    clf = CardClassifier()
    look = train.calibrate_second_look(clf, looks, look_labels, clf.temperature, 1.01,
                                       first=crops)
    # Boxes whose closer look half meets an index are left out of the fit.
    assert look is not None and look["unsure"] == (look_labels != ds.AMBIGUOUS).sum()
    assert look["temperature"] > 0 and 0.5 <= look["threshold"] <= 1.0
    cards = int(((ds.taught(look_labels) != ds.NONE_INDEX) &
                 (look_labels != ds.AMBIGUOUS)).sum())
    assert look["recovered"] >= 0.7 * cards
    assert look["wrong"] <= max(1, 0.01 * cards)
    assert train.calibrate_second_look(clf, looks, look_labels, clf.temperature, 0.0,
                                       first=crops) is None
    fixed = train.calibrate_second_look(clf, looks, look_labels, clf.temperature, 1.01,
                                        first=crops, look_temperature=0.5)
    assert fixed is not None and fixed["temperature"] == 0.5


def test_calibration_writes_stricter_thresholds_for_grey_frames(detector_boxes, tmp_path):
    """The patches turned grey give the thresholds a grey frame is read at: never under
    the colour ones, written beside them."""
    import json
    import shutil

    from vision.classify import MODELS
    from vision.lab import train

    crops, labels, looks, look_labels = detector_boxes
    shutil.copy(MODELS / "index_classifier.onnx", tmp_path / "index_classifier.onnx")
    result = train.calibrate_index_classifier(tmp_path, crops, labels, 0, log=lambda m: None,
                                              looks=(crops, looks, look_labels))
    meta = json.loads((tmp_path / "index_classifier.json").read_text())
    assert meta["grey"]["threshold"] >= meta["threshold"]
    assert result["grey"]["threshold"] == meta["grey"]["threshold"]
    assert 0.0 < result["grey"]["calib_accuracy"] <= 1.0
    if "second_look" in meta:
        assert meta["grey"]["look_threshold"] >= meta["second_look"]["threshold"]
    # The new model brings the reader's tuned values, every one of the shipped record's
    # (the deck's, enrolment's, outlines' and second look's among them).
    from vision.settings import load_settings, shipped_settings

    assert load_settings(tmp_path / "index_classifier.json") == shipped_settings()
    assert {"deck_prototype", "look_cuts", "outline_area", "camera_finest",
            "card_share"} <= set(meta["reader"])


def test_a_looser_colour_rule_leaves_the_grey_thresholds_as_strict(detector_boxes, tmp_path,
                                                                   monkeypatch):
    """``--max-error`` loosens the colour thresholds only: a grey frame keeps the rule of
    ``GREY_MAX_ERROR``, its thresholds the same whatever the colour rule."""
    import json
    import shutil

    from vision.classify import MODELS
    from vision.lab import dataset as ds
    from vision.lab import train

    crops, labels, looks, look_labels = detector_boxes
    # A few boxes of cards labelled as the next card: reads the rules must weigh as wrong.
    labels = labels.copy()
    cards = np.nonzero(ds.taught(labels) != ds.NONE_INDEX)[0][::3]
    labels[cards] = (ds.taught(labels[cards]) + 1) % ds.NONE_INDEX
    shutil.copy(MODELS / "index_classifier.onnx", tmp_path / "index_classifier.onnx")
    metas = []
    for rule in (train.GREY_MAX_ERROR, 0.3):
        monkeypatch.setattr(train, "INDEX_MAX_ERROR", rule)
        train.calibrate_index_classifier(tmp_path, crops, labels, 0, log=lambda m: None,
                                         looks=(crops, looks, look_labels))
        metas.append(json.loads((tmp_path / "index_classifier.json").read_text()))
    strict, loose = metas
    assert loose["threshold"] < strict["threshold"]  # the colour rule did loosen
    assert loose["grey"]["threshold"] == strict["grey"]["threshold"]
    # The grey second look is fitted at the grey rule too, whatever the colour one.
    from vision.classify import CardClassifier

    clf = CardClassifier()
    wrong_looks = look_labels.copy()
    seen = np.nonzero((ds.taught(look_labels) != ds.NONE_INDEX)
                      & (look_labels != ds.AMBIGUOUS))[0][::5]
    wrong_looks[seen] = (ds.taught(look_labels[seen]) + 1) % ds.NONE_INDEX
    looked = []
    for rule, given in ((train.GREY_MAX_ERROR, None), (0.3, train.GREY_MAX_ERROR), (0.3, None)):
        monkeypatch.setattr(train, "INDEX_MAX_ERROR", rule)
        looked.append(train.calibrate_second_look(clf, looks, wrong_looks, clf.temperature,
                                                  1.01, first=crops, look_temperature=1.0,
                                                  max_error=given)["threshold"])
    assert looked[0] == looked[1] > looked[2]


def test_an_index_too_hidden_to_name_is_taught_as_none():
    from vision.lab import dataset as ds

    note = {"code": "KS", "index_boxes": [[0, 0, 10, 20], [50, 60, 60, 80]],
            "index_readable": [False, True]}
    ks = ds.CLASS_INDEX["KS"]
    truth = ds.index_truth(note)
    assert truth == [([0, 0, 10, 20], ds.HIDDEN + ks), ([50, 60, 60, 80], ks)]
    labels = np.array([y for _, y in truth] + [ds.NONE_INDEX])
    assert ds.taught(labels).tolist() == [ds.NONE_INDEX, ks, ds.NONE_INDEX]
    assert ds.shown(labels).tolist() == [ks, -1, -1]
    # A hidden index of a card that is no belote card is plain ``none``.
    five = {"code": "5C", "index_boxes": [[0, 0, 10, 20]], "index_readable": [False]}
    assert ds.index_truth(five) == [([0, 0, 10, 20], ds.NONE_INDEX)]
    # Rendered frames: the crops' labels follow each index's readability.
    rng = np.random.default_rng(2)
    seen = [y for _ in range(12) for a in ds._training_scene(rng)[1] if a["belote"]
            for _, y in ds.index_truth(a)]
    assert max(seen) >= ds.HIDDEN and len({y for y in seen if y < ds.HIDDEN}) >= 10


def test_naming_the_card_a_hidden_index_shows_is_no_calibration_mistake():
    from vision.lab import dataset as ds
    from vision.lab import train

    # 1000 card reads, ten of them (halfway down) of a hidden index naming its card.
    n = 1000
    probs = np.zeros((n, len(ds.CLASSES)))
    conf = np.linspace(0.999, 0.9, n)
    probs[:, 3] = conf
    probs[:, ds.NONE_INDEX] = 1 - conf
    y = np.full(n, 3)
    y[500:510] = ds.HIDDEN + 3
    taught, also = ds.taught(y), ds.shown(y)
    strict = train.pick_threshold(probs, taught, ds.NONE_INDEX, 0.001)
    assert strict == conf[499]  # counted as mistakes, they stop the threshold there
    assert train.pick_threshold(probs, taught, ds.NONE_INDEX, 0.001, also) == conf[-1]
    # Naming another card stays a mistake.
    assert train.pick_threshold(probs, taught, ds.NONE_INDEX, 0.001, also - 1) == conf[499]


def test_a_box_is_labelled_by_the_index_it_meets():
    from vision.lab import dataset as ds

    truth = [((10, 10, 30, 40), 5), ((100, 100, 120, 130), 7)]
    assert ds.box_label((11, 12, 31, 41), truth) == 5
    assert ds.box_label((98, 101, 119, 128), truth) == 7
    assert ds.box_label((200, 200, 220, 230), truth) == ds.NONE_INDEX
    assert ds.box_label((20, 25, 40, 55), truth) == ds.AMBIGUOUS  # half on the first index
    assert ds.box_label((0, 0, 5, 5), []) == ds.NONE_INDEX


def test_training_is_seeded(tmp_path):
    from vision.lab import train

    x = np.random.default_rng(0).integers(0, 255, size=(64, 32, 32), dtype=np.uint8)
    y = np.arange(64) % 33
    a = train.train_classifier(x, y, steps=3, seed=5, n_classes=33, rotate=True,
                               log=lambda _: None, batch=16)
    b = train.train_classifier(x, y, steps=3, seed=5, n_classes=33, rotate=True,
                               log=lambda _: None, batch=16)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)


def test_batches_made_by_workers_give_the_same_weights_whatever_their_number():
    from vision.lab import train

    x = np.random.default_rng(1).integers(0, 255, size=(64, 32, 32, 3), dtype=np.uint8)
    y = np.arange(64) % 33
    runs = [train.train_classifier(x, y, steps=4, seed=3, n_classes=33, rotate=True,
                                   log=lambda _: None, batch=8, workers=n) for n in (1, 2)]
    serial = train.train_classifier(x, y, steps=4, seed=3, n_classes=33, rotate=True,
                                    log=lambda _: None, batch=8)
    for pa, pb in zip(runs[0].parameters(), runs[1].parameters(), strict=True):
        assert torch.equal(pa, pb)
    # The workers draw each batch from its own generator, not the serial run's one.
    assert not all(torch.equal(pa, pb) for pa, pb in zip(runs[0].parameters(),
                                                         serial.parameters(), strict=True))
    assert not train._BATCH_SPEC  # the workers' data are let go


def test_temperature_and_threshold_fit_held_out_logits():
    from vision.lab import train

    rng = np.random.default_rng(0)
    y = rng.integers(0, 33, size=500)
    logits = rng.normal(0, 1, size=(500, 33)).astype(np.float32)
    right = rng.random(500) < 0.8
    logits[np.arange(500)[right], y[right]] += 3.0  # right four times in five
    overconfident = logits * 4
    t = train.fit_temperature(overconfident, y)
    assert t > 2.0  # scaling back down
    probs = train.softmax(logits)
    threshold = train.pick_threshold(probs, y, none_index=32)
    assert 0.5 <= threshold < 1.0


def test_the_look_floor_gives_up_at_most_the_allowed_share_of_recovered_boxes():
    from vision.lab import train

    rng = np.random.default_rng(1)
    top = rng.random(2000) ** 3  # most unsure boxes all but ruled out
    recovered = rng.random(2000) < top  # the likelier a card, the likelier the look reads it
    got = train.look_floor(top, recovered, loss=0.01)
    lost = int((recovered & (top < got["floor"])).sum())
    assert lost <= 0.01 * recovered.sum()
    # The highest such floor: one box more under it would lose one too many.
    assert int((recovered & (top <= got["floor"])).sum()) > 0.01 * recovered.sum() - 1
    assert 0.0 < got["skipped"] < 1.0
    assert got["skipped"] == pytest.approx(float((top < got["floor"]).mean()))
    assert train.look_floor(top, np.zeros(2000, bool))["floor"] == 0.0


def test_augmented_patches_are_sometimes_grey_and_zoomed():
    """The classifier's augmentation: some colour patches lose their colour (a grey
    diamond must still read as a diamond) and some are zoomed or shifted (a loose box)."""
    from vision.lab import train

    rng = np.random.default_rng(0)
    patch = np.zeros((32, 32, 3), np.uint8)
    patch[..., 2] = 200  # red
    patch[12:20, 12:20] = 255
    grey = [train._desaturate(patch, rng) for _ in range(400)]
    share = np.mean([(g[..., 0] == g[..., 2]).all() for g in grey])
    assert 0.08 < share < 0.25
    assert (train._desaturate(patch, rng, share=0.0) == patch).all()
    white = [int((train._rotate_crop(patch, rng)[..., 0] == 255).sum()) for _ in range(200)]
    assert min(white) < 64 < max(white)  # smaller and larger than the 8 x 8 square


def test_patches_and_detector_samples_are_stretched_only_when_asked():
    """``--aspect``: half the patches are stretched in width against height, by at most
    the ratio asked, and the detector's boxes follow its samples' stretch. At 1 (how the
    first models were trained) nothing is drawn, so the same seed gives the same patches."""
    from vision.lab import train

    patch = np.zeros((32, 32), np.uint8)
    patch[10:22, 10:22] = 255  # a 12 x 12 square
    ratios = []
    rng = np.random.default_rng(1)
    for _ in range(300):
        m = train._aspect_matrix(rng, 1.4, 16.0)
        ratios.append(m[0, 0] / m[1, 1])
        # The patch's centre stays put.
        assert np.allclose(m @ np.float64([16, 16, 1]), [16, 16])
    ratios = np.array(ratios)
    assert 0.35 < np.mean(ratios != 1.0) < 0.65
    assert ratios.min() >= 1 / 1.4 - 1e-9 and ratios.max() <= 1.4 + 1e-9
    assert ratios.min() < 0.85 and ratios.max() > 1.15
    a, b = np.random.default_rng(2), np.random.default_rng(2)
    assert (train._rotate_crop(patch, a) == train._rotate_crop(patch, b, aspect=1.0)).all()
    assert a.random() == b.random()  # aspect 1 drew nothing more
    # A detector sample: the stretched frame's white square is where its box says.
    frame = np.zeros((360, 640), np.uint8)
    frame[100:140, 200:240] = 255
    box = np.float32([[200, 100, 240, 140]])
    widths = []
    rng = np.random.default_rng(3)
    for _ in range(40):
        img, b = train._det_sample(frame, box, rng, real=False, aspect=1.4)
        if len(b) == 0 or b[0, 0] < 2 or b[0, 1] < 2 or b[0, 2] > 252 or b[0, 3] > 252:
            continue  # cut by the patch's edge
        x1, y1, x2, y2 = b[0]
        inner = img[int(y1) + 2:int(y2) - 1, int(x1) + 2:int(x2) - 1]
        # Light and noise change, the square stays: bright inside, the dark felt around it.
        assert inner.mean() > np.median(img) + 50
        widths.append((x2 - x1) / (y2 - y1))
    assert len(widths) >= 5 and max(abs(np.log(w)) for w in widths) > 0.05


def test_an_exported_classifier_is_taken_back_to_train_further(detector_boxes):
    """``--init``: the shipped ONNX classifier becomes a torch model again (its folded batch
    norms put back) that computes what onnxruntime computes, in evaluation mode exactly and
    in training mode all but exactly, so that training goes on from where it was."""
    from vision.classify import DEFAULT_MODEL, make_session
    from vision.lab import train

    crops, _, _, _ = detector_boxes
    half = len(crops) // 2
    assert half >= 16
    float_model = DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER)
    model = train.classifier_from_onnx(float_model, crops[:half])
    x = crops[half:]
    ref = make_session(float_model, 1).run(None, {"image": np.ascontiguousarray(
        x.transpose(0, 3, 1, 2)).astype(np.float32) / 255})[0]
    t = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)).astype(np.float32) / 255)
    with torch.no_grad():
        assert np.abs(model(t).numpy() - ref).max() < 1e-3
        # In training mode the batch's own statistics replace the folded ones: on a batch
        # of every patch (half of them not in the sample the norms were put back from),
        # the answers stay the same. (On the 35 new patches alone one or two near ties
        # flip, depending on the thread count.)
        model.train()
        t_all = torch.from_numpy(np.ascontiguousarray(
            crops.transpose(0, 3, 1, 2)).astype(np.float32) / 255)
        ref_all = make_session(float_model, 1).run(None, {"image": t_all.numpy()})[0]
        assert (model(t_all).numpy().argmax(1) == ref_all.argmax(1)).mean() >= 0.95
    with pytest.raises(ValueError, match="not an index classifier"):
        train.classifier_from_onnx(DEFAULT_MODEL.with_name("card_corner.onnx"), crops[:8])


def test_an_unreadable_starting_model_is_refused_before_any_work(tmp_path, capsys):
    from cli.cmd_vision import main

    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    out = tmp_path / "models"
    from vision.classify import DEFAULT_MODEL

    for path, reason in ((bad, "not an ONNX model"),
                         (tmp_path / "none.onnx", "none.onnx : fichier de modèle introuvable"),
                         (DEFAULT_MODEL, "an 8-bit model")):
        assert main(["train", "--only", "classifier", "--init", str(path), "--out", str(out),
                     "--steps", "1"]) == 2
        assert reason in capsys.readouterr().err
    assert not (out / "index_classifier.onnx").exists()
    # A stretch outside 1-2 is refused before anything is made.
    for bad_aspect in ("0.5", "3"):
        assert main(["train", "--only", "classifier", "--aspect", bad_aspect, "--out", str(out),
                     "--steps", "1"]) == 2
        assert "aspect: expected a ratio from 1 to 2" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_a_classifier_cut_to_its_own_widths_is_the_same_and_a_narrower_one_loads_back(
        detector_boxes, tmp_path):
    """``prune_classifier``: kept at every channel it computes the model exactly; cut
    narrower it exports and loads back at its own widths (``classifier_from_onnx`` reads
    them off the file), computing what onnxruntime computes."""
    from vision.classify import DEFAULT_MODEL, make_session
    from vision.lab import train

    crops, _, _, _ = detector_boxes
    model = train.classifier_from_onnx(DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER), crops)
    t = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
                         / 255)
    with torch.no_grad():
        ref = model(t)
        same = train.prune_classifier(model, model.widths, crops)
        assert torch.equal(same(t), ref)
        narrow = train.prune_classifier(model, (16, 24, 32, 48, 128), crops)
        assert narrow.widths == (16, 24, 32, 48, 128)
        # A cut-down model still answers, but differently: it is a start, not the model.
        assert not torch.allclose(narrow(t), ref, atol=1e-2)
    path = tmp_path / "narrow.onnx"
    assert train.export_classifier(narrow, path) < 1e-3
    back = train.classifier_from_onnx(path, crops)
    assert back.widths == (16, 24, 32, 48, 128)
    got = make_session(path, 1).run(None, {"image": t.numpy()})[0]
    with torch.no_grad():
        assert np.abs(back(t).numpy() - got).max() < 1e-3
    for bad in ((16, 24, 32, 48), (16, 24, 32, 256, 128), (0, 24, 32, 48, 128)):
        with pytest.raises(ValueError, match="widths"):
            train.prune_classifier(model, bad, crops)


def test_a_classifier_reading_smaller_patches_exports_and_loads_back_at_its_scale(
        detector_boxes, tmp_path):
    """``rescaled``: at scale 1 the model as it was; at 0.75 the same weights read the
    patch brought down to 24 of its 32 pixels (an ONNX Resize at the model's start, the
    input still 32 square), which ``classifier_from_onnx`` reads off the file, and the
    8-bit model made from it takes about half the multiply-adds' time."""
    from vision.classify import DEFAULT_MODEL, make_session
    from vision.lab import train

    crops, _, _, _ = detector_boxes
    model = train.classifier_from_onnx(DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER), crops)
    assert model.net[0].scale == 1.0
    t = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
                         / 255)
    with torch.no_grad():
        ref = model(t)
        assert torch.equal(train.rescaled(model, 1.0)(t), ref)
        small = train.rescaled(model, 0.75)
        # The same weights on a smaller picture answer otherwise: a start, not the model.
        assert not torch.allclose(small(t), ref, atol=1e-2)
        assert torch.equal(model(t), ref)  # the model itself is left as it was
    path = tmp_path / "small.onnx"
    assert train.export_classifier(small, path) < 1e-3
    back = train.classifier_from_onnx(path, crops)
    assert back.net[0].scale == 0.75 and back.widths == model.widths
    got = make_session(path, 1).run(None, {"image": t.numpy()})[0]
    with torch.no_grad():
        assert np.abs(back(t).numpy() - got).max() < 1e-3
    # Cut narrower too, it keeps its scale.
    assert train.prune_classifier(back, (16, 24, 32, 48, 128), crops).net[0].scale == 0.75
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="scale"):
            train.rescaled(model, bad)


def test_a_narrow_classifier_taught_by_the_wide_one_comes_closer_to_its_answers(
        detector_boxes):
    """Distillation: trained on the teacher's softened answers alone (``distil`` 1), a cut
    classifier's answers move towards the teacher's on the patches it was taught on."""
    from vision.classify import DEFAULT_MODEL
    from vision.lab import dataset as ds
    from vision.lab import train

    crops, labels, _, _ = detector_boxes
    teacher = train.classifier_from_onnx(DEFAULT_MODEL.with_name(train.FLOAT_CLASSIFIER),
                                         crops)
    t = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
                         / 255)

    def divergence(student) -> float:
        with torch.no_grad():
            return float(torch.nn.functional.kl_div(
                torch.log_softmax(student(t), 1), torch.log_softmax(teacher(t), 1),
                log_target=True, reduction="batchmean"))

    start = train.prune_classifier(teacher, (8, 16, 16, 32, 64), crops)
    before = divergence(start)
    taught = train.train_classifier(crops, ds.taught(labels), 40, 5, len(ds.CLASSES),
                                    rotate=False, log=lambda _: None, batch=32, init=start,
                                    teacher=teacher, distil=1.0, max_lr=3e-3)
    assert divergence(taught) < 0.8 * before
    # The same steps on the labels alone bring it less close: the teacher did the teaching.
    start = train.prune_classifier(teacher, (8, 16, 16, 32, 64), crops)
    labelled = train.train_classifier(crops, ds.taught(labels), 40, 5, len(ds.CLASSES),
                                      rotate=False, log=lambda _: None, batch=32, init=start,
                                      max_lr=3e-3)
    assert divergence(taught) < divergence(labelled)
    with pytest.raises(ValueError, match="distil"):
        train.train_classifier(crops, ds.taught(labels), 1, 5, len(ds.CLASSES), rotate=False,
                               init=start, teacher=teacher, distil=1.5)
