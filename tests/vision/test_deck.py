"""Deck enrollment with the real models: a deck learnt from a few pictures (rendered into
tmp_path) reads its cards, leaves a card of another design to the general model, and bad
input is refused with a clear message and nothing written."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from cli.cmd_vision import main as vision_main
from vision.deck import DECK_SURE, Deck, DeckError, model_sha256

DECK_CARDS = ("7S", "QH", "AD", "KC")
DECK_STYLE = "fr-ducale"


def _table(seed: int, style: str, codes, size=(1280, 720), height=230.0,
           background="felt", light=0.3):
    """A table frame with ``codes`` in a row, left to right, a little turned."""
    from vision.lab.render import TableScene

    table = TableScene(np.random.default_rng(seed), size=size, background=background,
                       light=light, tilt=0.0, card_height=height, style=style)
    step = size[0] / (len(codes) + 1)
    for i, code in enumerate(codes):
        table.place(code, ((i + 1) * step, size[1] / 2), angle_deg=8.0 * (i - 1.5))
    return table.draw()


def _card_pictures(root, style: str, codes, seed: int = 1):
    """One picture per card, ``root/<CARD>/card.png``: the card alone on a table."""
    for i, code in enumerate(codes):
        (root / code).mkdir(parents=True)
        frame = _table(seed + i, style, [code], size=(480, 560), height=420.0)
        cv2.imwrite(str(root / code / "card.png"), frame)
    return root


@pytest.fixture(scope="module")
def deck_file(tmp_path_factory):
    root = tmp_path_factory.mktemp("enroll")
    pictures = _card_pictures(root / "pictures", DECK_STYLE, DECK_CARDS)
    out = root / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 0
    return out


def test_enrolled_deck_is_a_small_file_with_version_model_hash_and_cards(deck_file, reader):
    deck = Deck.load(deck_file)
    assert sorted(deck.cards) == sorted(DECK_CARDS)
    assert deck.model_sha256 == model_sha256(reader.classifier.model_path)
    assert deck_file.stat().st_size < 200_000
    with np.load(deck_file) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["version"] == 4 and meta["general_at_least"] == deck.general
    assert deck.courts is not None
    assert meta["courts"] == {"accept": deck.courts.accept, "margin": deck.courts.margin,
                              "general_at_least": deck.courts.general}
    # Each index: 8 cuts as the reader cuts it and 8 as the camera shows it, 4 turns each.
    assert len(deck.labels) % 64 == 0 and len(deck.labels) >= 64 * len(DECK_CARDS)
    # Four cards are not a whole deck: no linear read (its rules were chosen on 32).
    assert deck.linear is None and "linear" not in meta


def test_a_deck_of_an_earlier_version_reads_by_its_one_rule_and_a_newer_one_is_refused(
        deck_file, tmp_path):
    with np.load(deck_file) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta.pop("courts")  # versions 1 and 2 had one rule for every card
    for version in (1, 2, 5):
        meta["version"] = version
        if version == 1:
            meta.pop("general_at_least", None)  # version 1 had no floor
        else:
            meta["general_at_least"] = 0.9
        meta.update(accept=0.92, margin=0.18)
        arrays["meta"] = np.array(json.dumps(meta))
        path = tmp_path / f"v{version}.npz"
        np.savez_compressed(path, **arrays)
    old = Deck.load(tmp_path / "v1.npz")
    assert (old.accept, old.margin, old.general, old.courts) == (0.92, 0.18, 0.0, None)
    two = Deck.load(tmp_path / "v2.npz")
    assert (two.accept, two.margin, two.general, two.courts) == (0.92, 0.18, 0.9, None)
    # One rule for all: a queen is judged as a seven is.
    qh, seven = two.classes.index("QH"), two.classes.index("7S")
    for code in (qh, seven):
        views = two.vectors[two.labels == code][:1][None]
        probs = np.full((1, len(two.classes)), 0.001, np.float32)
        probs[0, code] = 0.88  # under the version 2 deck's floor of 0.9
        assert two.judge(probs, views)[0, code] == pytest.approx(0.88)
        probs[0, code] = 0.92
        assert two.judge(probs, views)[0, code] == pytest.approx(DECK_SURE)
    with pytest.raises(DeckError, match="version 5.*enrol the deck again"):
        Deck.load(tmp_path / "v5.npz")


@pytest.mark.parametrize("spoil", ["accept", "general_at_least", "classes", "all", "courts",
                                   "courts.accept"])
def test_a_deck_with_a_bad_field_is_refused_as_no_deck_file(deck_file, tmp_path, spoil):
    with np.load(deck_file) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    if spoil == "all":
        meta = ["not", "a", "table"]
    elif spoil == "classes":
        del meta["classes"]
    elif spoil == "courts":
        del meta["courts"]
    elif spoil == "courts.accept":
        meta["courts"]["accept"] = "beaucoup"
    else:
        meta[spoil] = "beaucoup"
    arrays["meta"] = np.array(json.dumps(meta))
    bad = tmp_path / "bad.npz"
    np.savez_compressed(bad, **arrays)
    with pytest.raises(DeckError, match="not a deck file"):
        Deck.load(bad)


@pytest.fixture(scope="module")
def linear_deck_file(tmp_path_factory):
    """The four cards' deck with a linear read: the whole-deck minimum lowered to four."""
    from vision import enroll as enroll_module

    root = tmp_path_factory.mktemp("enroll-linear")
    pictures = _card_pictures(root / "pictures", DECK_STYLE, DECK_CARDS)
    out = root / "club.npz"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(enroll_module, "LINEAR_MIN_CARDS", len(DECK_CARDS))
        assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 0
    return out


