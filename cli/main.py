"""``belote-table``: one command, several subcommands.

Each subcommand lives in its own module and is imported only when asked for,
so that ``belote-table score`` loads the rules engine alone (no numpy, OpenCV,
onnxruntime or Flask) and starts fast.

It speaks French, or English with ``--lang en`` (anywhere on the line) or an
English locale (``companion.i18n``).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

from companion.i18n import N_, _, take_language

# name -> (module with a ``main(argv) -> int``, one-line help, said in the language spoken)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("cli.cmd_score", N_("score hand records (JSON) and print the results")),
    "demo": ("cli.cmd_demo", N_("play a virtual table through the whole pipeline")),
    "run": ("cli.cmd_run",
            N_("run the table from a camera, a video or a folder of images")),
    "enroll": ("cli.cmd_enroll",
               N_("learn the club's own deck at the table (run --deck)")),
    "calibrate": ("cli.cmd_calibrate",
                  N_("save the table corners and seat zones from a frame")),
    "club": ("cli.cmd_club",
             N_("the club server: every table over MQTT, concours, ranking")),
    "vision": ("cli.cmd_vision", N_("card reader: read, eval, enroll, bench, train")),
    "backup": ("cli.cmd_backup", N_("copy the event store, safe during play")),
    "restore": ("cli.cmd_restore", N_("put a backup of the event store back")),
    "pin": ("cli.cmd_pin", N_("the table's PIN, at the Pi: pin reset forgets it")),
    "update": ("cli.cmd_update", N_("install a new version and restart the service")),
    "display": ("cli.cmd_display", N_("score display: flash the Pico, show its status")),
    "display-emulator": ("cli.cmd_display_emulator",
                         N_("emulate the score display on a pseudo terminal")),
}


# The commands that run until stopped: a service manager's stop (SIGTERM, as systemd
# sends it) ends them as Ctrl-C does, through their own clean-up (camera, score display,
# web server and event store closed), not by the signal's default, which ends the process
# where it stands.
SERVICES = ("run", "club", "enroll")


class Stopped(KeyboardInterrupt):
    """A stop asked by SIGTERM, handled where Ctrl-C is."""


def _stop_on_sigterm(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def usage() -> str:
    lines = [_("usage: belote-table [--lang fr|en] COMMAND [ARGS...]"), "", _("commands:")]
    lines += [f"  {name:<17} {_(help_)}" for name, (_module, help_) in COMMANDS.items()]
    lines += ["", _("belote-table COMMAND --help for a command's options."),
              _("--lang en, or LANG=en_US.UTF-8 in the environment: messages in English "
                "(French by default).")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = take_language(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(_("belote-table: unknown command %(name)r") % {"name": name} + "\n\n" + usage(),
              file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    # Only while the command runs: whoever called ``main`` keeps its own handler after.
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm) if name in SERVICES else None
    try:
        rc: int = module.main(rest)
    except Stopped:
        return 128 + signal.SIGTERM  # stopped before it was serving: as a shell reports it
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except BrokenPipeError:
        # Whoever read the output stopped early (``| head``): not our error.
        # Point stdout at nothing so that Python's exit flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return rc


if __name__ == "__main__":
    sys.exit(main())
