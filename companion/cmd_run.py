"""``belote-table run``: the table itself, from a camera, a video or a folder of images.

One process owns everything (DESIGN.md): frames come from the source, the
card reader names the cards, the play tracker turns the reads into plays, the
table service checks them with the rules engine, stores them and publishes
them; the web page and the score display follow the bus. The bids come from
the web page.

``TablePipeline`` is the frame loop, shared with ``belote-table demo`` and
``benchmarks/pipeline.py``; ``start_outputs`` starts the web page and the
display driver for both commands.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.service import TableService
    from vision.tracker import PlayTracker, TrackerOutput


@dataclass
class PlayRecord:
    """One play the pipeline sent to the service, with its timings (for the
    demo's check and the benchmark)."""

    seat: str
    card: str | None
    settled_at: float | None  # source clock: when the card had lain still for the settle time
    decided_at: float  # source clock: the frame in which the tracker decided
    published_wall: float  # time.monotonic() once stored and published
    seq: int


@dataclass
class PipelineLog:
    plays: list[PlayRecord] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    frames: int = 0


class TablePipeline:
    """Frames in, events out: reader -> tracker -> service.

    ``reader`` has ``read(frame) -> list[Detection]``; ``say`` prints a line
    for a person (the demo prints each event).
    """

    def __init__(self, service: TableService, reader: Any, tracker: PlayTracker,
                 say: Callable[[str], None] | None = None) -> None:
        self.service = service
        self.reader = reader
        self.tracker = tracker
        self.say = say or (lambda _line: None)
        self.log = PipelineLog()

    @property
    def camera_plays(self) -> int:
        """Cards this pipeline has played into the game so far."""
        return len(self.log.plays)

    def feed(self, ts: float, frame: Any) -> list[TrackerOutput]:
        """Process one frame taken at ``ts``; return what the tracker saw."""
        detections = self.reader.read(frame)
        self.log.frames += 1
        state = self.service.state_json()
        to_play = state.get("to_play")
        outputs = self.tracker.update(
            ts, detections, to_play, [c for c in state.get("played") or [] if c],
            # After an unknown card the trick's winner, who leads next, is not known.
            any_seat=state.get("phase") == "play" and to_play is None)
        for out in outputs:
            self._handle(ts, out)
        return outputs

    def _handle(self, ts: float, out: TrackerOutput) -> None:
        from scorer.events import CardCorrected, CardPlayed

        service = self.service
        if out.kind == "play":
            assert out.seat is not None
            try:
                stored = service.submit(CardPlayed(seat=out.seat, card=out.card),
                                        source="camera", confidence=out.confidence)
            except ValueError as exc:
                self.log.refused.append(f"{out.seat}:{out.card}: {exc}")
                self.say(f"camera: {out.seat} {out.card or '??'} refused: {exc}")
                return
            self.log.plays.append(PlayRecord(out.seat, out.card, out.settled_at, ts,
                                             time.monotonic(), stored.seq))
        elif out.kind == "out_of_turn":
            alert = {"seat": out.seat, "card": out.card, "to_play": out.to_play,
                     "message": f"{out.card} put down at {out.seat} out of turn,"
                                f" {out.to_play} to play"}
            self.log.alerts.append({"kind": "out_of_turn", **alert})
            service.alert("out_of_turn", **alert)
            self.say(f"alert: {alert['message']}")
        elif out.kind == "identified":
            assert out.seat is not None and out.card is not None
            unknown = [u for u in service.state_json().get("unknown") or []
                       if u.get("seat") == out.seat]
            if not unknown:
                return  # a person named it already on the web page
            try:
                service.submit(CardCorrected(seat=out.seat, trick=int(unknown[-1]["trick"]),
                                             new=out.card),
                               source="camera", confidence=out.confidence)
            except ValueError as exc:
                self.log.refused.append(f"{out.seat}:{out.card} (named): {exc}")
                self.say(f"camera: naming the unknown card at {out.seat} refused: {exc}")
        elif out.kind == "gathered":
            self.say("camera: trick gathered")


def start_outputs(service: TableService, port: int | None, host: str = "127.0.0.1",
                  display: str | None = None, emulator: bool = False,
                  say: Callable[[str], None] = print,
                  search_display: bool = False) -> list[Callable[[], None]]:
    """Start what follows the service, when those parts are installed: the web
    page on ``port`` (None: no web page) and the display driver on ``display``
    (a serial port; with ``emulator`` the display emulator's pty, unless a Pico
    is plugged in; with ``search_display`` and no port the driver looks for the
    Pico by itself, and keeps looking). Returns the functions that stop them,
    in the order to call."""
    closers: list[Callable[[], None]] = []
    if port is not None:
        try:
            import web
            create_app, serve = web.create_app, web.serve  # type: ignore[attr-defined]
        except (ImportError, AttributeError):
            say("web page: not installed, skipped")
        else:
            server = serve(create_app({"SERVICE": service}), host=host, port=port)
            say(f"web page: {server.url}")
            closers.append(server.close)
    if emulator or display or search_display:
        try:
            from companion.display import DisplayDriver, find_port
        except ImportError:
            say("score display: driver not installed, skipped")
            return closers
        if emulator and not display:
            # A real Pico plugged in beats the emulator.
            found = find_port()
            if found is not None:
                say(f"score display: Pico on {found}")
                display, emulator = found, False
        if emulator:
            try:
                from companion.cmd_display_emulator import Emulator
            except ImportError:
                say("score display emulator: not installed, skipped")
                return closers
            emu = Emulator()
            display = emu.start()
            say(f"score display emulator on {display}")

        def on_status(status: dict[str, Any]) -> None:
            service.set_status(display=status.get("link"))

        driver = DisplayDriver(service.bus, port=display, on_status=on_status).start()
        closers.insert(0, driver.stop)
        if emulator:
            closers.append(emu.stop)
    return closers


def open_source(args: argparse.Namespace) -> Any:
    """The frame source the options name (``vision.sources``)."""
    try:
        sources = importlib.import_module("vision.sources")
    except ImportError as exc:
        raise SystemExit(f"belote-table run: camera sources not installed ({exc})") from None
    if args.video:
        return sources.VideoSource(args.video)
    if args.images:
        return sources.ImageFolderSource(args.images, interval=args.interval)
    if args.picamera:
        return sources.PiCameraSource(zoom=args.zoom)
    return sources.DeviceSource(args.camera)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table run", description=__doc__.splitlines()[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, metavar="N", help="camera device number (OpenCV)")
    src.add_argument("--picamera", action="store_true", help="the Raspberry Pi camera")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--images", metavar="DIR", help="a folder of images, in name order")
    p.add_argument("--zoom", type=float, default=1.0, metavar="Z",
                   help="crop the centre of the Pi camera's sensor, Z times closer, so that a "
                        "card fills 24-36 %% of the frame's height (default: %(default)s, the "
                        "whole sensor; hardware/camera-mount.md); only with --picamera")
    p.add_argument("--interval", type=float, default=0.1,
                   help="seconds between two images of --images (default: %(default)s)")
    p.add_argument("--db", default="belote-table.db", help="event store (default: %(default)s)")
    p.add_argument("--calibration", metavar="FILE",
                   help="table corners and seat zones (belote-table calibrate); "
                        "default: the whole frame is the table, N at the top")
    p.add_argument("--model", metavar="FILE", help="card reader model (default: the shipped one)")
    p.add_argument("--settle", type=float, default=0.3, help="settle time in seconds")
    p.add_argument("--port", type=int, default=8000, help="web page port (default: %(default)s)")
    p.add_argument("--host", default="127.0.0.1", help="web page address")
    p.add_argument("--no-web", action="store_true", help="no web page")
    p.add_argument("--display", metavar="PORT",
                   help="score display serial port (default: find the Pico by its USB id)")
    p.add_argument("--no-display", action="store_true", help="no score display")
    p.add_argument("--rules", default="ffb", help="rule preset of a new game")
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The options, checked; a wrong ``--zoom`` is an argparse error (exit code 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    check_zoom(parser, args)
    return args


def check_zoom(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (``parser.error``, exit code 2) a ``--zoom`` under 1 or without --picamera
    (``run`` and ``calibrate`` take the same)."""
    if not args.zoom >= 1:  # NaN too
        parser.error(f"--zoom must be 1 or more (1: the whole sensor), not {args.zoom}")
    if args.zoom != 1 and not args.picamera:
        parser.error("--zoom works only with --picamera (it crops the Pi camera's sensor)")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.events import GameStarted
    from vision.calibration import Calibration, CalibrationError
    from vision.reader import CardReader
    from vision.tracker import PlayTracker

    calibration = None
    if args.calibration:
        try:
            calibration = Calibration.load(args.calibration)
        except CalibrationError as exc:
            print(f"belote-table run: {exc}", file=sys.stderr)
            return 2
    store = Store(Path(args.db))
    bus = Bus()
    service = TableService(store, bus)
    if service.game_id is None:
        service.start_game(GameStarted(rules=args.rules), source="web")
        print(f"new game {service.game_id} in {args.db}")
    else:
        print(f"continuing game {service.game_id} from {args.db} "
              f"({len(service.events())} events)")
    closers = start_outputs(service, None if args.no_web else args.port, args.host,
                            display=args.display, search_display=not args.no_display)
    try:
        source = open_source(args)
        reader = CardReader(args.model)
    except (ValueError, FileNotFoundError) as exc:  # SourceError is a ValueError
        print(f"belote-table run: {exc}", file=sys.stderr)
        for close in closers:
            close()
        store.close()
        return 2
    pipeline = None
    service.set_status(camera="ok")
    try:
        for ts, frame in source:
            if pipeline is None:
                h, w = frame.shape[:2]
                cal = (calibration.scaled(w, h) if calibration else Calibration.default(w, h))
                pipeline = TablePipeline(service, reader, PlayTracker(cal, settle=args.settle),
                                         say=print)
            pipeline.feed(ts, frame)
    except KeyboardInterrupt:
        pass
    finally:
        service.set_status(camera="off")
        for close in closers:
            close()
        close_source = getattr(source, "close", None)
        if close_source:
            close_source()
        store.close()
    state = service.state_json()
    print(f"score: NS {state['scores']['NS']} - EW {state['scores']['EW']}")
    return 0