def test_a_linear_read_is_fitted_saved_and_loaded_with_its_rules(linear_deck_file):
    from vision.deck import LINEAR_RULES

    deck = Deck.load(linear_deck_file)
    assert deck.linear is not None and deck.linear_rules == LINEAR_RULES
    assert sorted(deck.classes[k] for k in deck.linear.classes) == sorted(DECK_CARDS)
    assert deck.linear.weights.shape == (deck.vectors.shape[1], len(DECK_CARDS))
    # Each card's own looks are read as that card by it.
    for code in DECK_CARDS:
        k = deck.classes.index(code)
        named, chance = deck.linear.read(deck.vectors[deck.labels == k][:, None])
        assert (named == k).mean() > 0.9 and np.median(chance) > 0.5


def test_fit_linear_learns_separate_groups_and_gives_the_same_fit_each_time():
    from vision.deck import fit_linear, unit

    rng = np.random.default_rng(5)
    centres = unit(rng.normal(size=(3, 16)))
    labels = np.repeat([4, 9, 20], 50)
    x = unit(centres[np.searchsorted([4, 9, 20], labels)] + 0.3 * rng.normal(size=(150, 16)))
    fit = fit_linear(x, labels)
    named, chance = fit.read(x[:, None])
    assert list(fit.classes) == [4, 9, 20]
    assert (named == labels).mean() > 0.95 and chance.min() > 0.34
    again = fit_linear(x, labels)
    assert np.array_equal(fit.weights, again.weights) and np.array_equal(fit.bias, again.bias)


@pytest.mark.parametrize("code", ["QH", "7S"])
def test_the_linear_read_confirms_only_the_general_guess_at_its_kinds_floor(
        linear_deck_file, code):
    from vision.deck import Rule

    deck = Deck.load(linear_deck_file)
    assert deck.linear is not None
    deck.accept = deck.margin = 2.0  # the cosine never names: the linear read alone
    deck.courts = Rule(2.0, 2.0, deck.none_below, 0.0)
    deck.linear_rules = {"numbers": Rule(0.3, 0.0, deck.none_below, 0.5),
                         "courts": Rule(0.3, 0.0, deck.none_below, 0.7)}
    floor = 0.7 if code[0] in "JQKA" else 0.5
    k = deck.classes.index(code)
    other = deck.classes.index("KC")
    views = deck.vectors[deck.labels == k][:4][None]
    none = deck.classes.index("none")

    def judged(p_card, p_other=0.001, p_none=0.001):
        probs = np.full((1, len(deck.classes)), 0.001, np.float32)
        probs[0, k], probs[0, other], probs[0, none] = p_card, p_other, p_none
        return deck.judge(probs, views)[0]

    assert judged(floor + 0.02)[k] == pytest.approx(DECK_SURE)
    assert judged(floor - 0.02)[k] == pytest.approx(floor - 0.02)
    # The general model's best guess is another card: the deck names nothing.
    assert judged(0.3, p_other=0.6)[other] == pytest.approx(0.6)
    # The general model says 'no belote card' too often.
    assert judged(floor + 0.02, p_none=0.25)[k] == pytest.approx(floor + 0.02)


@pytest.mark.parametrize("spoil", ["weights", "classes", "rule"])
def test_a_deck_with_a_bad_linear_read_is_refused(linear_deck_file, tmp_path, spoil):
    with np.load(linear_deck_file) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    if spoil == "weights":
        arrays["linear_weights"] = arrays["linear_weights"][:5]
    elif spoil == "classes":
        # Outputs for a class of which the deck has no look ('none').
        arrays["linear_classes"] = np.full_like(arrays["linear_classes"],
                                                meta["classes"].index("none"))
    else:
        meta["linear"]["courts"]["accept"] = "beaucoup"
    arrays["meta"] = np.array(json.dumps(meta))
    bad = tmp_path / "bad.npz"
    np.savez_compressed(bad, **arrays)
    with pytest.raises(DeckError, match="not a deck file"):
        Deck.load(bad)


