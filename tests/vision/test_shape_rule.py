"""A picture of one card read again stretched to the other shape: when its sure read there is
taken (``vision.face.shape_agrees``, the settings' ``shape_agree``), and the rule's choice
(``vision/lab/shape_rule.py``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision import face as face_module
from vision.reader import SHAPE_AGREEMENTS, Detection, shape_agrees
from vision.settings import shipped_settings

SHAPE_AGREE = shipped_settings().shape_agree

QUAD = [[0.0, 0.0], [80.0, 0.0], [80.0, 120.0], [0.0, 120.0]]


def _doubt(guess: str | None) -> Detection:
    return Detection(None, 0.6, QUAD, (40.0, 60.0), guess=guess)


def test_each_agreement_takes_what_it_says():
    assert all(shape_agrees("AS", None, a) for a in SHAPE_AGREEMENTS)  # nothing boxed
    assert all(shape_agrees("AS", _doubt(None), a) for a in SHAPE_AGREEMENTS)
    assert shape_agrees("AS", _doubt("7H"), "any")
    assert shape_agrees("AS", _doubt("AC"), "rank")
    assert not shape_agrees("AS", _doubt("KS"), "rank")
    assert shape_agrees("AS", _doubt("AS"), "card")
    assert not shape_agrees("AS", _doubt("AC"), "card")
    with pytest.raises(ValueError, match="shape_agree"):
        shape_agrees("AS", _doubt("AS"), "most")


def _stub(reader, monkeypatch, as_is: Detection | None, stretched: Detection | None):
    """``reader.read_face`` on a 80 x 120 picture reading ``as_is`` as it is and
    ``stretched`` at the other shape."""
    shapes = []

    def once(reader_, image):
        shapes.append(image.shape[:2])
        return as_is if len(shapes) == 1 else stretched

    monkeypatch.setattr(face_module, "_read_face_once", once)
    picture = np.full((120, 80, 3), 255, np.uint8)

    def read(agree: str) -> Detection | None:
        shapes.clear()
        monkeypatch.setattr(reader, "settings",
                            dataclasses.replace(reader.settings, shape_agree=agree))
        return reader.read_face(picture)

    return read, shapes


def test_a_stretched_read_against_the_guess_as_it_is(reader, monkeypatch):
    from vision.lab.shape_rule import watching

    sure_as = Detection("AS", 0.97, QUAD, (40.0, 60.0))
    read, shapes = _stub(reader, monkeypatch, _doubt("AC"), sure_as)
    with watching() as disputed:
        got = read("any")
        assert shapes == [(120, 80), (80, 120)]
        assert got is not None and got.code == "AS" and disputed == ["AS"]
        disputed.clear()
        assert read("rank").code == "AS"  # an ace either way
        disputed.clear()
        kept = read("card")
        assert kept.code is None and kept.guess == "AC" and not disputed
    assert face_module.shape_agrees is shape_agrees  # its own again after the block


def test_a_stretched_read_of_the_guessed_card_or_of_nothing_boxed_is_taken(reader, monkeypatch):
    sure_as = Detection("AS", 0.97, QUAD, (40.0, 60.0))
    from vision.lab.shape_rule import watching

    for as_is in (_doubt("AS"), None):
        read, _ = _stub(reader, monkeypatch, as_is, sure_as)
        for agree in SHAPE_AGREEMENTS:
            with watching() as disputed:
                got = read(agree)
            assert got is not None and got.code == "AS", (as_is, agree)
            assert not disputed
    # A sure read as it is: the picture is not stretched at all.
    read, shapes = _stub(reader, monkeypatch, Detection("KH", 0.99, QUAD), sure_as)
    assert read(SHAPE_AGREE).code == "KH" and shapes == [(120, 80)]


@pytest.mark.parametrize("style, code", [("fr-grimaud", "KH"), ("fr-grimaud", "QS"),
                                         ("fr-ducale", "TH"), ("fr-ducale", "8C"),
                                         ("en-bicycle", "QS")])
def test_a_card_squeezed_across_its_picture_is_still_read_with_the_shipped_rule(
        reader, monkeypatch, style, code):
    """A card lying across a photo, warped into an upright picture: its long side on the
    short one. Read as it is, it is unsure (a guess of it, or none); stretched to the
    other shape, it is named (the real models, the shipped agreement)."""
    import cv2

    from vision.lab import render

    face = render.render_card(code, style, np.random.default_rng(3))
    h, w = face.shape[:2]
    squeezed = cv2.resize(face, (h, w), interpolation=cv2.INTER_AREA)
    once, shapes = face_module._read_face_once, []

    def counted(reader_, image):
        shapes.append(image.shape[:2])
        return once(reader_, image)

    monkeypatch.setattr(face_module, "_read_face_once", counted)
    found = reader.read_face(squeezed)
    assert len(shapes) == 2 and shapes[0] == shapes[1][::-1]  # read at the other shape
    assert found is not None and found.code == code, found


def test_the_rule_is_the_agreement_with_fewest_wrong_reads_within_its_allowance(monkeypatch):
    from vision.lab import shape_rule

    monkeypatch.setattr(shape_rule, "RIGHT_LOST_PER_1000", 1.0)

    def row(card, any_, rank, same):
        return {"set": "small", "pictured": card, "any": any_, "rank": rank, "card": same}

    rows = [row("7H", "7H", "7H", "7H")] * 1500 + [row("AC", "AS", "AS", None)] * 3 \
        + [row("JS", "KS", None, None)] * 2 + [row("QD", "QD", "QD", None)] * 2 \
        + [row("8C", None, None, None)]
    got = shape_rule.choose(rows)
    assert got["counts"]["any"] == {"right": 1502, "wrong": 5, "unknown": 1}
    assert got["counts"]["rank"] == {"right": 1502, "wrong": 3, "unknown": 3}
    assert got["counts"]["card"] == {"right": 1500, "wrong": 0, "unknown": 8}
    # "card" leaves every wrong read unknown but 2 right ones, over 1.5 in 1502.
    assert got["chosen"] == "rank"
    monkeypatch.setattr(shape_rule, "RIGHT_LOST_PER_1000", 2.0)
    assert shape_rule.choose(rows)["chosen"] == "card"
