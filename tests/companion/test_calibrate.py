"""``belote-table calibrate`` finds the felt in a photo, saves its corners and
the four seat zones, and draws them on an image for a person to check."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from cli.cmd_calibrate import main
from vision.calibration import Calibration, CalibrationError
from vision.lab.render import render_background


def _table_photo(path, corners):
    """A green felt quadrilateral on a wooden floor, with a card lying on it."""
    rng = np.random.default_rng(4)
    floor = render_background(rng, (800, 600), "wood")
    felt = render_background(rng, (800, 600), "felt")
    mask = np.zeros((600, 800), np.uint8)
    cv2.fillConvexPoly(mask, np.array(corners, np.int32), 255)
    photo = np.where(mask[..., None] > 0, felt, floor)
    cv2.rectangle(photo, (380, 150), (440, 240), (240, 240, 240), -1)  # a card on the table
    cv2.imwrite(str(path), photo)


def test_calibrate_finds_the_table_and_saves_zones_and_a_preview(tmp_path, capsys):
    corners = [(120, 80), (690, 100), (670, 540), (140, 520)]
    _table_photo(tmp_path / "table.png", corners)
    out = tmp_path / "cal.json"
    assert main(["--image", str(tmp_path / "table.png"), "--out", str(out)]) == 0
    cal = Calibration.load(out)
    for found, true in zip(cal.corners, corners, strict=True):
        assert abs(found[0] - true[0]) <= 8 and abs(found[1] - true[1]) <= 8
    # The seats: N at the top edge, W on the left (counterclockwise N -> W -> S -> E).
    assert cal.seat_of((405, 180)) == "N"
    assert cal.seat_of((405, 460)) == "S"
    assert cal.seat_of((220, 310)) == "W"
    assert cal.seat_of((600, 320)) == "E"
    assert cal.seat_of((40, 40)) is None  # off the table
    preview = cv2.imread(str(tmp_path / "cal.png"))
    assert preview is not None and preview.shape == (600, 800, 3)
    assert "coins de la table : (" in capsys.readouterr().out
    assert sorted(json.loads(out.read_text())["zones"]) == ["E", "N", "S", "W"]


def test_north_can_sit_on_another_side(tmp_path):
    _table_photo(tmp_path / "t.png", [(100, 100), (700, 100), (700, 500), (100, 500)])
    out = tmp_path / "cal.json"
    assert main(["--image", str(tmp_path / "t.png"), "--north", "right",
                 "--out", str(out)]) == 0
    cal = Calibration.load(out)
    # Counterclockwise seen from above: right N, top W, left S, bottom E.
    assert [cal.seat_of(p) for p in [(600, 300), (400, 150), (200, 300), (400, 450)]] == [
        "N", "W", "S", "E"]


def test_a_photo_without_a_table_is_refused_and_nothing_is_saved(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "white.png"), np.full((300, 400, 3), 230, np.uint8))
    assert main(["--image", str(tmp_path / "white.png"), "--out",
                 str(tmp_path / "cal.json")]) == 1
    assert "aucune table (tapis) trouvée" in capsys.readouterr().err
    assert not (tmp_path / "cal.json").exists()


def test_a_bad_calibration_file_says_what_is_wrong(tmp_path):
    (tmp_path / "bad.json").write_text('{"width": 10, "height": 10, "corners": [], '
                                       '"zones": {"N": []}}')
    with pytest.raises(CalibrationError, match="expected N E S W"):
        Calibration.load(tmp_path / "bad.json")


def _felt_with_cards(path, card_share, n=4, seed=8):
    """A camera frame of green felt with ``n`` cards each ``card_share`` of its height."""
    from vision.lab.render import TableScene

    rng = np.random.default_rng(seed)
    scene = TableScene(rng, (1280, 720), background="felt", light=0.6,
                       card_height=card_share * 720, style="fr-grimaud")
    for i, code in enumerate(["AS", "TH", "KD", "7C"][:n]):
        scene.place(code, (320 + 210 * i, 360 + (-1) ** i * 120), 15.0 * i)
    cv2.imwrite(str(path), scene.draw())


@pytest.mark.parametrize(("share", "ok", "said"), [
    (0.25, True, ") : bien"),  # the recommended mount: a card a quarter of the frame's height
    (0.08, False, "TROP PETITES"),  # the whole table in the frame: cards too small to read
    (0.13, False, "TROP PETITES"),  # read, but many would wait unread
    (0.19, False, "PETITES : quelques cartes"),  # read, but 1-2 in 100 wait
    (0.45, False, "TROP GRANDES"),  # a camera so low the played cards may leave the frame
])
def test_calibrate_says_in_french_whether_the_cards_are_large_enough_to_read(
        tmp_path, capsys, share, ok, said):
    _felt_with_cards(tmp_path / "t.png", share)
    assert main(["--image", str(tmp_path / "t.png"), "--out", str(tmp_path / "cal.json")]) == 0
    assert (tmp_path / "cal.json").is_file()  # the seats are saved either way
    captured = capsys.readouterr()
    line = [x for x in (captured.out + captured.err).splitlines()
            if x.startswith("cartes : ")][-1]
    assert said in line and "card" not in line
    assert (line in captured.out) is ok


def test_calibrate_says_the_cards_size_in_english_on_request(tmp_path, capsys):
    from companion import i18n

    _felt_with_cards(tmp_path / "t.png", 0.19)
    i18n.use("en")
    try:
        assert main(["--image", str(tmp_path / "t.png"),
                     "--out", str(tmp_path / "cal.json")]) == 0
    finally:
        i18n.use("fr")
    assert "SMALL: a few cards in a hundred may wait unread" in capsys.readouterr().err


def test_calibrate_asks_for_cards_when_the_table_is_empty(tmp_path, capsys):
    _felt_with_cards(tmp_path / "t.png", 0.25, n=0)
    assert main(["--image", str(tmp_path / "t.png"), "--out", str(tmp_path / "cal.json")]) == 0
    assert "Posez une carte devant chaque place" in capsys.readouterr().err


def test_calibrate_says_when_a_coloured_lamp_tints_the_cards(tmp_path, capsys):
    _felt_with_cards(tmp_path / "t.png", 0.25)
    frame = cv2.imread(str(tmp_path / "t.png"))
    out = tmp_path / "cal.json"
    assert main(["--image", str(tmp_path / "t.png"), "--out", str(out)]) == 0
    assert "lampe colorée" not in capsys.readouterr().err  # white light: nothing said
    warm = np.clip(frame * np.array([0.5, 0.75, 1.0]), 0, 255).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "warm.png"), warm)
    # The felt is still found (told on the frame brought back to white paper), the same.
    corners = json.loads(out.read_text())["corners"]
    assert main(["--image", str(tmp_path / "warm.png"), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["corners"] == corners
    assert "une lampe colorée teinte le papier blanc des cartes" in capsys.readouterr().err


def test_calibrate_reads_the_pi_camera_at_the_zoom_run_uses(tmp_path, monkeypatch, capsys):
    """``--picamera --zoom 2``: the frame comes from picamera2 with the sensor's centre
    cropped (a fake camera module here, filming a felt with cards a quarter of its height)."""
    import sys
    import types

    _felt_with_cards(tmp_path / "t.png", 0.25)
    filmed = cv2.imread(str(tmp_path / "t.png"))
    made = []

    class Camera:
        camera_properties = {"PixelArraySize": (4608, 2592)}
        sensor_modes = [{"size": (2304, 1296), "crop_limits": (0, 0, 4608, 2592)}]

        def __init__(self):
            self.controls, self.shots, self.closed = {}, 0, False
            made.append(self)

        def create_video_configuration(self, **kwargs):
            return kwargs

        def configure(self, config):
            pass

        def start(self):
            pass

        def set_controls(self, controls):
            self.controls.update(controls)

        def capture_array(self, name):
            self.shots += 1
            return filmed.copy()

        def stop(self):
            pass

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Camera))
    out = tmp_path / "cal.json"
    assert main(["--picamera", "--zoom", "2", "--out", str(out)]) == 0
    (camera,) = made
    assert camera.controls["ScalerCrop"] == (1152, 648, 2304, 1296)
    assert camera.shots > 1 and camera.closed  # it let the exposure settle, then let go
    assert Calibration.load(out).width == 1280
    assert ") : bien" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--image", "x.png", "--zoom", "2"],
                                  ["--picamera", "--zoom", "0.5"]])
def test_a_zoom_calibrate_cannot_use_is_refused(tmp_path, capsys, args):
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--out", str(tmp_path / "cal.json")])
    assert exit_.value.code == 2
    assert "--zoom" in capsys.readouterr().err
    assert not (tmp_path / "cal.json").exists()
