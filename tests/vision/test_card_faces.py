"""The single-card benchmark's counting (``benchmarks/card_faces.py``)."""

from __future__ import annotations

import numpy as np

from benchmarks.card_faces import Answers
from vision.lab.pictures import NOT_BELOTE, PHOTO_SIZE, as_photo


def test_answers_count_right_unknown_and_misread_for_belote_and_other_faces():
    a = Answers()
    a.add("QH", "QH")
    a.add("QH", None)
    a.add("QH", "TH")
    a.add("6C", None)  # no belote card, none named: right
    a.add("6C", "9C")  # a card named for a 6: wrong
    a.add("BACK", None)
    f = a.figures()
    assert (f["belote_cards"], f["read_right"], f["unknown"], f["misread"]) == (3, 1, 1, 1)
    assert f["accuracy"] == round(1 / 3, 4)
    assert (f["other_faces"], f["other_named_a_card"]) == (3, 1)
    assert f["wrong"] == {"QH->TH": 1, "6C->9C": 1}


def test_a_face_as_a_photo_is_smaller_and_softer():
    rng = np.random.default_rng(0)
    face = rng.integers(0, 256, (350, 250, 3), dtype=np.uint8)
    photo = as_photo(face)
    assert photo.shape == (PHOTO_SIZE[1], PHOTO_SIZE[0], 3) and photo.dtype == np.uint8
    # Blurred: neighbouring pixels differ less than in the noise it was made from.
    assert np.abs(np.diff(photo.astype(int), axis=1)).mean() < \
        np.abs(np.diff(face.astype(int), axis=1)).mean() / 2


def test_a_face_as_a_flattened_photo_is_enlarged_and_repeats_with_its_seed():
    from vision.lab.pictures import FLAT_SIZE, as_flattened

    face = np.full((350, 250, 3), 230, np.uint8)
    face[20:60, 15:45] = 20  # an index-like dark mark in the top-left corner
    one = as_flattened(face, np.random.default_rng(3))
    again = as_flattened(face, np.random.default_rng(3))
    assert one.shape == (FLAT_SIZE[1], FLAT_SIZE[0], 3)
    assert (one == again).all()
    # The mark is still there, enlarged about twice, near the same corner.
    corner = one[: FLAT_SIZE[1] // 4, : FLAT_SIZE[0] // 4].mean(axis=2)
    assert (corner < 100).sum() > 2 * 40 * 30


def test_cards_cut_out_of_table_frames_are_read_each_way_and_the_choice_put_back(reader):
    """``crops``: each readable card of a frame cut out and read with each of
    ``read_face``'s choices among several sure reads; the reader's choice is as it was
    after."""
    import pytest

    from benchmarks.card_faces import CROPS_SEED, crops
    from vision.lab import decks, render
    from vision.reader import FACE_CHOICES

    manifest = decks.load_manifest()
    if manifest is None:
        pytest.skip("no deck designs cached (make decks)")
    render.art_styles(held_out=True)
    reader.face_choice = "surest"
    try:
        got = crops(reader, [manifest["held_out"][0]], frames=1)
        assert reader.face_choice == "surest"
    finally:
        reader.face_choice = "placed"
    cards = {got[c]["belote_cards"] for c in FACE_CHOICES}
    assert len(cards) == 1 and cards.pop() >= 1
    for c in FACE_CHOICES:
        f = got[c]
        assert f["read_right"] + f["unknown"] + f["misread"] == f["belote_cards"]
    assert got["seed"] == CROPS_SEED == 9881 and got["frames_per_design"] == 1


def test_index_fonts_reads_only_the_faces_no_drawn_style_prints(reader, monkeypatch):
    """``index_fonts``: each atlas face no drawn style uses, in ``FONT_STYLES``, read the
    three ways; the totals are the faces' sums."""
    from benchmarks import card_faces
    from vision.lab import render

    used = render.STYLES[0].font
    unused = next(f for f in render.atlas_fonts() if f not in {st.font for st in render.STYLES})
    monkeypatch.setattr(render, "atlas_fonts", lambda: [used, unused])
    monkeypatch.setattr(card_faces, "FONT_STYLES", ("en-bicycle",))
    got = card_faces.font_faces(reader)
    assert list(got["fonts"]) == [unused] and got["styles"] == ["en-bicycle"]
    assert render.get_style(f"en-bicycle+{unused}").font == unused
    for way in card_faces.WAYS:
        f = got["fonts"][unused][way]
        assert f["belote_cards"] == 32 and f["other_faces"] == len(NOT_BELOTE)
        assert f["read_right"] + f["unknown"] + f["misread"] == 32
        assert got["all"][way]["read_right"] == f["read_right"]


def test_only_index_fonts_writes_that_set_alone_and_never_over_the_full_figures(
        tmp_path, monkeypatch, capsys):
    """``--only index_fonts``: the set read alone into ``--out``; without ``--out`` it is
    refused (``benchmarks/card_faces.json`` keeps every set)."""
    import json

    import pytest

    from benchmarks import card_faces
    from vision.lab import decks

    with pytest.raises(SystemExit):
        card_faces.main(["--only", "index_fonts"])
    assert "--out" in capsys.readouterr().err
    if decks.load_manifest() is None:
        pytest.skip("deck designs not cached (make decks)")
    sets = []
    ways = {w: {"belote_cards": 2, "read_right": 1, "unknown": 0, "misread": 1,
                "other_faces": 0, "other_named_a_card": 0, "wrong": {"QS->9S": 1}}
            for w in card_faces.WAYS}

    def fonts(reader):
        sets.append("index_fonts")
        return {"styles": [], "fonts": {"a-face": ways}, "all": ways}

    monkeypatch.setattr(card_faces, "font_faces", fonts)
    monkeypatch.setattr(card_faces, "design_faces", lambda *a, **k: sets.append("designs"))
    out = tmp_path / "fonts.json"
    assert card_faces.main(["--only", "index_fonts", "--out", str(out)]) == 0
    assert sets == ["index_fonts"]
    written = json.loads(out.read_text())
    assert written["index_fonts"]["all"] == ways and "crops" not in written
    assert "QS->9S" in capsys.readouterr().out
