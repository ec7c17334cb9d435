"""A frame smeared by the camera's motion: its streak found, the frame sharpened, read again."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision import motion


def printed(seed: int = 0) -> np.ndarray:
    """A grey 1280x720 picture of dark index letters on light paper, at several sizes."""
    rng = np.random.default_rng(seed)
    image = np.full((720, 1280), 235, np.uint8)
    for i in range(60):
        cv2.putText(image, "AKQJ10987"[i % 9],
                    (int(rng.integers(20, 1200)), int(rng.integers(40, 700))),
                    cv2.FONT_HERSHEY_SIMPLEX, float(rng.uniform(0.6, 1.5)), 20, 2)
    return image


def likeness(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two pictures, their edges left out."""
    x = a[40:-40, 40:-40].astype(np.float64).ravel()
    y = b[40:-40, 40:-40].astype(np.float64).ravel()
    x, y = x - x.mean(), y - y.mean()
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def smeared(image: np.ndarray, length: float, degrees: float) -> np.ndarray:
    return cv2.filter2D(image, -1, motion.streak(length, np.radians(degrees)),
                        borderType=cv2.BORDER_REFLECT)


@pytest.mark.parametrize(("length", "degrees"), [(8, 0), (7, 45), (6, 120), (8, 90)])
def test_the_streak_of_a_smeared_frame_is_found(length, degrees):
    found = motion.estimate(smeared(printed(), length, degrees))
    assert abs(found.length - length) <= 1.0
    # A line has no head: 10 and 190 degrees are one streak.
    turn = (np.degrees(found.angle) - degrees) % 180
    assert min(turn, 180 - turn) <= 15
    assert found.depth >= 3.0


def test_a_sharp_or_blank_frame_shows_no_streak_to_undo():
    from vision.settings import shipped_settings

    SHARPEN_DEPTH = shipped_settings().sharpen_depth  # noqa: N806
    SHARPEN_LENGTH = shipped_settings().sharpen_length  # noqa: N806

    for image in (printed(), np.full((720, 1280), 128, np.uint8), np.zeros((6, 9), np.uint8)):
        found = motion.estimate(image)
        assert found.length < SHARPEN_LENGTH or found.depth < SHARPEN_DEPTH


@pytest.mark.parametrize(("length", "degrees"), [(8, 0), (7, 45), (6, 120)])
def test_sharpening_undoes_the_smear_along_its_streak(length, degrees):
    sharp = printed(5)
    blurred = smeared(sharp, length, degrees)
    found = motion.estimate(blurred)
    fixed = motion.sharpen(blurred, found)
    assert fixed.shape == blurred.shape and fixed.dtype == np.uint8
    assert likeness(fixed, sharp) >= likeness(blurred, sharp) + 0.05
    # Undone across the streak instead, the smear only gets worse.
    across = motion.Motion(found.length, found.angle + np.pi / 2, found.depth)
    assert likeness(motion.sharpen(blurred, across), sharp) < likeness(blurred, sharp)
    colour = motion.sharpen(cv2.merge([blurred] * 3), found)
    assert colour.shape == (*blurred.shape, 3)
    assert np.abs(colour[..., 1].astype(int) - fixed).max() <= 1


def test_a_smeared_frame_is_read_again_sharpened_and_invents_nothing(reader):
    """A held-out design's frame smeared 8 pixels (``misses.py --held-out``'s frames):
    the reader names cards there only once it is sharpened, and only cards in it (the
    frame as it is already takes an 8H for a TH: not the sharpening's doing), under the
    shipped agreement (the settings' ``sharpen_agree``); a looser one would invent two."""
    from vision.lab import decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    from benchmarks.misses import HELD_OUT_OFFSET
    from benchmarks.real_decks import seed_of
    from vision.lab import render
    from vision.lab.evaluate import cards_in_sight, design_scenes, design_styles

    render.art_styles(held_out=None, french_art=True)
    scenes = design_scenes(design_styles("kde-dondorf"), 13,
                           seed_of("kde-dondorf") + HELD_OUT_OFFSET)
    *_, (frame, things, faults) = scenes
    assert faults["blur"] == "motion" and faults["blur_px"] == 8
    readable, present = cards_in_sight(things)
    as_is = {d.code for d in reader.read(frame, sharpen=False) if d.code}
    both = {d.code for d in reader.read(frame) if d.code}
    added = both - as_is
    assert as_is <= both and added <= present
    # Sharpened: a QC where the frame as it is guessed a JC, an 8H where it guessed
    # another heart (the smear hid the rank, not the suit).
    assert {"QC", "8H"} <= added & readable
    # It also names a KC and a KH here, its KS's spade smeared into a club, a KD's
    # diamond into a heart; the frame as it is guessed a spade and a diamond there: only a
    # card of the suit it guessed is made sure.
    assert not {"KC", "KH"} & both
    shipped = reader.settings
    reader.settings = dataclasses.replace(shipped, sharpen_agree="doubt")  # any doubt
    try:
        looser = {d.code for d in reader.read(frame) if d.code}
    finally:
        reader.settings = shipped
    assert {"KC", "KH"} <= looser - present


