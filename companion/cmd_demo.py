"""``belote-table demo``: the whole table with no hardware.

The virtual table (``vision.lab.virtual_table``) plays a seeded simulated game and
films it; every frame goes through the real pipeline: card reader (ONNX) ->
play tracker -> table service (rules engine check, SQLite store, bus) -> web
page and score display (its emulator). The bids cannot be seen, so they come
from the simulator, each once the cards before it have been played.

It prints each event and the running score. With ``--hands N`` it plays N
hands as fast as the machine allows, then prints the final score and whether
every card, seat, trick and score matched the simulator: exit status 0 only
if all did. Without it, it plays a whole game at the table's pace (watch it
on the web page) and keeps the page up until Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FULL_GAME_HANDS = 100  # "a whole game": the simulator stops when a team reaches the target


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table demo",
                                description="play a virtual table through the whole pipeline")
    p.add_argument("--hands", type=int, metavar="N",
                   help="play N hands as fast as possible, check them, and exit")
    p.add_argument("--seed", type=int, default=1, help="simulator and picture seed")
    p.add_argument("--port", type=int, default=8000,
                   help="web page port (0: any free port; default: %(default)s)")
    p.add_argument("--host", default="127.0.0.1", help="web page address")
    p.add_argument("--db", metavar="PATH", help="event store (default: a temporary file)")
    p.add_argument("--rules", default="ffb", help="rule preset (default: %(default)s)")
    p.add_argument("--renonce", action="store_true", help="one player breaks a rule once")
    p.add_argument("--style", default="french",
                   help="deck: french, english or a style name (default: %(default)s)")
    p.add_argument("--size", default="960x540", help="frame size WxH (default: %(default)s)")
    p.add_argument("--fps", type=float, default=10.0, help="frames per second of the table")
    p.add_argument("--realtime", action="store_true",
                   help="play at the table's pace even with --hands")
    p.add_argument("--no-web", action="store_true", help="no web page")
    p.add_argument("--no-display", action="store_true", help="no score display emulator")
    p.add_argument("--model", metavar="FILE", help="card reader model (default: the shipped one)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    return p


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"belote-table demo: --size {text!r}: expected WxH") from None
    if not (160 <= w <= 4096 and 120 <= h <= 4096):
        raise SystemExit(f"belote-table demo: --size {text!r}: out of range")
    return w, h


def _describe(msg_data: dict[str, Any]) -> str:
    event = msg_data["event"]
    kind = event["type"]
    conf = msg_data.get("confidence")
    source = msg_data["source"] + (f" {conf:.2f}" if conf is not None else "")
    if kind == "CardPlayed":
        text = f"{event['seat']} plays {event['card'] or '?? (unknown card)'}"
    elif kind == "BidMade":
        text = f"{event['seat']} bids {event['bid']}"
    elif kind == "BeloteAnnounced":
        text = f"{event['seat']} announces belote"
    elif kind == "CardCorrected":
        text = f"{event['seat']}'s card in trick {event['trick']} is {event['new']}"
    else:
        text = kind + " " + " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"#{msg_data['seq']:<4} [{source}] {text}"


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    size = _size(args.size)
    if args.hands is not None and args.hands < 1:
        raise SystemExit("belote-table demo: --hands must be at least 1")

    try:
        from vision.lab.virtual_table import VirtualTable
    except ImportError as exc:
        print("belote-table demo: the virtual table is part of the lab (vision/lab), which "
              f"is not installed here, as on the table's Pi: {exc}", file=sys.stderr)
        return 2
    from companion.bus import Bus
    from companion.outputs import start_outputs
    from companion.pipeline import TablePipeline, compare
    from companion.service import TableService
    from companion.store import Store
    from scorer.events import GameStarted
    from vision.reader import CardReader
    from vision.tracker import PlayTracker

    def say(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    tmp = None
    if args.db:
        db = Path(args.db)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="belote-demo-")
        db = Path(tmp.name) / "demo.db"
    try:
        reader = CardReader(args.model)
    except FileNotFoundError as exc:
        print(f"belote-table demo: the card reader has no model yet: {exc}", file=sys.stderr)
        return 2
    table = VirtualTable(seed=args.seed, hands=args.hands or FULL_GAME_HANDS, rules=args.rules,
                         inject_renonce=args.renonce, style=args.style, size=size,
                         fps=args.fps, realtime=args.realtime or args.hands is None)
    store = Store(db)
    bus = Bus()
    service = TableService(store, bus)
    events_sub = bus.subscribe(maxsize=100_000)
    news = _News(events_sub, say)
    closers = start_outputs(service, None if args.no_web else args.port, args.host,
                            emulator=not args.no_display, say=say)
    tracker = PlayTracker(table.calibration)
    pipeline = TablePipeline(service, reader, tracker, say=say)
    say(f"virtual table: seed {args.seed}, {table.scene.style.name} deck, {size[0]}x{size[1]} "
        f"at {args.fps:g} fps; store {db}")
    started = time.monotonic()
    rc = 0
    try:
        started_event = table.events[0]
        assert isinstance(started_event, GameStarted)  # a simulated game opens with one
        service.start_game(started_event, source="simulator", author="demo")
        service.set_status(camera="virtual table")
        spoken = list(table.spoken)
        for ts, frame in table:
            pipeline.speak(spoken, author="demo", refused=lambda event, exc: say(
                f"simulator: {event} refused: {exc}"))
            pipeline.feed(ts, frame)
            news.print()
        news.print()
        elapsed = time.monotonic() - started
        stored = [s.event for s in service.events()]
        truth = table.events
        problems = compare(truth, stored)
        state = service.state_json()
        print(f"final score: NS {state['scores']['NS']} - EW {state['scores']['EW']} "
              f"after {len(state['hands'])} hands; {table.frames} frames in {elapsed:.1f} s "
              f"({table.frames / max(elapsed, 1e-9):.1f} frames/s)")
        if problems:
            print(f"MISMATCH with the simulator ({len(problems)}):")
            for line in problems[:20]:
                print("  " + line)
            rc = 1
        else:
            print(f"every card, seat, trick and score matched the simulator "
                  f"({len(pipeline.log.plays)} cards, {len(state['hands'])} hands)")
        if args.hands is None and not args.no_web and closers:
            print("the web page stays up: Ctrl-C to stop")
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        events_sub.close()
        for close in closers:
            close()
        store.close()
        if tmp is not None:
            tmp.cleanup()
    return rc


class _News:
    """Prints what the bus carries: each event, each alert, each hand's result."""

    def __init__(self, sub: Any, say: Any) -> None:
        self.sub = sub
        self.say = say
        self.hands_seen = 0
        self.tricks_seen = 0

    def print(self) -> None:
        while (msg := self.sub.get(timeout=0)) is not None:
            if msg.topic == "event":
                self.say(_describe(msg.data))
            elif msg.topic == "alert":
                self.say(f"ALERT {msg.data['kind']}: {msg.data.get('message', msg.data)}")
            elif msg.topic == "state" and len(msg.data.get("tricks") or []) > self.tricks_seen:
                trick = msg.data["tricks"][-1]
                pts = msg.data.get("card_points") or {}
                self.say(f"  trick {len(msg.data['tricks'])} to {trick.get('winner')}"
                         f" ({trick.get('points')} points); this hand NS {pts.get('NS', 0)}"
                         f" - EW {pts.get('EW', 0)}; score NS {msg.data['scores']['NS']}"
                         f" - EW {msg.data['scores']['EW']}")
            if msg.topic == "state":
                self.tricks_seen = len(msg.data.get("tricks") or [])
            if msg.topic == "state" and len(msg.data.get("hands") or []) > self.hands_seen:
                self.hands_seen = len(msg.data["hands"])
                last = msg.data["hands"][-1]
                score = last["result"].get("score", {})
                self.say(f"hand {last['hand_no']} over: NS +{score.get('NS', 0)} "
                         f"EW +{score.get('EW', 0)}; running score "
                         f"NS {msg.data['scores']['NS']} - EW {msg.data['scores']['EW']}")
