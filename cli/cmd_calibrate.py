"""``belote-table calibrate``: find the table and the four seats' zones in one frame.

Takes one frame (an image file, a video's first frame, a camera, or the running
table's latest frame with ``--service``: while ``belote-table run`` holds the
camera, calibrate borrows a frame from it), finds the
table's felt and its corners, splits it into the four seats' play zones, and
saves them as JSON for ``belote-table run --calibration``. It also writes an
image of the frame with the table and the zones drawn on it: look at it before
playing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from companion.i18n import _, located, reason

if TYPE_CHECKING:  # numpy is imported by the subcommand that uses it
    import numpy as np


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table calibrate",
                                description=_("save the table corners and seat zones from a "
                                              "frame"))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", metavar=_("FILE"), help=_("a photo taken by the table's camera"))
    src.add_argument("--video", metavar=_("FILE"), help=_("a video: its first frame"))
    src.add_argument("--camera", type=int, metavar="N", help=_("camera device number"))
    src.add_argument("--picamera", action="store_true",
                     help=_("the Raspberry Pi camera (as `belote-table run --picamera`)"))
    src.add_argument("--service", nargs="?", const=SERVICE_URL, metavar="URL",
                     help=_("borrow the camera's latest frame from the running table (the "
                            "service keeps the camera; default %(const)s); run it on the Pi"))
    p.add_argument("--zoom", type=float, default=1.0, metavar="Z",
                   help=_("with --picamera: the centre of the sensor, Z times closer, as "
                          "`run --zoom` (default: %(default)s)"))
    # The sides keep their names on the command line; the help says them in words.
    p.add_argument("--north", default="top", choices=("top", "right", "bottom", "left"),
                   help=_("side of the frame where N sits: top, right, bottom or left "
                          "(default: %(default)s)"))
    p.add_argument("--out", default="calibration.json", metavar=_("FILE"),
                   help=_("where to save (%(default)s)"))
    p.add_argument("--preview", metavar=_("IMAGE"),
                   help=_("image showing the zones (default: beside --out, .png)"))
    return p


# Frames the Pi camera is given to settle its exposure and white balance first.
SETTLE_FRAMES = 15
# The running table's web page on the Pi itself.
SERVICE_URL = "http://127.0.0.1:8000"


def _borrowed_frame(url: str) -> np.ndarray:
    """The running table's latest camera frame (``GET /api/camera/frame.jpg``)."""
    import urllib.error
    import urllib.request

    import cv2
    import numpy as np

    address = url.rstrip("/") + "/api/camera/frame.jpg"
    try:
        with urllib.request.urlopen(address, timeout=10) as answer:
            data = answer.read()
    except urllib.error.HTTPError as exc:
        raise ValueError(_("%(address)s: the table answered %(code)s (%(reason)s)")
                         % {"address": address, "code": exc.code,
                            "reason": exc.read().decode(errors="replace").strip()}) from None
    except (urllib.error.URLError, OSError) as exc:
        raise ValueError(_("%(address)s: no running table there (%(reason)s); without the "
                           "service, use --picamera")
                         % {"address": address, "reason": exc}) from None
    frame: np.ndarray | None = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(_("%(address)s: not an image") % {"address": address})
    return frame


def _first_frame(args: argparse.Namespace) -> np.ndarray:
    import cv2

    if args.service:
        return _borrowed_frame(args.service)
    if args.picamera:
        from vision.sources import PiCameraSource

        camera = PiCameraSource(zoom=args.zoom)
        try:
            for _settling in range(SETTLE_FRAMES - 1):
                next(camera)
            _ts, frame = next(camera)
            return frame
        finally:
            camera.close()
    if args.image:
        from vision.imagefile import load_image

        image: np.ndarray = load_image(args.image)  # its size checked before decoding
        return image
    capture = cv2.VideoCapture(args.video if args.video else args.camera)
    try:
        ok, frame = capture.read()
    finally:
        capture.release()
    if not ok or frame is None:
        source = args.video or _("camera %(n)s") % {"n": args.camera}
        raise ValueError(_("%(source)s: no frame could be read") % {"source": source})
    return frame


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from cli.cmd_run import check_zoom

    check_zoom(parser, args)
    import cv2

    from vision.calibration import Calibration, CalibrationError
    from vision.card_size import check_card_size, check_light

    try:
        frame = _first_frame(args)
        calibration = Calibration.from_frame(frame, north=args.north)
    except (ValueError, CalibrationError) as exc:
        print(located("belote-table calibrate", reason(exc)), file=sys.stderr)
        return 1
    out = Path(args.out)
    preview = Path(args.preview) if args.preview else out.with_suffix(".png")
    calibration.save(out)
    if not cv2.imwrite(str(preview), calibration.draw(frame)):
        print(_("belote-table calibrate: could not write %(file)s") % {"file": preview},
              file=sys.stderr)
        return 1
    corners = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in calibration.corners)
    print(_("table corners: %(corners)s") % {"corners": corners})
    print(_("saved %(file)s; look at %(preview)s to check the seats")
          % {"file": out, "preview": preview})
    ok, template, fields = check_card_size(frame)
    print(_(template) % fields, file=sys.stdout if ok else sys.stderr)
    light = check_light(frame)
    if light is not None:
        print(_(light[0]) % light[1], file=sys.stderr)
    return 0