def test_table_looks_cut_a_cards_indices_from_frames_as_the_reader_boxes_them(reader):
    from vision.enroll import single_card, table_frame, table_looks

    picture = _table(4, DECK_STYLE, ["QH"], size=(480, 560), height=420.0)
    boxes, quad = single_card(reader, picture)
    assert len(boxes) == 2
    frame, outline = table_frame(picture, quad, np.random.default_rng(2))
    assert frame.shape == (720, 1280, 3)
    long_side = max(np.linalg.norm(outline[i] - outline[(i + 1) % 4]) for i in range(4))
    low, high = reader.settings.table_card_share
    assert 0.8 * low * 720 < long_side < 1.2 * high * 720
    looks = table_looks(reader, picture, quad, np.random.default_rng(2), 3)
    # Up to two indices a frame, each cut once as the first read and 7 times as the
    # second look, at 4 quarter turns.
    assert len(looks) % 32 == 0 and 32 * 3 <= len(looks) <= 64 * 3
    assert np.array_equal(looks, table_looks(reader, picture, quad,
                                             np.random.default_rng(2), 3))
    # They are the queen's indices: the general model reads them so, upright.
    probs = reader.classifier.probabilities(looks[: len(looks) // 4 : 8])
    assert (probs.argmax(axis=1) == reader.classifier.classes.index("QH")).mean() > 0.5


def test_camera_looks_show_an_index_small_and_soft_and_repeat_with_their_seed():
    """An enrolment picture shows an index large and sharp; the deck also keeps it as the
    camera over the table shows it: brought down to a frame's index size and up again."""
    from vision.enroll import camera_looks, index_looks
    from vision.locate import index_crop

    picture = _table(4, DECK_STYLE, ["QH"], size=(480, 560), height=420.0)
    box = (150.0, 60.0, 200.0, 130.0)  # about where the top-left index lies
    looks = camera_looks(picture, box, np.random.default_rng(3), 32, 1.3, 8)
    assert looks.shape == (8, 32, 32, 3) and looks.dtype == np.uint8
    again = camera_looks(picture, box, np.random.default_rng(3), 32, 1.3, 8)
    assert np.array_equal(looks, again)

    def sharpness(patch):
        return float(cv2.Laplacian(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    own = index_crop(picture, box, 32, 1.3)
    assert np.mean([sharpness(p) for p in looks]) < 0.6 * sharpness(own)
    # index_looks: 8 own-like cuts and 8 camera looks, each at 4 quarter turns.
    all_looks = index_looks(picture, box, np.random.default_rng(3), 32, 1.3)
    assert all_looks.shape == (64, 32, 32, 3)
    assert np.array_equal(all_looks[0], own)


@pytest.mark.parametrize("code", ["QH", "AD", "7S"])
def test_the_deck_names_no_card_the_general_model_gives_too_little_chance(deck_file, code):
    """Courts and aces by the court rule's floor, number cards by the other rule's."""
    deck = Deck.load(deck_file)
    assert deck.courts is not None
    k = deck.classes.index(code)
    floor = deck.courts.general if code[0] in "JQKA" else deck.general
    views = deck.vectors[deck.labels == k][:1][None]  # a box exactly like an enrolled look
    probs = np.full((1, len(deck.classes)), 0.001, np.float32)
    for chance, named in ((floor + 0.02, True), (floor - 0.02, False)):
        probs[0, k] = chance
        judged = deck.judge(probs, views)
        assert (judged[0, k] == pytest.approx(DECK_SURE)) == named


def test_each_kind_of_card_is_judged_by_its_own_rule(deck_file):
    """A box judged with the court rule made strict or loose: only courts and aces change."""
    from vision.deck import Rule

    deck = Deck.load(deck_file)
    codes = ["QH", "AD", "KC", "7S"]
    ks = [deck.classes.index(c) for c in codes]
    views = np.stack([deck.vectors[deck.labels == k][:1] for k in ks])
    probs = np.full((len(ks), len(deck.classes)), 0.001, np.float32)
    probs[np.arange(len(ks)), ks] = 0.6
    deck.accept, deck.margin, deck.general = 0.0, 0.0, 0.0  # numbers: anything alike
    for floor, courts_named in ((0.5, True), (0.7, False)):
        deck.courts = Rule(0.0, 0.0, deck.none_below, floor)
        judged = deck.judge(probs, views)
        named = [bool(judged[i, k] == pytest.approx(DECK_SURE)) for i, k in enumerate(ks)]
        assert named == [courts_named, courts_named, courts_named, True]


def test_a_frame_of_the_enrolled_deck_is_read_through_it(deck_file, tmp_path, capsys):
    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), _table(7, DECK_STYLE, ["KC", "7S", "AD", "QH"]))
    assert vision_main(["read", str(frame), "--deck", str(deck_file)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert sorted(d["code"] for d in found) == sorted(DECK_CARDS)
    # Read through the deck, not by the general model alone: its sure probability (a card
    # whose other index the general model reads surer keeps that surer read).
    through = [d for d in found if d["confidence"] == pytest.approx(DECK_SURE, abs=1e-4)]
    assert len(through) >= 3


def test_a_card_of_another_design_is_not_forced_onto_the_deck(deck_file):
    from vision.reader import CardReader

    # Other cards, and the deck's own ranks in other suits, in an English design.
    frame = _table(11, "en-bicycle", ["8S", "QS", "AH", "KD", "9C"])
    plain = CardReader()
    with_deck = CardReader(deck=deck_file)
    general = sorted(d.code for d in plain.read(frame) if d.code)
    assert general == ["8S", "9C", "AH", "KD", "QS"]
    assert sorted(d.code for d in with_deck.read(frame) if d.code) == general


def test_real_photos_of_enrolled_cards_read_no_worse_with_their_deck(real_cards, tmp_path):
    """Flattened phone photos (`cards/`): the deck learnt from one photo of each card, its
    other photos read with the deck at least as well as without. Courts that design B
    doubts are read by design A's corner model; with a deck they once were not (0.73 of
    the 55 other photos, 1.00 without)."""
    import shutil

    from vision.reader import CardReader, load_image

    # Courts with several photos: the ones the deck once lost.
    codes = ("KC", "QD", "KH", "QC")
    pictures, others = tmp_path / "pictures", []
    for code in codes:
        photos = sorted((real_cards / "cards" / code).glob("*.jpg"))
        assert len(photos) >= 2
        (pictures / code).mkdir(parents=True)
        shutil.copy(photos[0], pictures / code / photos[0].name)
        others += [(code, p) for p in photos[1:]]
    deck = tmp_path / "real.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(deck)]) == 0
    plain, with_deck = CardReader(), CardReader(deck=deck)

    def right(reader):
        return sum(1 for code, path in others
                   if (found := reader.read_face(load_image(path))) is not None
                   and found.code == code)

    general = right(plain)
    assert general >= len(others) - 1
    assert right(with_deck) >= general


def test_a_grey_frame_is_read_by_the_general_model_alone_even_with_a_deck(deck_file):
    from vision.reader import CardReader

    # The deck learnt its cards in colour; a black-and-white camera's frame is read at the
    # general model's grey thresholds, exactly as without the deck.
    colour = _table(7, DECK_STYLE, ["KC", "7S", "AD", "QH"])
    grey = cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    plain = CardReader()
    with_deck = CardReader(deck=deck_file)

    def reads(reader, frame):
        return sorted((d.code, round(d.confidence, 6)) for d in reader.read(frame) if d.code)

    assert reads(with_deck, grey) == reads(plain, grey)
    # The deck is set aside for that frame only: the next colour frame is read through it.
    assert with_deck.classifier.deck is not None
    assert any(conf == pytest.approx(DECK_SURE, abs=1e-4) for _, conf in reads(with_deck, colour))


def test_a_picture_the_reader_takes_for_another_card_is_told_and_the_deck_written(
        tmp_path, capsys):
    """A picture in the wrong folder (or a card of the deck the reader takes for another,
    which the deck does not mend) is named to the organiser, in French; the deck is
    written all the same."""
    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["7S", "9C"])
    (pictures / "9C").rename(pictures / "QH")  # the nine of clubs put in the queen's folder
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    picture = pictures / "QH" / "card.png"
    assert (f"{picture} : le lecteur prend cette photo pour 9C (9 de trèfle), pas pour QH"
            in said)
    assert "prises pour une autre carte par le lecteur : QH\n" in said
    assert str(pictures / "7S") not in said  # the seven, read as itself, is not named
    assert out.is_file()


def test_bad_folder_name_is_refused_naming_it_and_nothing_is_written(tmp_path, capsys):
    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["7S"])
    (pictures / "10X").mkdir()
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "10X" in err and "n'est pas une carte de belote" in err
    assert not out.exists() and not list(tmp_path.glob("*.part"))


def test_unreadable_picture_is_refused_naming_the_file(tmp_path, capsys):
    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["7S"])
    bad = pictures / "7S" / "broken.jpg"
    bad.write_bytes(b"not a picture")
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "illisible" in err
    assert not out.exists()


def test_a_picture_without_a_card_is_refused_naming_the_file(tmp_path, capsys):
    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["7S"])
    (pictures / "8S").mkdir()
    empty = pictures / "8S" / "table.png"
    cv2.imwrite(str(empty), np.full((400, 300, 3), (40, 110, 50), np.uint8))
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(empty) in err and "aucun index" in err
    assert not out.exists()


