"""``belote-table display-emulator``: the score display without a Pico.

Opens a pseudo terminal, runs the firmware's own logic on it
(``companion.display_emulator.Emulator``), and draws the two
displays in the terminal as big seven-segment digits. The driver connects to
the printed pty path (or to ``--link``, a fixed name that stays the same when
the emulator is restarted, as the udev rule does for a real Pico).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from companion.display_emulator import Emulator
from companion.i18n import _, team_code


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="belote-table display-emulator",
        description=_("Emulate the score display on a pseudo terminal and draw it here."))
    parser.add_argument("--link", metavar=_("PATH"), help=_("also make this path a link to the pty "
                                         "(a name that survives restarts, like the udev rule's)"))
    parser.add_argument("--latency", type=float, default=0.0, metavar=_("SECONDS"),
                        help=_("seconds to wait before handling what arrives (a slow display)"))
    parser.add_argument("--plain", action="store_true",
                        help=_("print one line per change instead of drawing big digits"))
    parser.add_argument("--seconds", type=float, default=0.0, metavar=_("SECONDS"),
                        help=_("stop after this many seconds (default: until Ctrl-C)"))
    args = parser.parse_args(argv)
    if args.latency < 0:
        parser.error(_("--latency: %(value)s is negative") % {"value": args.latency})

    draw_big = not args.plain and sys.stdout.isatty()

    def show(shown: dict[str, Any]) -> None:
        if draw_big:
            sys.stdout.write("\x1b[H\x1b[2J" + header + "\n\n" + emu.drawing() + "\n")
        else:
            sys.stdout.write(_("%(NS)s %(ns)r %(EW)s %(ew)r LED %(led)s")
                             % {"NS": team_code("NS"), "EW": team_code("EW"), "ns": shown["NS"],
                                "ew": shown["EW"], "led": _("on") if shown["led"] else _("off")}
                             + "\n")
        sys.stdout.flush()

    emu = Emulator(link=args.link, latency=args.latency)
    path = emu.start()
    header = _("display emulator on %(port)s") % {"port": path} + (
        _(" (link %(link)s)") % {"link": args.link} if args.link else "")
    print(header, flush=True)
    emu.on_change = show
    show(emu.shown())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait(args.seconds if args.seconds > 0 else None)
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
