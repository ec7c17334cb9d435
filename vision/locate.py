"""Find the cards in a camera frame and cut out their corner indices.

The locator looks for card outlines: a card face is a bright, convex
quadrilateral. Two cheap passes (Canny edges, and a local brightness
threshold) give candidate contours on a downscaled frame; each one that
simplifies to four corners with a card-like shape is kept, and duplicates
from the two passes are merged. A quad is returned in portrait order
(first edge short), so that the rank-and-suit index sits in its first and
third corners whichever way up the card lies.

The classifier never sees the whole card: :func:`corner_crops` maps the two
index regions of each quad straight into small grey patches with one
perspective warp each, which costs far less than warping the whole face.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.settings import ReaderSettings, shipped_settings

# The index region, as fractions of the card's width and height (portrait).
# Generous on purpose: decks place their index differently, and the locator's
# corners are a few pixels off on blurred frames.
INDEX_REGION = (0.0, 0.0, 0.26, 0.36)  # x0, y0, x1, y1
CROP_W, CROP_H = 32, 48


def _shipped(name: str, at: int | None = None) -> float:
    value = getattr(shipped_settings(), name)
    return float(value if at is None else value[at])


@dataclass(frozen=True)
class LocateParams:
    """Shape limits for what counts as a card outline (fractions of the frame area), and
    the width a frame is searched at: the reader's settings' ``outline_*``
    (:meth:`of`), the shipped model's where not given."""

    min_area: float = field(default_factory=lambda: _shipped("outline_area", 0))
    max_area: float = field(default_factory=lambda: _shipped("outline_area", 1))
    # Long side over short side.
    min_aspect: float = field(default_factory=lambda: _shipped("outline_aspect", 0))
    max_aspect: float = field(default_factory=lambda: _shipped("outline_aspect", 1))
    # How far the contour may stray from its quadrilateral (fraction of perimeter).
    approx_eps: float = field(default_factory=lambda: _shipped("outline_eps"))
    # Minimum share of the quad's area that the contour itself fills.
    min_fill: float = field(default_factory=lambda: _shipped("outline_fill"))
    # Frames are searched at this width at most.
    work_width: int = field(default_factory=lambda: shipped_settings().outline_width)

    @classmethod
    def of(cls, tuned: ReaderSettings) -> LocateParams:
        """The limits in the reader's settings ``tuned``."""
        return cls(tuned.outline_area[0], tuned.outline_area[1], tuned.outline_aspect[0],
                   tuned.outline_aspect[1], tuned.outline_eps, tuned.outline_fill,
                   tuned.outline_width)


def order_quad(points: np.ndarray) -> np.ndarray:
    """Order four corners clockwise on screen, first edge the card's short (top) edge."""
    pts = np.asarray(points, dtype=np.float32).reshape(4, 2)
    center = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y grows downwards)
    # Start at the top-left-most point for a stable answer, then make sure the
    # first edge is a short one.
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    pts = np.roll(pts, -start, axis=0)
    edges = np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)
    if edges[0] + edges[2] > edges[1] + edges[3]:
        pts = np.roll(pts, -1, axis=0)
    return pts


def _quad_from_contour(contour: np.ndarray, params: LocateParams,
                       frame_area: float) -> np.ndarray | None:
    area = cv2.contourArea(contour)
    if area < params.min_area * frame_area or area > params.max_area * frame_area:
        return None
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    approx = cv2.approxPolyDP(hull, params.approx_eps * peri, True)
    if len(approx) != 4:
        # A rounded or clipped outline may simplify to 5-6 points: the
        # minimum-area rectangle is a fair quad for a top-down card then.
        if len(approx) > 6:
            return None
        approx = cv2.boxPoints(cv2.minAreaRect(hull))
    quad = order_quad(approx)
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0 or area / quad_area < params.min_fill:
        return None
    edges = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    short = (edges[0] + edges[2]) / 2
    long = (edges[1] + edges[3]) / 2
    if short <= 0:
        return None
    aspect = long / short
    if not params.min_aspect <= aspect <= params.max_aspect:
        return None
    return quad


def _quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def find_cards(frame: np.ndarray, params: LocateParams | None = None) -> list[np.ndarray]:
    """Return the card quads (4x2 float32, frame pixels, portrait order) in a BGR or grey frame."""
    params = params or LocateParams()
    # "Whiteness" (the darkest of the three channels) separates a white card
    # from coloured felt or wood far better than brightness does.
    gray = frame if frame.ndim == 2 else frame.min(axis=2)
    h, w = gray.shape
    scale = min(1.0, params.work_width / w)
    small = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else gray
    small = cv2.GaussianBlur(small, (5, 5), 0)
    frame_area = float(small.shape[0] * small.shape[1])

    masks = []
    # Pass 1: outlines from edges, with thresholds that follow the frame's contrast.
    median = float(np.median(small))
    for low, high in ((0.25, 0.6), (0.1, 0.3)):
        edges = cv2.Canny(small, max(8.0, low * median), max(20.0, high * median))
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        masks.append((edges, cv2.RETR_LIST))
    # Pass 2: bright regions at several levels, from Otsu's split up to near the
    # brightest pixels: a white card on pale wood stands out only at a high level.
    otsu, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    top = float(np.percentile(small[::4, ::4], 99))
    for k in range(4):
        level = otsu + (top - otsu) * k / 4
        _, bright = cv2.threshold(small, level, 255, cv2.THRESH_BINARY)
        masks.append((bright, cv2.RETR_EXTERNAL))

    found: list[np.ndarray] = []
    for mask, mode in masks:
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            quad = _quad_from_contour(contour, params, frame_area)
            if quad is None:
                continue
            if any(_quad_iou(quad, other) > 0.6 for other in found):
                continue
            found.append(quad)
    # A card's printed frame (court cards) gives a quad inside the card's own:
    # keep the outer one only.
    keep = []
    for i, quad in enumerate(found):
        area = cv2.contourArea(quad)
        inside = False
        for j, other in enumerate(found):
            if i == j or cv2.contourArea(other) <= area:
                continue
            inter, _ = cv2.intersectConvexConvex(quad, other)
            if inter > 0.8 * area:
                inside = True
                break
        if not inside:
            keep.append(quad / scale)
    return [q.astype(np.float32) for q in keep]