def test_a_deck_made_with_another_model_is_refused(deck_file, tmp_path):
    from vision.reader import CardReader

    deck = Deck.load(deck_file)
    deck.model_sha256 = "0" * 64
    other = tmp_path / "old.npz"
    deck.save(other)
    with pytest.raises(DeckError, match="enrolled with another model") as refused:
        CardReader(deck=other)
    # The command that prints it says it in the organiser's language, by its template.
    from companion import i18n

    try:
        i18n.use("fr")
        assert "ce jeu a été enrôlé avec un autre modèle" in i18n.reason(refused.value)
        assert "refaites l'enrôlement" in i18n.reason(refused.value)
        i18n.use("en")
        assert i18n.reason(refused.value) == str(refused.value)
    finally:
        i18n.use("fr")


def test_read_with_a_missing_deck_exits_2(tmp_path, capsys):
    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), _table(3, DECK_STYLE, ["7S"]))
    assert vision_main(["read", str(frame), "--deck", str(tmp_path / "none.npz")]) == 2
    assert "introuvable" in capsys.readouterr().err


def test_enroll_at_the_table_from_images(tmp_path, capsys):
    from cli.cmd_enroll import main as enroll_main

    frames = tmp_path / "frames"
    frames.mkdir()
    empty = _table(5, DECK_STYLE, [])
    shots = [_table(20, DECK_STYLE, ["8S", "7S", "9S"]), _table(21, DECK_STYLE, ["7S", "8S", "9S"]),
             empty,
             _table(22, DECK_STYLE, ["7H", "8H"]), _table(23, DECK_STYLE, ["7H", "8H", "9H"])]
    for i, shot in enumerate(shots):
        cv2.imwrite(str(frames / f"{i:03d}.png"), shot)
    out = tmp_path / "deck.npz"
    rc = enroll_main(["--images", str(frames), "--out", str(out), "--cards",
                      "7S,8S,9S,7H,8H,9H", "--per", "3", "--steady", "1"])
    said = capsys.readouterr().out
    assert rc == 0
    assert "Posez sur la table" in said and "7 de pique, 8 de pique, 9 de pique" in said
    assert "Je vois 2 carte(s), j'en attends 3" in said
    assert "Je lis 8S à la place de 7S, 7S à la place de 8S" in said  # out of order: waits
    assert "Appris (6/6)" in said
    assert sorted(Deck.load(out).cards) == ["7H", "7S", "8H", "8S", "9H", "9S"]


def test_enrolling_at_the_table_also_lays_each_card_in_other_table_frames(reader):
    from cli.cmd_enroll import TableEnrollment

    said: list[str] = []
    table = TableEnrollment(reader, ["7S", "8S", "9S"], 3, 1, "prototype", said.append)
    table.feed(_table(20, DECK_STYLE, ["7S", "8S", "9S"]))
    assert table.done
    # Each card's outline came with its boxes: its looks from table frames (for the linear
    # read of a whole deck) beside those cut from the frame itself.
    assert sorted(table.enroller.table_patches) == ["7S", "8S", "9S"]
    assert all(sum(len(p) for p in looks) >= 32
               for looks in table.enroller.table_patches.values())


def test_cards_laid_on_a_white_table_are_not_lost_inside_the_table_s_outline(reader):
    from cli.cmd_enroll import cards_in_view
    from vision.locate import find_cards

    codes = ["7S", "QH", "AD", "KC"]
    frame = _table(39, DECK_STYLE, codes, height=200.0, background="white", light=0.9)
    h, w = frame.shape[:2]
    # The table's own outline, as large as the frame, holds every card: the outline
    # finder keeps the outer of two outlines (a court's printed frame inside its card).
    assert max(cv2.contourArea(q) for q in find_cards(frame)) > 0.5 * h * w
    seen = cards_in_view(reader, frame)
    assert len(seen) == 4
    step = w / (len(codes) + 1)
    centres = [x for x, _boxes, _quad in seen]
    assert all(abs(x - (i + 1) * step) < 40 for i, x in enumerate(centres))


def test_a_card_whose_outline_is_not_found_is_counted_by_its_two_indices(reader, monkeypatch):
    """A card in a dark corner, a frameless court on a white table: no outline, but the
    detector boxes both its indices. The command counts it, left to right, with no
    outline (its looks then come from the frame alone)."""
    import vision.locate
    from cli.cmd_enroll import TableEnrollment, cards_in_view

    codes = ["7S", "QH", "AD", "KC"]
    frame = _table(39, DECK_STYLE, codes, height=200.0)
    assert len(cards_in_view(reader, frame)) == 4
    monkeypatch.setattr(vision.locate, "find_cards", lambda *_a, **_k: [])
    seen = cards_in_view(reader, frame)
    assert len(seen) == 4
    assert all(quad is None and len(boxes) == 2 for _x, boxes, quad in seen)
    step = frame.shape[1] / (len(codes) + 1)
    assert all(abs(x - (i + 1) * step) < 40 for i, (x, _b, _q) in enumerate(seen))
    said: list[str] = []
    table = TableEnrollment(reader, codes, 4, 1, "prototype", said.append)
    table.feed(frame)
    assert table.done and table.enroller.cards == codes
    assert not table.enroller.table_patches  # no outline: no looks from table frames


