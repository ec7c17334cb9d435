"""Where the table and the four seats' play zones lie in the camera's frame.

``belote-table calibrate`` finds the table (the largest plain, saturated area:
the felt) in one frame, saves its corners and the four seat zones as JSON, and
writes an image showing them so a person can check. The play tracker asks
``Calibration.seat_of(point)`` which seat a card lying at ``point`` belongs to.

Each seat's zone is the part of the table between the table's centre and that
seat's edge, stopping short of the edge (where the players hold their cards).
The seat at the top of the frame is ``N`` unless told otherwise; going round
the table N, W, S, E is counterclockwise as seen from above, W on the left.

>>> cal = Calibration.default(640, 480)
>>> cal.seat_of((320, 60)), cal.seat_of((320, 420)), cal.seat_of((40, 240))
('N', 'S', 'W')
>>> cal.seat_of((2, 2)) is None
True
>>> Calibration.from_json(cal.to_json()) == cal
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.errors import ExplainedError

if TYPE_CHECKING:  # numpy only for the type hints: seat_of works on plain numbers
    import numpy as np

Point = tuple[float, float]
# Order of the table's corners: top-left, top-right, bottom-right, bottom-left.
# Sides going round from the top one, as seen in the frame.
SIDES = ("top", "right", "bottom", "left")
# Seats going round in the frame's side order (top, right, bottom, left) when N is on top.
_SEATS_CLOCKWISE_FROM_TOP = ("N", "E", "S", "W")
ZONE_DEPTH = 0.9  # how far a zone reaches from the table's centre towards its edge


class CalibrationError(ExplainedError):
    """A calibration file or frame that cannot be used, with the reason (in English:
    the command says it in the organiser's language, ``vision.errors``)."""


@dataclass(frozen=True)
class Calibration:
    """Table corners (TL, TR, BR, BL, in pixels), the frame size, and each seat's
    zone as a polygon (pixels)."""

    width: int
    height: int
    corners: tuple[Point, Point, Point, Point]
    zones: dict[str, tuple[Point, ...]]

    @classmethod
    def from_corners(cls, width: int, height: int, corners: Any, north: str = "top",
                     depth: float = ZONE_DEPTH) -> Calibration:
        """Build the four seat zones from the table's corners; ``north`` is the
        side of the frame where N sits."""
        if north not in SIDES:
            raise CalibrationError("north: %(north)s is not one of %(sides)s",
                                   north=repr(north), sides=", ".join(SIDES))
        pts = tuple((float(x), float(y)) for x, y in corners)
        if len(pts) != 4:
            raise CalibrationError("corners: expected 4 points, got %(n)s", n=len(pts))
        cx = sum(p[0] for p in pts) / 4
        cy = sum(p[1] for p in pts) / 4
        shift = SIDES.index(north)
        zones = {}
        for i, side_start in enumerate(pts):
            side_end = pts[(i + 1) % 4]
            seat = _SEATS_CLOCKWISE_FROM_TOP[(i - shift) % 4]
            zones[seat] = (
                (cx, cy),
                (cx + depth * (side_start[0] - cx), cy + depth * (side_start[1] - cy)),
                (cx + depth * (side_end[0] - cx), cy + depth * (side_end[1] - cy)),
            )
        return cls(int(width), int(height), pts, zones)  # type: ignore[arg-type]

    @classmethod
    def default(cls, width: int, height: int, north: str = "top") -> Calibration:
        """The whole frame is the table (a camera framed on the felt)."""
        return cls.from_corners(width, height,
                                [(0, 0), (width - 1, 0), (width - 1, height - 1),
                                 (0, height - 1)], north)

    @classmethod
    def from_frame(cls, frame: np.ndarray, north: str = "top") -> Calibration:
        """Find the table in one BGR frame: the largest area of saturated, plain
        colour (the felt), reduced to its four corners."""
        import cv2
        import numpy as np

        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise CalibrationError("frame: expected a colour (BGR) image")
        from vision.paper import white_paper

        # Under a warm or red lamp the felt's colour is told on the frame brought back to
        # white paper, as the reader reads it.
        frame = white_paper(frame)
        h, w = frame.shape[:2]
        hsv = cv2.cvtColor(cv2.GaussianBlur(frame, (7, 7), 0), cv2.COLOR_BGR2HSV)
        # The camera looks down at the table: the felt's colour is the one most
        # seen in the middle of the frame, among clearly coloured pixels (cards
        # are white). Keep the pixels of that hue; closing fills the holes that
        # cards and hands leave.
        centre = hsv[h // 4: 3 * h // 4, w // 4: 3 * w // 4].reshape(-1, 3)
        coloured = centre[(centre[:, 1] >= 50) & (centre[:, 2] >= 40)]
        if len(coloured) < 0.1 * len(centre):
            raise CalibrationError("frame: no table (felt) found in the middle of the frame")
        hue = int(np.argmax(np.bincount(coloured[:, 0], minlength=180)))
        sat = float(np.median(coloured[np.abs(coloured[:, 0].astype(int) - hue) <= 6][:, 1]))
        diff = np.abs(hsv[..., 0].astype(np.int16) - hue)
        diff = np.minimum(diff, 180 - diff)  # hue is circular
        mask = ((diff <= 10) & (hsv[..., 1] >= 0.5 * sat) & (hsv[..., 2] >= 30)).astype(
            np.uint8) * 255
        k = max(3, (min(h, w) // 40) | 1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            raise CalibrationError("frame: no table (felt) found")
        table = max(contours, key=cv2.contourArea)
        if cv2.contourArea(table) < 0.2 * w * h:
            raise CalibrationError("frame: the largest felt area covers less than a fifth of "
                                   "the frame; point the camera at the table")
        hull = cv2.convexHull(table)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) != 4:
            # Not a clean quadrilateral (rounded table, cut corners): its bounding box.
            quad = cv2.boxPoints(cv2.minAreaRect(hull))
        return cls.from_corners(w, h, _order_corners(quad.tolist()), north)

    def seat_of(self, point: Point) -> str | None:
        """The seat whose play zone contains ``point``, or None (off the play area)."""
        for seat, polygon in self.zones.items():
            if _inside(point, polygon):
                return seat
        return None

    def draw(self, frame: np.ndarray) -> np.ndarray:
        """A copy of ``frame`` with the table outline and the labelled seat zones."""
        import cv2
        import numpy as np

        out = frame.copy()
        colours = {"N": (0, 0, 255), "E": (0, 200, 255), "S": (255, 0, 0), "W": (255, 0, 255)}
        overlay = out.copy()
        for seat, polygon in self.zones.items():
            pts = np.array(polygon, np.int32)
            cv2.fillPoly(overlay, [pts], colours[seat])
        out = cv2.addWeighted(overlay, 0.25, out, 0.75, 0)
        cv2.polylines(out, [np.array(self.corners, np.int32)], True, (255, 255, 255), 2)
        scale = max(0.5, min(self.width, self.height) / 400)
        for seat, polygon in self.zones.items():
            x = (polygon[1][0] + polygon[2][0] + polygon[0][0]) / 3
            y = (polygon[1][1] + polygon[2][1] + polygon[0][1]) / 3
            cv2.putText(out, seat, (int(x) - 8, int(y) + 8), cv2.FONT_HERSHEY_SIMPLEX, scale,
                        (255, 255, 255), 2, cv2.LINE_AA)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height,
                "corners": [list(p) for p in self.corners],
                "zones": {s: [list(p) for p in poly] for s, poly in self.zones.items()}}

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        try:
            zones = {str(s): tuple((float(x), float(y)) for x, y in poly)
                     for s, poly in data["zones"].items()}
            corners = tuple((float(x), float(y)) for x, y in data["corners"])
            width, height = int(data["width"]), int(data["height"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CalibrationError("calibration: malformed (%(error)s)", error=repr(exc)) from None
        if sorted(zones) != ["E", "N", "S", "W"]:
            raise CalibrationError("calibration.zones: expected N E S W, got %(zones)s",
                                   zones=sorted(zones))
        if len(corners) != 4:
            raise CalibrationError("calibration.corners: expected 4 points")
        return cls(width, height, corners, zones)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CalibrationError("%(path)s: %(reason)s", path=path, reason=exc) from None
        return cls.from_json(data)

    def scaled(self, width: int, height: int) -> Calibration:
        """The same calibration for frames of another size (same camera, resized)."""
        sx, sy = width / self.width, height / self.height
        return Calibration(
            width, height,
            tuple((x * sx, y * sy) for x, y in self.corners),  # type: ignore[arg-type]
            {s: tuple((x * sx, y * sy) for x, y in poly) for s, poly in self.zones.items()})


def _order_corners(points: list[list[float]]) -> list[Point]:
    """Top-left, top-right, bottom-right, bottom-left."""
    by_sum = sorted(points, key=lambda p: p[0] + p[1])
    by_diff = sorted(points, key=lambda p: p[0] - p[1])
    tl, br = by_sum[0], by_sum[-1]
    tr, bl = by_diff[-1], by_diff[0]
    return [(tl[0], tl[1]), (tr[0], tr[1]), (br[0], br[1]), (bl[0], bl[1])]


def _inside(point: Point, polygon: tuple[Point, ...]) -> bool:
    """Even-odd rule (plain Python: the tracker calls this for every card of every frame)."""
    x, y = point
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