def _region_transform(quad: np.ndarray, region: tuple[float, float, float, float],
                      size: tuple[int, int]) -> np.ndarray:
    """Perspective transform from a card-relative region of ``quad`` to a crop of ``size``."""
    card = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_image = cv2.getPerspectiveTransform(card, np.asarray(quad, np.float32))
    x0, y0, x1, y1 = region
    region_pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32).reshape(-1, 1, 2)
    src = cv2.perspectiveTransform(region_pts, to_image).reshape(4, 2)
    cw, ch = size
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def corner_crops(gray: np.ndarray, quad: np.ndarray,
                 region: tuple[float, float, float, float] = INDEX_REGION,
                 size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """The two index corners of a card as grey patches, each upright: shape (2, H, W) uint8.

    The second crop is the opposite corner turned by half a turn, which is how
    a card prints its second index.
    """
    quad = np.asarray(quad, dtype=np.float32)
    turned = np.roll(quad, -2, axis=0)
    crops = []
    for q in (quad, turned):
        m = _region_transform(q, region, size)
        crops.append(cv2.warpPerspective(gray, m, size, flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE))
    return np.stack(crops)


def quad_center(quad: np.ndarray) -> tuple[float, float]:
    """Centre of a quad, as plain floats."""
    c = np.asarray(quad, dtype=np.float64).reshape(4, 2).mean(axis=0)
    return float(c[0]), float(c[1])


# --------------------------------------------------------------------------- index design
# Design B reads corner indices directly: a small detector (see vision.lab.train)
# marks each index's box, and the classifier reads a square patch around it,
# at any rotation. It needs no card outline, so it copes with cards that
# overlap, lie under a hand or stick out of the frame.

INDEX_CROP = 32  # side of the square patch the index classifier reads
INDEX_PAD = 1.3  # patch side over the box's longer side


def index_crop(gray: np.ndarray, box: tuple[float, float, float, float],
               size: int = INDEX_CROP, pad: float = INDEX_PAD) -> np.ndarray:
    """A square patch (size x size, grey or colour as the image) centred on an index box."""
    x1, y1, x2, y2 = box
    side = max(int(round(max(x2 - x1, y2 - y1, 2.0) * pad)), 2)
    # getRectSubPix replicates the border for boxes at the frame's edge.
    patch = cv2.getRectSubPix(gray, (side, side), ((x1 + x2) / 2, (y1 + y2) / 2))
    interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


# The second look: where the first read of a box is unsure, the index is cut
# again from the same box a little smaller, larger and shifted each way (a detector
# box is often loose: the settings' ``look_cuts``), and the classifier's readings
# of all these patches, each at the model's ``second_look.turns`` quarter turns,
# are pooled. The first entry is the first read's own patch. Each entry is
# (size factor, shift x, shift y), shifts as fractions of the box's longer side.
# The shipped model's, for the lab and the tests that name them.
LOOKS: tuple[tuple[float, float, float], ...] = shipped_settings().look_cuts


def moved_box(box: tuple[float, float, float, float], factor: float, dx: float, dy: float
              ) -> tuple[float, float, float, float]:
    """``box`` scaled by ``factor`` about its centre and shifted by ``dx``, ``dy`` times its
    longer side."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1)
    hw, hh = (x2 - x1) * factor / 2, (y2 - y1) * factor / 2
    mx, my = (x1 + x2) / 2 + dx * side, (y1 + y2) / 2 + dy * side
    return mx - hw, my - hh, mx + hw, my + hh


def look_crops(image: np.ndarray, box: tuple[float, float, float, float],
               size: int = INDEX_CROP, pad: float = INDEX_PAD,
               looks: tuple[tuple[float, float, float], ...] | None = None) -> np.ndarray:
    """The second look's patches of one box: shape (len(looks), size, size[, 3]) uint8;
    ``looks``: the reader's settings' ``look_cuts`` (the shipped model's where not
    given)."""
    if looks is None:
        looks = shipped_settings().look_cuts
    return np.stack([index_crop(image, moved_box(box, factor, dx, dy), size, pad)
                     for factor, dx, dy in looks])
