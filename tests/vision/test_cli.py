"""``belote-table vision read`` and ``eval`` on real photos and on small labelled folders."""

from __future__ import annotations

import json
import shutil

import cv2
import pytest

from cli.cmd_vision import main


def _first_held_out_with_cards(held_out_scenes):
    return next((p, t) for p, t in held_out_scenes if len(t) == 1)


def test_read_prints_the_cards_as_json(capsys, held_out_scenes):
    path, truth = _first_held_out_with_cards(held_out_scenes)
    assert main(["read", str(path)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert isinstance(found, list)
    for card in found:
        assert set(card) >= {"code", "confidence", "center", "quad"}
        assert card["code"] is not None


def test_read_and_eval_read_still_pictures_down_to_their_own_pixels(capsys, tmp_path,
                                                                    monkeypatch):
    """``read`` and ``eval`` build a still reader (``CardReader(still=True)``): a small
    card of a 1280x720 picture that ``run``'s reader leaves is read."""
    import cv2
    import numpy as np

    from vision.lab.render import STYLES, render_cards_apart
    from vision.reader import CardReader

    frame, codes = render_cards_apart(np.random.default_rng(62), (1280, 720), 0.10,
                                      STYLES[62 % len(STYLES)], background="felt",
                                      light=0.8, tilt=0.0, strength=0.5)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), frame)
    assert main(["read", str(path)]) == 0
    named = {card["code"] for card in json.loads(capsys.readouterr().out)}
    camera = {d.code for d in CardReader(threads=1).read(frame) if d.code}
    assert named <= set(codes) and len(named) > len(camera)
    built = []
    real = CardReader.__init__

    def spy(self, *args, **kwargs):
        built.append(kwargs.get("still", False))
        real(self, *args, **kwargs)

    monkeypatch.setattr(CardReader, "__init__", spy)
    (tmp_path / "labels.json").write_text(json.dumps({"table.png": sorted(codes)}))
    assert main(["eval", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["cards"] == 4
    assert built[0] is True


def test_read_unreadable_image_exits_2_naming_it(capsys, tmp_path):
    bad = tmp_path / "table.jpg"
    bad.write_text("not a picture")
    assert main(["read", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad} : image illisible" in err


def test_read_missing_image_exits_2(capsys, tmp_path):
    assert main(["read", str(tmp_path / "nope.png")]) == 2
    assert "nope.png : image introuvable" in capsys.readouterr().err


def _small_scene_folder(tmp_path, real_cards, names_and_labels):
    folder = tmp_path / "scenes"
    folder.mkdir()
    for name, _ in names_and_labels:
        shutil.copy(real_cards / "scenes" / name, folder / name)
    return folder


def test_eval_labelled_folder_reports_precision_and_recall(capsys, tmp_path, real_cards,
                                                           held_out_scenes):
    with_cards = [(p.name, t) for p, t in held_out_scenes if t][:3]
    without = [(p.name, t) for p, t in held_out_scenes if not t][:1]
    chosen = with_cards + without
    folder = _small_scene_folder(tmp_path, real_cards, chosen)
    # Labels in both accepted forms, plus a non-belote label that must not be reported.
    labels = {name: (truth + ["5C"] if i % 2 else [{"label": c} for c in truth])
              for i, (name, truth) in enumerate(chosen)}
    (folder / "labels.json").write_text(json.dumps(labels))
    assert main(["eval", str(folder)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"] == 4
    assert result["cards"] == sum(len(t) for _, t in chosen)
    for key in ("precision", "recall", "perfect_images"):
        assert 0.0 <= result[key] <= 1.0
    assert isinstance(result["confusions"], dict)
    assert result["missed"] == round((1 - result["recall"]) * result["cards"])
    assert result["invented"] == 0 or result["precision"] < 1.0


def test_eval_card_folders_reports_accuracy(capsys, tmp_path, real_cards):
    folder = tmp_path / "cards"
    copied = 0
    for label in ("KH", "8D", "QC"):
        (folder / label).mkdir(parents=True)
        for image in sorted((real_cards / "cards" / label).glob("*.jpg"))[:2]:
            shutil.copy(image, folder / label / image.name)
            copied += 1
    assert main(["eval", str(folder)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"] == copied
    assert result["accuracy"] >= 0.5


def test_eval_card_folders_read_bmp_and_webp_pictures_too(capsys, tmp_path, real_cards):
    """Every format ``vision read`` opens is read from a card folder, whatever the case
    of its name; a file of another kind is passed over."""
    folder = tmp_path / "cards"
    (folder / "KH").mkdir(parents=True)
    image = cv2.imread(str(sorted((real_cards / "cards" / "KH").glob("*.jpg"))[0]))
    for name in ("a.bmp", "b.WEBP", "c.PNG"):
        assert cv2.imwrite(str(folder / "KH" / name.lower()), image)
        (folder / "KH" / name.lower()).rename(folder / "KH" / name)
    (folder / "KH" / "notes.txt").write_text("pas une photo")
    assert main(["eval", str(folder)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"] == 3


def test_eval_gives_readable_figures_without_the_cards_marked_unreadable(capsys, tmp_path,
                                                                        real_cards,
                                                                        held_out_scenes):
    chosen = [(p.name, t) for p, t in held_out_scenes if len(t) == 1][:2]
    folder = _small_scene_folder(tmp_path, real_cards, chosen)
    # Each photo gets a card that is not in it, marked unreadable: the plain figures
    # count it missed; the readable ones leave it out.
    absent = [c for c in ("AS", "7D", "KH") if all(c not in t for _, t in chosen)][0]
    labels = {name: truth + [{"label": absent, "readable": False}] for name, truth in chosen}
    (folder / "labels.json").write_text(json.dumps(labels))
    assert main(["eval", str(folder)]) == 0
    result = json.loads(capsys.readouterr().out)
    readable = result["readable"]
    assert result["cards"] == 4 and readable["cards"] == 2
    assert result["missed"] == readable["missed"] + 2
    assert readable["invented"] == result["invented"]
    assert readable["recall"] == round(1 - readable["missed"] / 2, 4)
    # A card whose indices are out of sight: left out of the plain figures, and
    # optional in the readable ones.
    labels = {name: truth + [{"label": absent, "readable": False, "index_seen": False}]
              for name, truth in chosen}
    (folder / "labels.json").write_text(json.dumps(labels))
    assert main(["eval", str(folder)]) == 0
    unseen = json.loads(capsys.readouterr().out)
    assert unseen["cards"] == 2 and unseen["missed"] == readable["missed"]
    assert unseen["readable"] == readable
    # A folder with no such marks has no readable figures.
    (folder / "labels.json").write_text(json.dumps(dict(chosen)))
    assert main(["eval", str(folder)]) == 0
    assert "readable" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("content, message", [
    ("{", "labels.json : pas du JSON valide"),
    ('{"a.jpg": "TH"}', "expected a list of labels"),
    ('{"a.jpg": [3]}', "expected a string or an object"),
])
def test_eval_bad_labels_exit_2_with_the_place(capsys, tmp_path, content, message):
    (tmp_path / "labels.json").write_text(content)
    assert main(["eval", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_eval_missing_folder_exits_2(capsys, tmp_path):
    assert main(["eval", str(tmp_path / "none")]) == 2
    assert "none : ce n'est pas un dossier" in capsys.readouterr().err


@pytest.mark.slow
def test_frames_of_games_in_play_are_labelled_as_the_reader_must_report_them(tmp_path, capsys):
    """``vision.lab.evaluate.make_table_set``: frames of a filmed game, labelled for ``eval``."""
    from vision.lab.evaluate import make_table_set

    folder = make_table_set(tmp_path / "table", 6, 77, "english", every=40)
    labels = json.loads((folder / "labels.json").read_text())
    assert sorted(labels) == [f"table-english-77-{i:04d}.jpg" for i in range(6)]
    assert all((folder / name).is_file() for name in labels)
    # Only the cards of the trick lie on the table: at most four, each once.
    for cards in labels.values():
        codes = [c if isinstance(c, str) else c["label"] for c in cards]
        assert len(codes) <= 4 and len(set(codes)) == len(codes)
        assert all(len(c) == 2 and c[0] in "789TJQKA" for c in codes)
    assert sum(len(v) for v in labels.values()) >= 6
    assert main(["eval", str(folder)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["images"] == 6 and out["invented"] == 0


def test_the_virtual_table_takes_its_table_and_camera_settings():
    from vision.lab.virtual_table import VirtualTable

    film = VirtualTable(seed=2, hands=1, size=(640, 360),
                        table={"background": "wood", "card_height": 0.3, "tilt": 0.02})
    assert film.scene.card_height == pytest.approx(0.3 * 360)
    ts, frame = next(iter(film))
    assert frame.shape == (360, 640, 3) and film.occluders == []
    # The default camera stays as the filmed games were made with.
    assert VirtualTable(seed=2, hands=1, size=(640, 360)).scene.card_height == pytest.approx(
        0.26 * 360)
    with pytest.raises(ValueError, match="zoom"):
        VirtualTable(seed=2, hands=1, table={"zoom": 2})
