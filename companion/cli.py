"""``belote-table``: one command, several subcommands.

Each subcommand lives in its own module and is imported only when asked for,
so that ``belote-table score`` loads the rules engine alone (no numpy, OpenCV,
onnxruntime or Flask) and starts fast.
"""

from __future__ import annotations

import importlib
import os
import sys

# name -> (module with a ``main(argv) -> int``, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("companion.cmd_score", "score hand records (JSON) and print the results"),
    "demo": ("companion.cmd_demo", "play a virtual table through the whole pipeline"),
    "run": ("companion.cmd_run", "run the table from a camera, a video or a folder of images"),
    "enroll": ("companion.cmd_enroll", "learn the club's own deck at the table (run --deck)"),
    "calibrate": ("companion.cmd_calibrate", "save the table corners and seat zones from a frame"),
    "club": ("companion.cmd_club", "the club server: every table over MQTT, concours, ranking"),
    "vision": ("vision.cli", "card reader: read, eval, enroll, bench, train"),
    "backup": ("companion.cmd_backup", "copy the event store, safe during play"),
    "update": ("companion.cmd_update", "install a new version and restart the service"),
    "display": ("companion.cmd_display", "score display: flash the Pico, show its status"),
    "display-emulator": ("companion.cmd_display_emulator",
                         "emulate the score display on a pseudo terminal"),
}


def usage() -> str:
    lines = ["usage: belote-table COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<17} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "belote-table COMMAND --help for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"belote-table: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        rc: int = module.main(rest)
    except BrokenPipeError:
        # Whoever read the output stopped early (``| head``): not our error.
        # Point stdout at nothing so that Python's exit flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
    return rc


if __name__ == "__main__":
    sys.exit(main())