def test_enrolling_at_the_table_learns_the_boxes_read_as_the_card_asked_for(
        reader, monkeypatch):
    """Once the cards laid match the group asked for, each card's index boxes are chosen
    again knowing the card (``card_boxes`` with its code): a court's printed name can be
    read as some card more than its index is, never as that card more."""
    import vision.enroll
    from cli.cmd_enroll import TableEnrollment

    codes = ["7S", "QH", "AD", "KC"]
    frame = _table(39, DECK_STYLE, codes, height=200.0)
    asked: list[str | None] = []
    chosen: dict[str, list] = {}
    original = vision.enroll.card_boxes

    def spy(reader_, frame_, quad, found=None, code=None):
        boxes = original(reader_, frame_, quad, found, code=code)
        if frame_ is frame:  # not the card laid in other table frames (``table_looks``)
            asked.append(code)
            if code is not None:
                chosen[code] = boxes
        return boxes

    monkeypatch.setattr(vision.enroll, "card_boxes", spy)
    learnt: dict[str, list] = {}
    table = TableEnrollment(reader, codes, 4, 1, "prototype", lambda _s: None)
    add = table.enroller.add

    def add_spy(code, frame_, boxes, quad=None):
        learnt[code] = boxes
        add(code, frame_, boxes, quad)

    monkeypatch.setattr(table.enroller, "add", add_spy)
    table.feed(frame)
    assert table.done
    assert [c for c in asked if c is not None] == codes
    assert learnt == chosen and all(len(b) == 2 for b in learnt.values())


def test_only_a_card_read_as_another_of_its_suit_outside_the_group_may_be_passed_over():
    from cli.cmd_enroll import font_misreads

    group = ["JC", "QC", "KC", "AC"]
    assert font_misreads(group, [("QC", "9C")]) == {"QC": "9C"}
    assert font_misreads(group, [("QC", "9C"), ("KC", "8C")]) == {"QC": "9C", "KC": "8C"}
    assert font_misreads(group, [("QC", "KC"), ("KC", "QC")]) == {}  # out of order
    assert font_misreads(group, [("QC", "QH")]) == {}  # another suit: the wrong card
    assert font_misreads(group, [("QC", "9C"), ("KC", "KD")]) == {}


def _bookman_style() -> str:
    """An English deck printing its indices in URW Bookman, with a looped Q
    (``benchmarks/card_faces.py``, ``index_fonts``)."""
    from vision.lab import render

    name = "en-bicycle+urw-bookman-demi"
    render.register_style(render.with_style(render.get_style("en-bicycle"), name=name,
                                            font="urw-bookman-demi"))
    return name


def _queen_of_clubs_read_as_nine(monkeypatch) -> None:
    """From now on the general model reads every index it takes for a QC (or a 9C) as a
    sure 9C: the classifier of 2026-12-02 so read Bookman's looped Q (``_bookman_style``),
    and this keeps the flow of a card the reader keeps taking for another tested for any
    classifier. The frames hold no nine of clubs."""
    from vision.classify import CardClassifier

    real = CardClassifier.probabilities

    def probabilities(self, crops):
        probs = real(self, crops).copy()
        queen, nine = self.classes.index("QC"), self.classes.index("9C")
        as_nine = np.isin(probs.argmax(axis=1), (queen, nine))
        probs[as_nine] = 0.0
        probs[as_nine, nine] = 1.0
        return probs

    monkeypatch.setattr(CardClassifier, "probabilities", probabilities)


def test_a_card_the_reader_keeps_taking_for_another_is_passed_over_once_confirmed(
        reader, monkeypatch):
    """A maker's looped Q read surely as a 9 of its suit would hold the organiser at that
    group for ever: told, and left as it is for ``confirm`` seconds, the command learns
    the rest of the group and leaves that card to the general model."""
    from cli.cmd_enroll import TableEnrollment

    _queen_of_clubs_read_as_nine(monkeypatch)
    group = ["JC", "QC", "KC", "AC"]
    frame = _table(31, _bookman_style(), group, height=200.0)
    now = [100.0]
    said: list[str] = []
    table = TableEnrollment(reader, group, 4, 1, "prototype", said.append, confirm=10.0,
                            clock=lambda: now[0])
    table.feed(frame)
    assert said[-2] == ("Je lis 9C à la place de QC : vérifiez les cartes et leur ordre, de "
                        "gauche à droite")
    assert said[-1].startswith("Si ce sont bien les bonnes cartes, laissez-les : dans 10 s")
    assert said[-1].endswith(": QC")
    now[0] += 9.0
    table.feed(frame)
    assert not table.done and not table.enroller.cards
    now[0] += 2.0
    table.feed(frame)
    assert table.done
    assert table.enroller.cards == ["JC", "KC", "AC"]
    assert table.passed == {"QC": "9C"}
    assert "Passées, laissées au modèle général : QC (lue 9C)" in said
    assert said[-1] == "Appris (3/4) : JC KC AC"  # nothing left to lay


