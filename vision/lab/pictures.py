"""Pictures of single cards for the lab's rule choices and the card-face benchmark: each
face printed, as a phone photo of it and flattened by a warp, and cards cut out of
rendered table frames."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import cv2
import numpy as np

from scorer.cards import CARD_CODES
from vision.lab import render
from vision.lab.evaluate import as_saved, design_styles

NOT_BELOTE = tuple(f"{r}{s}" for r in "23456" for s in "SHDC") + ("BACK", "JOKER")
PHOTO_SIZE = (180, 252)
FLAT_SIZE = (500, 700)
WAYS = ("printed", "photo", "flattened")


def as_photo(face: np.ndarray) -> np.ndarray:
    """A printed face as a phone photo of it: smaller, a little blurred, JPEG."""
    small = cv2.resize(face, PHOTO_SIZE, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 0.9)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise RuntimeError("cannot encode a picture")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def as_flattened(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A printed face as a phone photo of it flattened by a warp (``FLAT_SIZE``): enlarged,
    its corners a little off (up to 3 % of its sides), lit unevenly, noisy, JPEG 80."""
    h, w = face.shape[:2]
    fw, fh = FLAT_SIZE
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    dst = np.array([[0, 0], [fw - 1, 0], [fw - 1, fh - 1], [0, fh - 1]], np.float32)
    dst += rng.uniform(-0.03, 0.03, (4, 2)).astype(np.float32) * np.array([fw, fh], np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    big = cv2.warpPerspective(face, warp, FLAT_SIZE, flags=cv2.INTER_CUBIC,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    # Light falling off across the card from one side, and sensor noise.
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * xx / fw + np.sin(angle) * yy / fh)
    light = 1.0 - rng.uniform(0.1, 0.35) * (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
    big = big * light[..., None] + rng.normal(0, 4, big.shape)
    big = cv2.GaussianBlur(np.clip(big, 0, 255).astype(np.uint8), (0, 0), 1.2)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise RuntimeError("cannot encode a picture")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def style_cards(style: str, codes: tuple[str, ...]) -> Iterator[tuple[str, np.ndarray]]:
    """Each card of ``codes`` drawn in ``style`` (the same draw every time): (card, face)."""
    rng = np.random.default_rng(0)
    for code in codes:
        yield code, render.render_card(code, style, rng)


def face_pictures(styles: list[str], seed: int = 9871
                  ) -> Iterator[tuple[str, str, np.ndarray]]:
    """Each style's faces, each drawn once, ``WAYS``: (way, card, picture); ``seed``: the
    flattened photos' warps, face after face."""
    rng = np.random.default_rng(seed)
    for style in styles:
        for code, face in style_cards(style, CARD_CODES + NOT_BELOTE):
            pictures = {"printed": face, "photo": as_photo(face),
                        "flattened": as_flattened(face, rng)}
            for way in WAYS:
                yield way, code, pictures[way]


def crop_pictures(designs: list[str], frames: int, seed: int, spread: bool = False,
                  styles_of: Callable[[str], list[str]] = design_styles
                  ) -> Iterator[tuple[str, np.ndarray]]:
    """Each readable card of ``frames`` table frames a design (its ``styles_of`` in turn;
    with ``spread``, frames of cards spread overlapping) cut out at its bounding box (5 %
    more each side): (card, picture)."""
    rng = np.random.default_rng(seed)
    for design in designs:
        styles = styles_of(design)
        for k in range(frames):
            style = styles[k % len(styles)]
            if spread:
                frame, things = render.render_spread_scene(rng, style=style)
            else:
                frame, things = render.render_scene(rng, style=style, overlap=0.5)
            frame = as_saved(frame)
            h, w = frame.shape[:2]
            for thing in things:
                if not (thing["belote"] and thing["readable"]):
                    continue
                quad = np.asarray(thing["quad"], np.float64)
                (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
                mx, my = 0.05 * (x2 - x1), 0.05 * (y2 - y1)
                yield thing["code"], frame[max(int(y1 - my), 0):min(int(y2 + my), h),
                                           max(int(x1 - mx), 0):min(int(x2 + mx), w)]
