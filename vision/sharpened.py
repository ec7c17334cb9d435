"""The sharpened frame: a frame smeared by the camera's motion that leaves a card unsure
is sharpened (:mod:`vision.motion`) and read again; a card named only there counts
where the frame as it is guessed it (:func:`sharpen_agrees`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import motion
from vision.detection import Detection, same_place, within
from vision.frame import FrameReader
from vision.settings import SHARPEN_AGREEMENTS, ReaderSettings, shipped_settings


def sharpened_reads(frames: FrameReader, gray: np.ndarray, frame: np.ndarray,
                    found: list[Detection], depth: float | None = None,
                    agree: str | None = None) -> list[Detection]:
    """The cards the frame names once sharpened that ``found`` (its reads as it is) does
    not: none unless the frame is smeared along one line (``vision.motion.estimate``)
    at least ``sharpen_length`` pixels, its cepstrum's trough ``sharpen_depth`` deep or
    more. The frame, its doubts' surroundings sharpened (``surroundings``,
    ``vision.motion.sharpen_box``), is read as a frame is (by ``frames``); a card it
    names counts where no card of ``found`` is named over it and
    the doubts of ``found`` there agree with it (:func:`sharpen_agrees`, by ``agree`` or
    the settings' ``sharpen_agree``), whatever its confidence (``CardReader.read`` keeps
    those at ``sharpened_sure`` or more). ``depth``: another least depth
    (``vision.lab.sharpen_rule`` tries others)."""
    settings = frames.settings
    streak = motion.estimate(gray, settings)
    least = settings.sharpen_depth if depth is None else depth
    if streak.length < settings.sharpen_length or streak.depth < least:
        return []
    named = [d for d in found if d.code is not None]
    codes = {d.code for d in named}
    doubts = [d for d in found if d.code is None]
    rule = settings.sharpen_agree if agree is None else agree
    # Only the doubts' surroundings are sharpened, not the frame (a large photo sharpened
    # whole takes gigabytes): a card the sharpened frame adds must lie at a doubt
    # (``sharpen_agrees``), but under "any", which takes one anywhere.
    h, w = frame.shape[:2]
    boxes = [(0, 0, w, h)] if rule == "any" else surroundings(frame.shape, doubts,
                                                                settings.sharpen_surroundings)
    sharp = frame.copy()
    for x0, y0, x1, y1 in boxes:
        sharp[y0:y1, x0:x1] = motion.sharpen_box(frame, streak, (x0, y0, x1, y1),
                                                 settings=settings)
    # As a deck does (``vision.deck``), the sharpened frame only makes sure what the
    # frame as it is guessed there (by the shipped agreement, a card of the suit it
    # guessed): a suit the smear hid can come back wrong, a rank less often.
    sharp_gray = sharp if sharp.ndim == 2 else cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY)
    return [d for d in frames.read(sharp_gray, sharp)
            if d.code is not None and d.code not in codes
            and not any(within(d.center, n.quad) for n in named)
            and sharpen_agrees(d.code, guesses_at(d, doubts), rule)]


def surroundings(shape: tuple[int, ...], doubts: list[Detection],
                 widen: float | None = None) -> list[tuple[int, int, int, int]]:
    """What of a frame of ``shape`` is sharpened: around each doubt, its box widened by
    ``widen`` times its own size on every side, within the frame, boxes that overlap
    made one; (x0, y0, x1, y1) in pixels, the ends left out."""
    if widen is None:
        widen = shipped_settings().sharpen_surroundings
    h, w = shape[:2]
    boxes = []
    for d in doubts:
        xs = [float(p[0]) for p in d.quad]
        ys = [float(p[1]) for p in d.quad]
        side = widen * max(max(xs) - min(xs), max(ys) - min(ys), 8.0)
        x0, y0 = max(0, int(min(xs) - side)), max(0, int(min(ys) - side))
        x1, y1 = min(w, int(np.ceil(max(xs) + side))), min(h, int(np.ceil(max(ys) + side)))
        if x1 > x0 and y1 > y0:
            boxes.append((x0, y0, x1, y1))
    merged = True
    while merged:  # each pixel sharpened once
        merged = False
        for i, a in enumerate(boxes):
            for j in range(i + 1, len(boxes)):
                b = boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def sharpen_agrees(code: str, guesses: list[str | None], agree: str | None = None,
                   settings: ReaderSettings | None = None) -> bool:
    """Whether a card ``code`` named on a sharpened frame counts beside ``guesses``, what
    the doubts of the frame as it is at that place guessed (``guesses_at``), by ``agree``
    (``SHARPEN_AGREEMENTS``; None: the settings' ``sharpen_agree``)."""
    if agree is None:
        agree = (settings or shipped_settings()).sharpen_agree
    if agree not in SHARPEN_AGREEMENTS:
        raise ValueError(f"sharpen_agree: {agree!r} is none of {SHARPEN_AGREEMENTS}")
    if agree == "any":
        return True
    if agree == "doubt":
        return bool(guesses)
    if agree == "suit":
        return any(g is not None and g[1:] == code[1:] for g in guesses)
    return code in guesses


def guesses_at(read: Detection, doubts: list[Detection]) -> list[str | None]:
    """What the doubtful reads ``doubts`` lying at ``read``'s place guessed (None: no
    guess)."""
    return [d.guess for d in doubts if same_place(read, d)]
