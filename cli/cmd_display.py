"""``belote-table display flash|status``: put the firmware on a Pico, ask it who it is.

``flash`` copies the firmware files to the Pico's root folder with mpremote
(``pip install 'belote-table[firmware]'``) and resets it; it is the same as::

    mpremote connect /dev/ttyACM0 cp firmware/protocol.py firmware/segments.py \\
        firmware/scoreboard.py firmware/app.py firmware/tm1637.py firmware/main.py : + reset

Our firmware ignores Ctrl-C, so ``flash`` first sends a MAINT frame: the Pico
restarts with its REPL open (see firmware/main.py) and mpremote can get in.

``status`` opens the display's port, says HELLO and prints the firmware and
protocol versions the display announces (works with the emulator's pty too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from companion.i18n import _, located

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"
# main.py last: if the copy is cut short, the old main.py does not start half a new firmware.
FIRMWARE_FILES = ("protocol.py", "segments.py", "scoreboard.py", "app.py", "tm1637.py",
                  "main.py")


def mpremote_command(port: str | None) -> list[str]:
    """The mpremote command line that flashes the firmware (``port`` None: auto-detect)."""
    exe = shutil.which("mpremote")
    cmd = [exe] if exe else [sys.executable, "-m", "mpremote"]
    if port:
        cmd += ["connect", port]
    cmd += ["cp", *[str(FIRMWARE_DIR / name) for name in FIRMWARE_FILES], ":", "+", "reset"]
    return cmd


def _flash(args: argparse.Namespace) -> int:
    from companion.display import find_port, request_maintenance

    missing = [name for name in FIRMWARE_FILES if not (FIRMWARE_DIR / name).is_file()]
    if missing:
        print(_("display flash: firmware files missing in %(dir)s: %(files)s")
              % {"dir": FIRMWARE_DIR, "files": ", ".join(missing)}, file=sys.stderr)
        return 1
    port = args.port or find_port()
    cmd = mpremote_command(port)
    print(" ".join(cmd))
    if args.dry_run:
        return 0
    if port is None:
        print(_("display flash: no Pico found (USB id 2e8a:0005); plug it in or give --port"),
              file=sys.stderr)
        return 1
    if not shutil.which("mpremote"):
        try:
            import mpremote  # noqa: F401
        except ImportError:
            print(_("display flash: mpremote is not installed: "
                    "pip install 'belote-table[firmware]'"), file=sys.stderr)
            return 1
    # Our firmware ignores Ctrl-C (so line noise cannot stop it): ask it to
    # restart with the REPL open, and wait for its port to come back.
    try:
        if request_maintenance(port):
            print(_("display flash: the display restarts in maintenance mode"))
            time.sleep(1.0)
            deadline = time.monotonic() + 10.0
            while not os.path.exists(port) and time.monotonic() < deadline:
                time.sleep(0.2)
    except OSError as exc:
        print(located("display flash", located(port, exc)), file=sys.stderr)
        return 1
    return subprocess.call(cmd)


def _status(args: argparse.Namespace) -> int:
    from companion.display import find_port, probe

    port = args.port or find_port()
    if port is None:
        print(_("display status: no display found (USB id 2e8a:0005, /dev/belote-display, "
                "$BELOTE_DISPLAY_PORT); give --port"), file=sys.stderr)
        return 1
    try:
        hello = probe(port, timeout=args.timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        print(located("display status", exc), file=sys.stderr)
        return 1
    print(_("%(port)s: %(name)s firmware %(fw)s protocol %(proto)s")
          % {"port": port, "name": hello.get("name"), "fw": hello.get("fw"),
             "proto": hello.get("proto")})
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="belote-table display",
                                     description=_("The score display: flash it, ask its "
                                                   "status."))
    sub = parser.add_subparsers(dest="action", required=True)
    flash = sub.add_parser("flash", help=_("copy the firmware to the Pico with mpremote"))
    flash.add_argument("--port", help=_("the Pico's serial port (default: found by USB id)"))
    flash.add_argument("--dry-run", action="store_true",
                       help=_("print the mpremote command and stop"))
    status = sub.add_parser("status", help=_("ask the display for its firmware version"))
    status.add_argument("--port", help=_("serial port or emulator pty (default: found)"))
    status.add_argument("--timeout", type=float, default=3.0, metavar=_("SECONDS"),
                        help=_("seconds to wait"))
    args = parser.parse_args(argv)
    return _flash(args) if args.action == "flash" else _status(args)