def test_enroll_names_the_cards_passed_over_and_refuses_a_bad_wait(tmp_path, capsys,
                                                                  monkeypatch):
    from cli.cmd_enroll import main as enroll_main

    _queen_of_clubs_read_as_nine(monkeypatch)
    frames = tmp_path / "frames"
    frames.mkdir()
    group = ["JC", "QC", "KC", "AC"]
    shot = _table(31, _bookman_style(), group, height=200.0)
    for i in range(2):
        cv2.imwrite(str(frames / f"{i:03d}.png"), shot)
    out = tmp_path / "deck.npz"
    args = ["--images", str(frames), "--out", str(out), "--cards", ",".join(group),
            "--steady", "1"]
    with pytest.raises(SystemExit):
        enroll_main(args + ["--confirm", "-1"])
    assert "--confirm doit être entre 0 et 3600 secondes" in capsys.readouterr().err
    assert not out.exists()
    assert enroll_main(args + ["--confirm", "0"]) == 0
    said = capsys.readouterr().out
    assert ("Non apprises, le lecteur les prend pour une autre carte (elles risquent d'être "
            "mal lues à la table) : QC (lue 9C)") in said
    assert "Les cartes non apprises seront lues par le modèle général" in said
    assert sorted(Deck.load(out).cards) == ["AC", "JC", "KC"]


def test_cards_out_of_order_are_never_passed_over(reader):
    from cli.cmd_enroll import TableEnrollment

    now = [0.0]
    said: list[str] = []
    table = TableEnrollment(reader, ["7S", "8S", "9S"], 3, 1, "prototype", said.append,
                            confirm=1.0, clock=lambda: now[0])
    frame = _table(20, DECK_STYLE, ["8S", "7S", "9S"])
    for _ in range(3):
        table.feed(frame)
        now[0] += 60.0
    assert not table.done and not table.enroller.cards and not table.passed
    assert not any(s.startswith("Si ce sont bien") for s in said)


def test_two_boxes_are_not_taken_for_one_card_when_either_has_another_partner(reader):
    from cli.cmd_enroll import paired_indices

    frame = _table(40, DECK_STYLE, ["9H"], height=260.0)
    boxes = [box for box, _ in reader.detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))]
    pairs = paired_indices(reader, frame, boxes)
    assert len(pairs) == 1
    a, b = pairs[0]
    # The same index boxed again, a little shifted: ``b`` now has two partners.
    twin = (a[0] + 2.0, a[1] + 2.0, a[2] + 2.0, a[3] + 2.0)
    assert paired_indices(reader, frame, [a, b, twin]) == []
    assert paired_indices(reader, frame, [a]) == []


def test_table_enroll_with_nothing_learnt_writes_nothing(tmp_path, capsys):
    from cli.cmd_enroll import main as enroll_main

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), _table(5, DECK_STYLE, []))
    out = tmp_path / "deck.npz"
    assert enroll_main(["--images", str(frames), "--out", str(out), "--steady", "1"]) == 2
    assert "aucune carte apprise" in capsys.readouterr().err
    assert not out.exists()


def test_run_takes_a_deck():
    from cli.cmd_run import parse_args

    args = parse_args(["--images", "frames", "--deck", "club.npz"])
    assert args.deck == "club.npz"


def test_the_service_settings_take_a_deck():
    import shlex
    from pathlib import Path

    from cli.cmd_run import parse_args

    env = (Path(__file__).resolve().parents[2] / "hardware" / "belote-table.env").read_text()
    line = next(x for x in env.splitlines() if x.startswith("#BELOTE_TABLE_ARGS=")
                and "--deck" in x)
    args = parse_args(shlex.split(shlex.split(line.partition("=")[2])[0]))
    assert args.deck == "/var/lib/belote-table/deck.npz"  # the unit's writable folder
    assert args.picamera


def test_eval_with_a_deck_scores_a_labelled_folder(deck_file, tmp_path, capsys):
    folder = tmp_path / "scenes"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), _table(31, DECK_STYLE, ["QH", "7S"]))
    cv2.imwrite(str(folder / "b.png"), _table(32, DECK_STYLE, ["AD", "KC", "7S"]))
    (folder / "labels.json").write_text(json.dumps({"a.png": ["QH", "7S"],
                                                    "b.png": ["AD", "KC", "7S"]}))
    assert vision_main(["eval", str(folder), "--deck", str(deck_file)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deck"] == str(deck_file)
    assert (result["images"], result["precision"], result["recall"]) == (2, 1.0, 1.0)


def test_the_template_head_enrols_and_reads_too(tmp_path):
    from vision.reader import CardReader

    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["QH", "AD"])
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out), "--head", "template"]) == 0
    assert Deck.load(out).head == "template"
    found = CardReader(deck=out).read(_table(41, DECK_STYLE, ["AD", "QH"]))
    assert sorted(d.code for d in found if d.code) == ["AD", "QH"]


def test_vision_enroll_needs_no_lab_as_on_the_pi(tmp_path, monkeypatch, capsys):
    import sys

    pictures = _card_pictures(tmp_path / "pictures", DECK_STYLE, ["QH"])
    monkeypatch.setitem(sys.modules, "vision.lab", None)  # import vision.lab now fails
    out = tmp_path / "club.npz"
    assert vision_main(["enroll", str(pictures), "--out", str(out)]) == 0
    assert Deck.load(out).cards == ["QH"]
    # What the organiser reads, in French: each card learnt, then the deck written.
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "QH (dame (D) de cœur) : appris"
    assert re.fullmatch(re.escape(f"{out} : 1 carte apprise en ") + r"\d+,\d s", said[1])
    assert said[2].startswith("non apprises, lues par le modèle général : 7S 8S")
    assert vision_main(["eval", str(pictures)]) == 2
    assert "le labo (vision/lab) n'est pas installé ici" in capsys.readouterr().err


def test_run_with_a_missing_deck_says_so_and_stops(tmp_path, capsys):
    from cli.cmd_run import main as run_main

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), _table(5, DECK_STYLE, ["7S"]))
    assert run_main(["--images", str(frames), "--db", str(tmp_path / "t.db"), "--no-web",
                     "--no-display", "--deck", str(tmp_path / "club.npz")]) == 2
    err = capsys.readouterr().err
    assert "club.npz" in err and "fichier de jeu introuvable" in err


