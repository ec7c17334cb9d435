"""How a picture's middle tells a court's picture (``vision.lab.face_rule.face_is_picture``),
and that rule's choice (``vision/lab/face_rule.py``); the reader no longer applies it (it
changed no read of the held-out designs' pictures: the model card)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.lab.face_rule import face_is_picture, face_middle


def _face(code: str, style: str) -> np.ndarray:
    from vision.lab import render

    return render.render_card(code, style, np.random.default_rng(0))


@pytest.mark.parametrize("style", ["fr-grimaud", "en-bicycle", "fr-ducale"])
def test_a_courts_picture_is_told_from_a_number_cards_pips(style):
    from vision.lab.pictures import as_photo

    for code in ("7S", "8H", "9C", "TD", "AD"):
        face = _face(code, style)
        assert not face_is_picture(face), code
        assert not face_is_picture(as_photo(face)), code
    # A king's picture fills the middle: dark and busy.
    assert face_is_picture(_face("KC", style)), face_middle(_face("KC", style))


def test_a_black_decks_plain_dark_middle_is_no_picture():
    from vision.lab.black_decks import INKS, black_style

    for ink in INKS:
        style = black_style("fr-grimaud", ink)
        for code in ("7S", "8H", "9C", "TD"):
            light, busy = face_middle(_face(code, style))
            assert light < 0.3  # dark paper: not light, but plain
            assert busy < 0.3, (ink, code, busy)


def test_face_middle_takes_grey_and_colour_alike_and_any_size():
    import cv2

    face = _face("KC", "fr-grimaud")
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    assert face_middle(grey) == pytest.approx(face_middle(face), abs=0.02)
    big = cv2.resize(face, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
    assert face_middle(big) == pytest.approx(face_middle(face), abs=0.05)
    assert face_middle(np.zeros((3, 2), np.uint8)) == (1.0, 0.0)  # tiny: all one level


def test_a_middle_with_no_paper_at_all_is_no_courts_picture():
    """A black deck's card cut out of its table frame: all dark, and busy with its signs
    and the table's edges; no court on light paper shows no paper at all."""
    import cv2

    from vision.lab.face_rule import BUSY_ABOVE as FACE_BUSY_ABOVE
    from vision.lab.face_rule import LIGHT_FROM as FACE_LIGHT_FROM

    picture = np.full((300, 210, 3), 25, np.uint8)
    picture[:, :20] = 250  # a light table beside it
    rng = np.random.default_rng(1)
    for _ in range(150):  # gold signs all over, edges everywhere
        x, y = rng.integers(20, 200), rng.integers(0, 290)
        cv2.circle(picture, (int(x), int(y)), 4, (60, 180, 215), -1)
    light, busy = face_middle(picture)
    assert busy > FACE_BUSY_ABOVE and light < FACE_LIGHT_FROM
    assert not face_is_picture(picture)
    # Some paper in the middle, among as many edges: as a court's picture shows it.
    picture[100:200, 80:140] = 250
    light, busy = face_middle(picture)
    assert FACE_LIGHT_FROM < light < 0.3 and busy > FACE_BUSY_ABOVE
    assert face_is_picture(picture)


def test_the_rule_leaves_unknown_the_most_wrong_reads_within_its_allowance(monkeypatch):
    from vision.lab import face_rule

    monkeypatch.setattr(face_rule, "FROM_GRID", (0.0, 0.1))
    monkeypatch.setattr(face_rule, "LIGHT_GRID", (0.3, 0.4))
    monkeypatch.setattr(face_rule, "BUSY_GRID", (0.4, 0.5))
    monkeypatch.setattr(face_rule, "RIGHT_LOST_PER_1000", 1.0)

    def row(light, busy, right):
        return {"set": "faces", "light": light, "busy": busy, "right": right}

    rows = [row(0.8, 0.1, True)] * 1500 + [row(0.35, 0.45, True)] * 2 \
        + [row(0.25, 0.55, False)] * 3 + [row(0.35, 0.45, False)] * 4 \
        + [row(0.25, 0.45, False)] * 2 + [row(0.0, 0.6, True)] * 2
    got = face_rule.choose(rows)
    assert got["number_reads_right"] == 1504 and got["number_reads_wrong"] == 9
    grid = got["grid_from/light/busy_right_wrong"]
    assert grid["0.1/0.3/0.5"] == [0, 3] and grid["0.1/0.3/0.4"] == [0, 5]
    assert grid["0.1/0.4/0.4"] == [2, 9] and grid["0.0/0.3/0.4"] == [2, 5]
    # 0.1/0.4/0.4 leaves 9 wrong reads unknown but 2 right ones, over 1.5 in 1504; with
    # no floor, the two right reads with no paper in the middle are lost too.
    assert got["chosen"] == {"light_from": 0.1, "light_below": 0.3, "busy_above": 0.4,
                             "wrong_left_unknown": 5, "right_left_unknown": 0}
    monkeypatch.setattr(face_rule, "RIGHT_LOST_PER_1000", 2.0)
    chosen = face_rule.choose(rows)["chosen"]
    assert (chosen["light_from"], chosen["light_below"]) == (0.1, 0.4)