def test_the_gate_and_threshold_chosen_name_most_cards_none_wrong_within_the_time_budget():
    from vision.lab import sharpen_rule

    every = ["card", "suit", "doubt", "any"]

    def frame(blur, depth, *added):
        return {"blur": blur, "length": 7.0, "depth": depth,
                "added": [{"confidence": c, "readable": ok, "present": ok, "agrees": every}
                          for c, ok in added]}

    rows = [frame("motion", 3.2, (0.999, True), (0.993, True)),
            frame("motion", 2.2, (0.996, True), (0.97, False)),
            frame("motion", 2.7, (0.991, True))]
    # Nine frames the camera did not smear, one of them with a shallow trough.
    rows += [frame("none", 1.0) for _ in range(8)] + [frame("focus", 2.1)]
    got = sharpen_rule.choose(rows)
    # Depth 2.0 would name the most (4 at 0.99) but sharpens 1 in 9 unsmeared frames.
    grid = got["grid_agree/depth/sure"]
    assert grid["card/2.0/0.99"]["readable_added"] == 4
    assert grid["card/2.0/0.95"]["not_there"] == 1
    # Every card agrees every way: of equals, the strictest agreement.
    assert got["chosen"] == {"agree": "card", "depth": 2.5, "sure": 0.99, "readable_added": 3}
    rows[-1]["depth"] = 1.0  # now no unsmeared frame passes even the shallowest gate
    assert sharpen_rule.choose(rows)["chosen"] == {"agree": "card", "depth": 2.0,
                                                   "sure": 0.99, "readable_added": 4}


def test_the_agreement_chosen_takes_a_looser_guess_only_where_it_names_more_none_wrong():
    from vision.lab import sharpen_rule

    def frame(*added):
        return {"blur": "motion", "length": 7.0, "depth": 3.6,
                "added": [{"confidence": 0.999, "readable": ok, "present": ok, "agrees": a}
                          for ok, a in added]}

    card, suit = ["card", "suit", "doubt", "any"], ["suit", "doubt", "any"]
    rows = [frame((True, card), (True, suit)), frame((True, suit), (True, card)),
            frame((True, card)), frame((False, ["any"]))]
    got = sharpen_rule.choose(rows)
    grid = got["grid_agree/depth/sure"]
    assert [grid[f"{a}/3.5/0.999"]["readable_added"] for a in ("card", "suit", "doubt")] == [
        3, 5, 5]
    assert grid["any/3.5/0.999"]["not_there"] == 1
    assert got["chosen"] == {"agree": "suit", "depth": 3.5, "sure": 0.999, "readable_added": 5}
    # A wrong card its place's doubt guessed in the same suit: the suit is no longer safe.
    rows.append(frame((False, suit)))
    assert sharpen_rule.choose(rows)["chosen"]["agree"] == "card"
    # ... unless it was named below the threshold the others pass.
    rows[-1]["added"][0]["confidence"] = 0.93
    assert sharpen_rule.choose(rows)["chosen"] == {"agree": "suit", "depth": 3.5,
                                                   "sure": 0.999, "readable_added": 5}
    assert sharpen_rule.choose(rows)["grid_agree/depth/sure"]["suit/3.5/0.917"][
        "not_there"] == 1


def test_a_sharpened_read_agrees_by_what_the_frame_guessed_at_its_place():
    from vision.reader import Detection, guesses_at, sharpen_agrees

    def at(x, code=None, guess=None):
        return Detection(code, 0.5, [[x - 10, 0], [x + 10, 0], [x + 10, 30], [x - 10, 30]],
                         (float(x), 15.0), guess=guess)

    doubts = [at(100, guess="JC"), at(300, guess=None), at(500, guess="KS")]
    assert guesses_at(at(102, "QC"), doubts) == ["JC"]
    assert guesses_at(at(700, "QC"), doubts) == []
    table = {  # code, where: card, suit, doubt, any
        ("JC", 100): (True, True, True, True),
        ("QC", 100): (False, True, True, True),
        ("JH", 100): (False, False, True, True),
        ("KC", 500): (False, False, True, True),
        ("AH", 300): (False, False, True, True),
        ("AH", 700): (False, False, False, True)}
    for (code, x), want in table.items():
        there = guesses_at(at(x, code), doubts)
        got = tuple(sharpen_agrees(code, there, a) for a in ("card", "suit", "doubt", "any"))
        assert got == want, (code, x)
    with pytest.raises(ValueError, match="sharpen_agree"):
        sharpen_agrees("JC", ["JC"], "rank")