def test_a_bad_deck_with_the_web_page_on_keeps_the_table_up_and_says_so(tmp_path):
    import threading
    import urllib.request

    from cli.outputs import run_table

    said: list[str] = []
    stop = threading.Event()
    result: list[int] = []
    bad = tmp_path / "club.npz"
    bad.write_text("not a deck")

    def run() -> None:
        result.append(run_table(tmp_path / "t.db", "ffb", lambda: None, None, None, 0.3,
                                port=0, search_display=False, say=said.append,
                                fail=said.append, stop=stop, deck=str(bad)))

    thread = threading.Thread(target=run)
    thread.start()
    try:
        for _ in range(200):
            if any(s.startswith("page web : ") for s in said):
                break
            stop.wait(0.05)
        url = next(s for s in said if s.startswith("page web : "))[len("page web : "):]
        for _ in range(200):  # the page is up before the deck is tried
            with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
                state = json.loads(r.read())
            if "problem" in state["status"]:
                break
            stop.wait(0.05)
        problem = state["status"]["problem"]
        assert problem["code"] == "other" and str(bad) in problem["detail"]
        assert "n'est pas un fichier de jeu" in problem["detail"]
        assert state["status"]["mode"] == "manual" and thread.is_alive()
    finally:
        stop.set()
        thread.join(10)
    assert result == [0]


def test_the_deck_rule_is_the_loosest_that_names_no_wrong_card():
    from vision.deck import Rule
    from vision.lab.deck_rules import choose

    def box(s1, s2, right, p, guess="QH", best="QH", none=0.01, pmax=0.97):
        return {"guess": guess, "best": best, "none": none, "pmax": pmax, "s1": s1, "s2": s2,
                "right": right, "p": p, "unsure_below": 0.99}

    rows = [box(0.95, 0.60, True, 0.95), box(0.90, 0.62, True, 0.92),
            box(0.80, 0.70, True, 0.97),  # close to another card's look, general model fair
            box(0.88, 0.76, False, 0.60),  # a wrong card the general model is unsure of
            box(0.99, 0.10, False, 0.9, best="KH"),  # the deck disagrees: never named
            box(0.99, 0.10, False, 0.995, pmax=0.995),  # the general model is sure already
            box(0.99, 0.10, False, 0.4, none=0.5)]  # the general model says 'no card'
    out = choose(rows, none_below=0.2, in_use=Rule(0.85, 0.10, 0.2, 0.0))
    assert out["unsure_boxes"] == 4 and out["unsure_right"] == 3
    # With no floor on the general model's chance, the margin must leave out the wrong
    # box, and with it the right one at a margin of 0.10.
    assert out["best_at_each_general"]["0.00"]["right"] == 2
    # A floor of 0.7 leaves out the wrong box: all three right ones, none wrong.
    assert out["chosen"] == {"general": 0.7, "accept": 0.5, "margin": 0.04, "right": 3,
                             "wrong": 0}
    assert out["grid_right_wrong"]["0.50/0.04"] == [3, 0]
    # The wrong box is named by the rule in use (no floor, margin 0.10).
    assert out["rule_in_use"] == {"general": 0.0, "accept": 0.85, "margin": 0.10, "right": 2,
                                  "wrong": 1}


def test_the_rules_are_chosen_on_boxes_under_the_threshold_their_read_needs():
    """A box the general model reads surely at its own threshold (a first read's, lower
    than a second look's) needs no deck: it is no candidate, right or wrong."""
    from vision.deck import Rule
    from vision.lab.deck_rules import choose, choose_linear

    def box(p, right, needs):
        return {"guess": "QH", "best": "QH", "linear": "QH", "none": 0.01, "pmax": p,
                "s1": 0.95, "s2": 0.5, "lq": 0.9, "right": right, "p": p,
                "unsure_below": needs}

    rows = [box(0.93, False, 0.92),  # sure at the first read's 0.92: not the deck's
            box(0.93, True, 0.98),  # a second look's box under its 0.98: the deck's
            box(0.85, True, 0.92)]
    for out in (choose(rows, 0.2, Rule(0.9, 0.1, 0.2, 0.0)),
                choose_linear(rows, 0.2, Rule(0.5, 0.0, 0.2, 0.0))):
        assert out["unsure_boxes"] == 2 and out["unsure_right"] == 2
        assert out["chosen"]["right"] == 2 and out["chosen"]["general"] == 0.0


def test_the_linear_rule_is_the_loosest_that_names_no_wrong_card():
    from vision.deck import Rule
    from vision.lab.deck_rules import choose_linear

    def box(lq, right, p, guess="QH", linear="QH", none=0.01, pmax=0.97):
        return {"guess": guess, "linear": linear, "none": none, "pmax": pmax, "lq": lq,
                "right": right, "p": p, "unsure_below": 0.99}

    rows = [box(0.95, True, 0.95), box(0.80, True, 0.92), box(0.60, True, 0.75),
            box(0.70, False, 0.60),  # a wrong card the general model is unsure of
            box(0.99, False, 0.9, linear="KH"),  # the linear read disagrees: never named
            box(0.99, False, 0.995, pmax=0.995)]  # the general model is sure already
    out = choose_linear(rows, none_below=0.2, in_use=Rule(0.5, 0.0, 0.2, 0.0))
    assert out["unsure_boxes"] == 4 and out["unsure_right"] == 3
    # No floor: the accept must pass over the wrong box's 0.70, leaving two.
    assert out["best_at_each_general"]["0.00"] == {"general": 0.0, "accept": 0.71,
                                                   "right": 2, "wrong": 0}
    assert out["chosen"] == {"general": 0.7, "accept": 0.3, "right": 3, "wrong": 0}
    assert out["rule_in_use"] == {"general": 0.0, "accept": 0.5, "right": 3, "wrong": 1}


