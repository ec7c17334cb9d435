"""``belote-table update``: install a new version on the Pi and restart the table.

From a checkout of the project (``--from``, default: the current folder):
brings it up to date (``git pull --ff-only``, unless ``--no-pull`` or it is not
a git checkout), runs ``hardware/install.sh`` (which copies the code, installs
it in the venv and restarts the service: the open game is replayed from the
store, nothing is lost), then waits for the web page to answer again.
``--dry-run`` says each step and does nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from companion.i18n import _, language

PAGE = "http://127.0.0.1:8000/api/state"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table update",
                                description=_("install a new version and restart the service"))
    p.add_argument("--from", dest="source", default=".", metavar=_("DIR"),
                   help=_("the project's checkout (default: the current folder)"))
    p.add_argument("--no-pull", action="store_true", help=_("install the checkout as it is"))
    p.add_argument("--dry-run", action="store_true", help=_("say each step, change nothing"))
    p.add_argument("--page", default=PAGE, metavar="URL",
                   help=_("address checked once restarted (%(default)s)"))
    p.add_argument("--wait", type=float, default=60.0, metavar=_("SECONDS"),
                   help=_("seconds to wait for the page after the restart "
                          "(default: %(default)s)"))
    return p


def steps(source: Path, pull: bool, root: bool) -> list[list[str]]:
    """The commands the update runs, in order."""
    out = []
    if pull and (source / ".git").exists():
        out.append(["git", "-C", str(source), "pull", "--ff-only"])
    # install.sh speaks the language this command speaks (sudo may drop the locale).
    install = [str(source / "hardware" / "install.sh"), f"--lang={language()}"]
    out.append(install if root else ["sudo", *install])
    return out


def wait_for(page: str, seconds: float) -> bool:
    """True once ``page`` answers 200 (the restarted service is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(page, timeout=3) as answer:
                if answer.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(1.0)
    return False


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    source = Path(args.source).resolve()
    if not (source / "hardware" / "install.sh").is_file():
        print(_("belote-table update: %(dir)s is not a checkout of the project "
                "(no hardware/install.sh); give it with --from") % {"dir": source},
              file=sys.stderr)
        return 2
    for command in steps(source, not args.no_pull, os.geteuid() == 0):
        print("+ " + " ".join(command), flush=True)
        if args.dry_run:
            continue
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            print(_("belote-table update: %(command)s failed (%(rc)s); the table "
                    "runs as before") % {"command": command[0], "rc": done.returncode},
                  file=sys.stderr)
            return 1
    if args.dry_run:
        print("+ " + _("wait for %(page)s") % {"page": args.page})
        return 0
    if not wait_for(args.page, args.wait):
        print(_("belote-table update: %(page)s does not answer after %(wait).0f s; "
                "see journalctl -u belote-table") % {"page": args.page, "wait": args.wait},
              file=sys.stderr)
        return 1
    print(_("updated: %(page)s answers") % {"page": args.page})
    return 0
