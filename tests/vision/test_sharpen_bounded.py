"""Reading a photo never takes more than about a gigabyte, whatever its size up to
the pixel cap (issue 74): a smeared frame is sharpened around its doubts only, piece
by piece, not whole (an 8000 x 8000 photo sharpened whole took 6 GB;
``benchmarks/memory.py`` measures it). What is read stays what the frame sharpened
whole gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.test_motion import printed, smeared
from vision import motion

FRAMES = Path(__file__).resolve().parent / "frames"


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The shape of every piece ``motion.sharpen`` is given from now on."""
    pieces: list[tuple[int, int]] = []
    real = motion.sharpen

    def counted(frame: np.ndarray, *args: Any, **kwargs: Any) -> np.ndarray:
        pieces.append((int(frame.shape[0]), int(frame.shape[1])))
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(motion, "sharpen", counted)
    return pieces


def _margin(found: motion.Motion) -> int:
    return motion.MARGIN_STREAKS * int(motion.streak(found.length, found.angle).shape[0])


def test_a_box_sharpened_piece_by_piece_is_what_the_whole_frame_gives() -> None:
    blurred = cv2.merge([smeared(printed(5), 8, 30)] * 3)
    found = motion.estimate(blurred[..., 0])
    whole = motion.sharpen(blurred, found)
    for box in ((0, 0, 1280, 720), (100, 50, 900, 600), (1000, 500, 1280, 720)):
        x0, y0, x1, y1 = box
        pieces = motion.sharpen_box(blurred, found, box, piece=300)
        assert pieces.shape == whole[y0:y1, x0:x1].shape
        diff = np.abs(pieces.astype(int) - whole[y0:y1, x0:x1].astype(int))
        assert diff.max() <= 2, (box, diff.max())


def test_each_piece_is_bounded_whatever_the_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = np.tile(smeared(printed(3), 8, 0), (4, 3))  # 2880 x 3840
    found = motion.estimate(frame)
    pieces = _spy(monkeypatch)
    out = motion.sharpen_box(frame, found, (0, 0, frame.shape[1], frame.shape[0]))
    assert out.shape == frame.shape
    side = motion.PIECE + 2 * _margin(found)
    assert len(pieces) == 12 and all(h <= side and w <= side for h, w in pieces)


def _codes(reader: Any, frame: np.ndarray) -> list[str]:
    return sorted(str(d.code) for d in reader.read(frame))


def test_the_reader_sharpens_around_its_doubts_only_and_reads_the_same(
        reader: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.lab import decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    from benchmarks.misses import HELD_OUT_OFFSET
    from benchmarks.real_decks import seed_of
    from vision.lab import render
    from vision.lab.evaluate import design_scenes, design_styles

    render.art_styles(held_out=None, french_art=True)
    *_, (frame, _things, faults) = design_scenes(design_styles("kde-dondorf"), 13,
                                                 seed_of("kde-dondorf") + HELD_OUT_OFFSET)
    assert faults["blur"] == "motion"
    pieces = _spy(monkeypatch)
    read = _codes(reader, frame)
    found = motion.estimate(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    side = motion.PIECE + 2 * _margin(found)
    # Sharpened: pieces around the doubts, far less than the frame.
    assert pieces and all(h <= side and w <= side for h, w in pieces)
    assert sum(h * w for h, w in pieces) < frame.shape[0] * frame.shape[1]
    # The same cards as with the whole frame sharpened (the way before).
    whole = motion.sharpen(frame, found, settings=reader.settings)

    def from_whole(image: np.ndarray, streak: motion.Motion, box: tuple[int, int, int, int],
                   **_: Any) -> np.ndarray:
        x0, y0, x1, y1 = box
        return whole[y0:y1, x0:x1]

    monkeypatch.setattr(motion, "sharpen_box", from_whole)
    assert _codes(reader, frame) == read


@pytest.mark.parametrize("path", sorted(FRAMES.glob("*.jpg")), ids=lambda p: p.stem)
def test_the_test_frames_read_as_before(reader: Any, path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.imagefile import load_image

    frame = load_image(path)
    read = _codes(reader, frame)
    found = motion.estimate(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    whole = motion.sharpen(frame, found, settings=reader.settings)
    monkeypatch.setattr(motion, "sharpen_box", lambda image, streak, box, **_: whole[
        box[1]:box[3], box[0]:box[2]])
    assert _codes(reader, frame) == read