def test_the_court_rule_is_chosen_at_the_number_rule_floor_on_court_boxes_only():
    from vision.deck import Rule
    from vision.lab.deck_rules import choose, kind_of

    assert [kind_of(c) for c in ("7S", "TH", "JD", "QC", "KH", "AS")] == [
        "numbers", "numbers", "courts", "courts", "courts", "courts"]

    def box(s1, s2, right, p):
        return {"guess": "KH", "best": "KH", "none": 0.01, "pmax": p, "s1": s1, "s2": s2,
                "right": right, "p": p, "unsure_below": 0.99}

    # A king of the wrong suit the general model gives 0.85: a floor of 0.8 would name it.
    rows = [box(0.90, 0.70, True, 0.96), box(0.88, 0.72, True, 0.97),
            box(0.91, 0.70, False, 0.85), box(0.85, 0.70, True, 0.82)]
    anywhere = choose(rows, 0.2, Rule(0.9, 0.1, 0.2, 0.95))
    at_floor = choose(rows, 0.2, Rule(0.9, 0.1, 0.2, 0.95), generals=(0.95,))
    assert list(at_floor["best_at_each_general"]) == ["0.95"]
    assert at_floor["chosen"]["general"] == 0.95 and at_floor["chosen"]["right"] == 2
    # At any floor: the wrong king is the most alike of all, so only a floor above its 0.85
    # leaves it out; 0.9 is the first on the grid, naming the same two.
    assert anywhere["chosen"] == {"general": 0.9, "accept": 0.5, "margin": 0.04, "right": 2,
                                  "wrong": 0}
    assert anywhere["best_at_each_general"]["0.80"]["right"] == 0


def test_a_card_pictured_under_a_warm_lamp_is_learnt_with_white_paper(reader):
    from vision.enroll import Enroller, single_card

    picture = _table(7, DECK_STYLE, ["KC"], size=(480, 560), height=420.0)
    warm = np.clip(picture * np.array([0.5, 0.75, 1.0], np.float32), 0, 255).astype(np.uint8)
    boxes, _ = single_card(reader, picture)
    firsts = []
    for shown in (picture, warm):
        enroller = Enroller(reader, seed=0, table_frames=0)
        enroller.add("KC", shown, boxes)
        firsts.append(enroller.patches["KC"][0][0].astype(float))  # the reader's own cut
    assert np.abs(firsts[0] - firsts[1]).mean() < 6
    # As the lamp showed it, the cut would be far from it.
    from vision.locate import index_crop

    size, pad = int(reader.classifier.meta["crop"]), float(reader.classifier.meta["pad"])
    tinted = index_crop(warm, boxes[0], size, pad).astype(float)
    assert np.abs(firsts[0] - tinted).mean() > 20


def test_a_cards_index_boxes_are_those_read_as_the_card_not_the_detectors_surest(
        reader, monkeypatch):
    """A court's picture, or its name printed in the other two corners, gives boxes the
    detector may be surer of than of the index (kde-tigullio-international's queen of
    hearts: both chosen boxes were its printed name). The index boxes are those the
    general model takes for the card; boxes read as no card are passed over, however sure
    the detector."""
    import dataclasses

    from vision.enroll import card_boxes, corner_zone, inside, single_card

    picture = _table(4, DECK_STYLE, ["QH"], size=(480, 560), height=420.0)
    boxes, quad = single_card(reader, picture, "QH")
    assert len(boxes) == 2
    found = reader.detector.detect(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY))
    corners = [c for c in range(4) if any(inside(b, corner_zone(quad, c)) for b in boxes)]
    assert len(corners) == 2 and (corners[1] - corners[0]) == 2  # one diagonal
    w, h = boxes[0][2] - boxes[0][0], boxes[0][3] - boxes[0][1]
    decoys = []
    for c in set(range(4)) - set(corners):  # the other diagonal: plain paper there
        cx, cy = corner_zone(quad, c).mean(axis=0)
        decoys.append(((float(cx - w / 2), float(cy - h / 2), float(cx + w / 2),
                        float(cy + h / 2)), 5.0))
    assert all(inside(b, corner_zone(quad, c)) for (b, _), c in
               zip(decoys, sorted(set(range(4)) - set(corners)), strict=True))
    with_decoys = found + decoys
    assert card_boxes(reader, picture, quad, with_decoys, code="QH") == boxes
    assert sorted(card_boxes(reader, picture, quad, with_decoys)) == sorted(boxes)
    # By the detector's sureness alone (no box reaching the chance asked), the decoys.
    monkeypatch.setattr(reader, "settings", dataclasses.replace(reader.settings, index_chance=2.0))
    assert sorted(card_boxes(reader, picture, quad, with_decoys, code="QH")) == \
        sorted(b for b, _ in decoys)


def test_enrolment_and_the_deck_s_reads_go_by_the_reader_s_settings(reader, monkeypatch):
    """The deck's rules, the linear read's, the chance a box read through the deck gets and
    the table frames a card is laid in come from the reader's settings (a retrained model
    brings its own), not from the shipped model's."""
    import dataclasses

    from vision.deck import Rule
    from vision.enroll import Enroller, single_card

    tuned = dataclasses.replace(reader.settings, deck_prototype=(0.5, 0.05, 0.3, 0.1),
                                deck_prototype_courts=(0.55, 0.06, 0.3, 0.2),
                                deck_sure=0.99, table_frames=0)
    monkeypatch.setattr(reader, "settings", tuned)
    assert reader.classifier.deck_sure == 0.99
    picture = _table(7, DECK_STYLE, ["KC"], size=(480, 560), height=420.0)
    boxes, _ = single_card(reader, picture, "KC")
    enroller = Enroller(reader, seed=0)
    assert enroller.table_frames == 0
    enroller.add("KC", picture, boxes)
    deck = enroller.deck()
    assert (deck.accept, deck.margin, deck.none_below, deck.general) == (0.5, 0.05, 0.3, 0.1)
    assert deck.courts == Rule(0.55, 0.06, 0.3, 0.2)
    probs = np.full((1, len(deck.classes)), 0.01, np.float32)
    k = deck.classes.index("KC")
    probs[0, k] = 0.9
    views = deck.vectors[None, :1]
    assert deck.judge(probs, views, 0.99)[0, k] == pytest.approx(0.99)
    assert deck.judge(probs, views)[0, k] == pytest.approx(DECK_SURE)
