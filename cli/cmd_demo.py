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
on the web page) and keeps the page up until Ctrl-C. With the web page's
address it prints the game's organiser PIN (``--pin``, or one made up), which
the organiser's page (/control) asks for.

This module reads the options and makes the virtual table; the table runs in
``cli.outputs.run_virtual_table``.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path

from companion.i18n import _

FULL_GAME_HANDS = 100  # "a whole game": the simulator stops when a team reaches the target


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table demo",
                                description=_("play a virtual table through the whole pipeline"))
    p.add_argument("--hands", type=int, metavar="N",
                   help=_("play N hands as fast as possible, check them, and exit"))
    p.add_argument("--seed", type=int, default=1, metavar="N", help=_("simulator and picture seed"))
    p.add_argument("--port", type=int, default=8000,
                   help=_("web page port (0: any free port; default: %(default)s)"))
    p.add_argument("--host", default="127.0.0.1", metavar=_("ADDRESS"), help=_("web page address"))
    p.add_argument("--db", metavar=_("PATH"), help=_("event store (default: a temporary file)"))
    p.add_argument("--rules", default="ffb", metavar=_("PRESET"),
                   help=_("rule preset (default: %(default)s)"))
    p.add_argument("--renonce", action="store_true", help=_("one player breaks a rule once"))
    p.add_argument("--style", default="french",
                   help=_("deck: french, english or a style name (default: %(default)s)"))
    p.add_argument("--size", default="960x540", metavar=_("WxH"),
                   help=_("frame size WxH (default: %(default)s)"))
    p.add_argument("--fps", type=float, default=10.0,
                   help=_("frames per second of the table"))
    p.add_argument("--realtime", action="store_true",
                   help=_("play at the table's pace even with --hands"))
    p.add_argument("--no-web", action="store_true", help=_("no web page"))
    p.add_argument("--no-display", action="store_true", help=_("no score display emulator"))
    p.add_argument("--model", metavar=_("FILE"),
                   help=_("card reader model (default: the shipped one)"))
    p.add_argument("--quiet", action="store_true", help=_("print only the summary"))
    p.add_argument("--pin", type=_pin, metavar=_("DIGITS"),
                   help=_("the organiser's PIN of the game, 6 to 8 digits (default: one made "
                          "up and printed with the web page's address)"))
    return p


def _pin(text: str) -> str:
    """The organiser's PIN, under the table's rules: 6 to 8 digits."""
    from web.entries import PIN_RE

    if not PIN_RE.match(text.strip()):
        raise argparse.ArgumentTypeError(_("the organiser PIN must be 6 to 8 digits"))
    return text.strip()


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SystemExit(_("belote-table demo: --size %(size)r: expected WxH")
                         % {"size": text}) from None
    if not (160 <= w <= 4096 and 120 <= h <= 4096):
        raise SystemExit(_("belote-table demo: --size %(size)r: out of range") % {"size": text})
    return w, h


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    size = _size(args.size)
    if args.hands is not None and args.hands < 1:
        raise SystemExit(_("belote-table demo: --hands must be at least 1"))

    try:
        from vision.lab.virtual_table import VirtualTable
    except ImportError as exc:
        print(_("belote-table demo: the virtual table is part of the lab (vision/lab), which "
                "is not installed here, as on the table's Pi: %(reason)s") % {"reason": exc},
              file=sys.stderr)
        return 2
    from cli.outputs import run_virtual_table
    from vision.reader import CardReader

    def say(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    try:
        reader = CardReader(args.model)
    except FileNotFoundError as exc:
        print(_("belote-table demo: the card reader has no model yet: %(reason)s")
              % {"reason": exc}, file=sys.stderr)
        return 2
    tmp = None
    if args.db:
        db = Path(args.db)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="belote-demo-")
        db = Path(tmp.name) / "demo.db"
    # The game's PIN, printed with the page's address: /control asks for it.
    pin = args.pin or f"{secrets.randbelow(10 ** 6):06d}"
    table = VirtualTable(seed=args.seed, hands=args.hands or FULL_GAME_HANDS, rules=args.rules,
                         inject_renonce=args.renonce, style=args.style, size=size,
                         fps=args.fps, realtime=args.realtime or args.hands is None)
    banner = (_("virtual table: seed %(seed)s, %(style)s deck, %(w)sx%(h)s at %(fps)s fps; "
                "store %(db)s")
              % {"seed": args.seed, "style": table.scene.style.name, "w": size[0],
                 "h": size[1], "fps": f"{args.fps:g}", "db": db})
    try:
        return run_virtual_table(table, reader, db, None if args.no_web else args.port,
                                 args.host, emulator=not args.no_display, say=say,
                                 banner=banner, stay_up=args.hands is None,
                                 pin=None if args.no_web else pin)
    finally:
        if tmp is not None:
            tmp.cleanup()
