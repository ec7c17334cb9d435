"""``belote-table pin reset``: the table's PIN forgotten, at the Pi itself.

A table keeps its PIN from game to game and across restarts, and every new
game needs it. An organiser who lost it (or a table taken by someone else)
gets it back here, on the Pi: every game's PIN, the failed attempts and the
organisers' sessions are forgotten; a game still open gets a new PIN, printed
here; with none open, whoever starts the next game chooses the table's PIN.
The service may keep running: it reads the PIN file again at its next request.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from companion.i18n import _

YES = ("o", "oui", "y", "yes")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table pin",
                                description=_("the table's PIN, at the Pi"))
    actions = p.add_subparsers(dest="action", required=True, metavar="reset")
    reset = actions.add_parser(
        "reset", help=_("forget the table's PIN: the next game sets a new one"),
        description=_("forget the table's PIN: the next game sets a new one"))
    reset.add_argument("--db", default="belote-table.db", metavar=_("FILE"),
                       help=_("the table's event store (default: %(default)s; on the Pi "
                              "/var/lib/belote-table/belote-table.db)"))
    reset.add_argument("--yes", action="store_true",
                       help=_("do not ask for confirmation"))
    return p


def _confirmed(db: Path) -> bool | None:
    """The organiser's answer; None when there is no terminal to ask on."""
    if not sys.stdin.isatty():
        return None
    question = _("Forget the PIN of the table in %(file)s? Logged-in organisers will "
                 "have to log in again. [y/N] ") % {"file": db}
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().lower() in YES


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    db = Path(args.db)
    pin_file = Path(str(db) + ".pins.json")
    if not db.exists() and not pin_file.exists():
        print(_("no table here: %(file)s does not exist") % {"file": db}, file=sys.stderr)
        return 1
    if not args.yes:
        answer = _confirmed(db)
        if answer is None:
            print(_("confirm with --yes (there is no terminal to ask on)"), file=sys.stderr)
            return 2
        if not answer:
            print(_("nothing changed"))
            return 1
    from companion.store import Store, StoreError
    from web.access import reset_table_pin

    try:
        open_game = None
        if db.exists():
            with Store(db) as store:
                open_game = store.current_game()
        new = reset_table_pin(db, open_game)
    except (StoreError, sqlite3.Error, OSError) as exc:
        print(_("the PIN could not be reset: %(reason)s") % {"reason": exc}, file=sys.stderr)
        return 1
    print(_("The table's PIN is forgotten; organisers are logged out."))
    if new is not None:
        print(_("Game %(game)s, in progress, has a new PIN: %(pin)s")
              % {"game": open_game, "pin": new})
    else:
        print(_("No game in progress: whoever starts the next game chooses the table's PIN."))
    return 0
