"""``belote-table run``: the table itself, from a camera, a video or a folder of images.

One process owns everything (docs/design.md): frames come from the source, the
card reader names the cards, the play tracker turns the reads into plays, the
table service checks them with the rules engine, stores them and publishes
them; the web page and the score display follow the bus. The bids come from
the web page.

This module reads the options; the table itself runs in
``cli.outputs.run_table`` (the frame loop is ``companion.pipeline``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.i18n import _, located, reason


def open_source(args: argparse.Namespace) -> Any:
    """The frame source the options name (``vision.sources``)."""
    try:
        sources = importlib.import_module("vision.sources")
    except ImportError as exc:
        raise SystemExit(_("belote-table run: camera sources not installed (%(reason)s)")
                         % {"reason": exc}) from None
    if args.video:
        return sources.VideoSource(args.video)
    if args.images:
        return sources.ImageFolderSource(args.images, interval=args.interval)
    if args.picamera:
        return sources.PiCameraSource(zoom=args.zoom)
    return sources.DeviceSource(args.camera)


def add_source_options(p: argparse.ArgumentParser) -> None:
    """The frame source options (one of --camera, --picamera, --video, --images; --zoom,
    --interval), shared by ``run`` and ``enroll``; :func:`open_source` opens them."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, metavar="N",
                     help=_("camera device number (OpenCV)"))
    src.add_argument("--picamera", action="store_true", help=_("the Raspberry Pi camera"))
    src.add_argument("--video", metavar=_("FILE"), help=_("a video file"))
    src.add_argument("--images", metavar=_("DIR"), help=_("a folder of images, in name order"))
    p.add_argument("--zoom", type=float, default=1.0, metavar="Z",
                   help=_("crop the centre of the Pi camera's sensor, Z times closer, so that a "
                          "card fills 24-36 %% of the frame's height (default: %(default)s, the "
                          "whole sensor; hardware/camera-mount.md); only with --picamera"))
    p.add_argument("--interval", type=float, default=0.1, metavar=_("SECONDS"),
                   help=_("seconds between two images of --images (default: %(default)s)"))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="belote-table run",
        description=_("the table itself, from a camera, a video or a folder of images"))
    add_source_options(p)
    p.add_argument("--db", default="belote-table.db", metavar=_("FILE"),
                   help=_("event store (default: %(default)s)"))
    p.add_argument("--calibration", metavar=_("FILE"),
                   help=_("table corners and seat zones (belote-table calibrate); "
                          "default: the whole frame is the table, N at the top"))
    p.add_argument("--model", metavar=_("FILE"),
                   help=_("card reader model (default: the shipped one)"))
    p.add_argument("--deck", metavar=_("DECK"),
                   help=_("the club's enrolled deck (belote-table enroll): its cards are read "
                          "through it, other cards by the general model"))
    p.add_argument("--settle", type=float, default=0.3, metavar=_("SECONDS"),
                   help=_("settle time in seconds"))
    p.add_argument("--port", type=int, default=8000,
                   help=_("web page port (default: %(default)s)"))
    p.add_argument("--host", default="127.0.0.1", metavar=_("ADDRESS"), help=_("web page address"))
    p.add_argument("--no-web", action="store_true", help=_("no web page"))
    p.add_argument("--display", metavar="PORT",
                   help=_("score display serial port (default: find the Pico by its USB id)"))
    p.add_argument("--no-display", action="store_true", help=_("no score display"))
    p.add_argument("--rules", default="ffb", metavar=_("PRESET"),
                   help=_("rule preset of a new game"))
    p.add_argument("--club", metavar="URL",
                   help=_("publish every stored event to the club's broker, mqtt://HOST:PORT"))
    p.add_argument("--table", type=int, metavar="N", help=_("this table's number at the club"))
    p.add_argument("--club-name", default="club", metavar=_("NAME"),
                   help=_("club name in the topics"))
    p.add_argument("--club-password-file", metavar=_("FILE"),
                   help=_("this table's broker password (belote-table club setup writes it)"))
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options, checked; a wrong ``--zoom`` is an argparse error (exit code 2)
    without the web page. With it, the table starts and the page says what to
    fix (``args.zoom_problem``): a service that exits is restarted in a loop."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.zoom_problem = None
    if args.no_web:
        check_zoom(parser, args)
    else:
        try:
            check_zoom(_Refusing(), args)
        except ValueError as exc:
            args.zoom_problem = str(exc)
    check_club(parser, args)
    return args


class _Refusing:
    """Stands for the parser in ``check_zoom``: raises what it would print."""

    def error(self, message: str) -> None:
        raise ValueError(message)


def check_club(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--club`` needs ``--table`` and ``--club-password-file``, and a good address."""
    if args.club is None:
        return
    from common.topics import check_club as club_name
    from common.topics import check_table, parse_url

    if args.table is None or args.club_password_file is None:
        parser.error(_("--club needs --table N and --club-password-file FILE"))
    try:
        parse_url(args.club)
        check_table(args.table)
        club_name(args.club_name)
    except ValueError as exc:
        parser.error(reason(exc))


def check_zoom(parser: Any, args: argparse.Namespace) -> None:
    """Refuse (``parser.error``, exit code 2) a ``--zoom`` under 1 or without --picamera
    (``run`` and ``calibrate`` take the same)."""
    if not args.zoom >= 1:  # NaN too
        parser.error(_("--zoom must be 1 or more (1: the whole sensor), not %(zoom)s")
                     % {"zoom": args.zoom})
    if args.zoom != 1 and not args.picamera:
        parser.error(_("--zoom works only with --picamera (it crops the Pi camera's sensor)"))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from cli.outputs import run_table
    from vision.calibration import Calibration, CalibrationError

    calibration = None
    problem = None
    if args.zoom_problem:
        print(located("belote-table run", args.zoom_problem), file=sys.stderr)
        problem = {"code": "zoom", "detail": f"--zoom {args.zoom}"}
    if args.calibration:
        try:
            calibration = Calibration.load(args.calibration)
        except CalibrationError as exc:
            print(located("belote-table run", reason(exc)), file=sys.stderr)
            if args.no_web:
                return 2
            # With the web page on, the table stays up and the page says what to fix.
            missing = not Path(args.calibration).is_file()
            problem = {"code": "calibration_missing" if missing else "calibration_bad",
                       "detail": str(args.calibration)}
    if args.model and not Path(args.model).is_file() and not args.no_web:
        print(_("belote-table run: %(file)s: no such model file") % {"file": args.model},
              file=sys.stderr)
        problem = problem or {"code": "model_missing", "detail": str(args.model)}
    club = None
    if args.club:
        try:
            password = Path(args.club_password_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            print(located("belote-table run", located(args.club_password_file, exc.strerror)),
                  file=sys.stderr)
            return 2
        if not password:
            print(_("belote-table run: %(file)s is empty") % {"file": args.club_password_file},
                  file=sys.stderr)
            return 2

        def club(service: Any) -> Callable[[], None]:
            from companion.club_link import link_service

            print(_("club: table %(table)s publishes to %(url)s")
                  % {"table": args.table, "url": args.club})
            return link_service(service, args.db, args.club, args.table, password,
                                args.club_name)

    return run_table(Path(args.db), args.rules, lambda: open_source(args), args.model,
                     calibration, args.settle, None if args.no_web else args.port, args.host,
                     display=args.display, search_display=not args.no_display, deck=args.deck,
                     fail=lambda message: print(located("belote-table run", reason(message)),
                                               file=sys.stderr), problem=problem,
                     live=args.camera is not None or args.picamera, club=club)
