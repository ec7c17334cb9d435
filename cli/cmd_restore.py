"""``belote-table restore BACKUP --db FILE``: put a backup of the event store back.

``BACKUP`` is a copy made by ``belote-table backup`` (or the store in "Télécharger
la soirée"). It is checked before anything is touched: a file that is not a
table's store (another file, another program's database, a damaged copy) is
refused, and the copy must open and replay, game by game, as the table would.
A store already at ``FILE`` is replaced only when the person says so (a
question at the terminal, or ``--force``), and even then it is kept aside as
``FILE.before-restore-YYYYMMDD-HHMMSS``, never deleted. Stop the table first
(``sudo systemctl stop belote-table``): the service must not write to ``FILE``
meanwhile.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.i18n import _, located, ngettext, os_reason, reason

WHO = "belote-table restore"
YES = ("o", "oui", "y", "yes")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=WHO, description=_("put a backup of the event store back"))
    p.add_argument("backup", metavar=_("BACKUP"),
                   help=_("the copy made by belote-table backup"))
    p.add_argument("--db", required=True, metavar=_("FILE"),
                   help=_("the store to restore (on the Pi /var/lib/belote-table/"
                          "belote-table.db); one already there is kept aside"))
    p.add_argument("--force", action="store_true",
                   help=_("replace a store already at FILE without asking (it is kept aside)"))
    return p


def _held(held: dict[str, int]) -> str:
    return _("%(games)s, %(events)s") % {
        "games": ngettext("%(n)s game", "%(n)s games", held["games"]) % {"n": held["games"]},
        "events": ngettext("%(n)s event", "%(n)s events", held["events"]) % {
            "n": held["events"]}}


def _ask(question: str) -> bool:
    """The person's answer at the terminal (no terminal: no)."""
    if not sys.stdin.isatty():
        return False
    try:
        answer = input(question + " ")
    except EOFError:
        return False
    return answer.strip().lower() in YES


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from companion.backup import finish_restore, prepare_restore
    from companion.store import Store, StoreError

    backup, db = Path(args.backup), Path(args.db)
    if not db.parent.is_dir():
        print(located(WHO, located(db.parent, _("no such folder"))), file=sys.stderr)
        return 2
    if db.exists() and db.resolve() == backup.resolve():
        print(located(WHO, _("the backup and the store are the same file")), file=sys.stderr)
        return 2
    try:
        ready, held = prepare_restore(backup, db)
    except OSError as exc:
        print(located(WHO, located(backup, _("cannot read: %(reason)s")
                                   % {"reason": os_reason(exc)})), file=sys.stderr)
        return 2
    except StoreError as exc:
        print(located(WHO, reason(exc)), file=sys.stderr)
        return 2
    if db.exists():
        try:
            with Store(db) as current:
                now = _held({"games": len(current.games()),
                             "events": sum(g["events"] for g in current.games())})
        except StoreError:
            now = _("unreadable")
        question = (_("%(db)s already holds a store (%(now)s). Replace it with %(backup)s "
                      "(%(held)s)? It is kept as %(db)s.before-restore-DATE. [o/N]")
                    % {"db": db, "now": now, "backup": backup, "held": _held(held)})
        if not args.force and not _ask(question):
            ready.unlink(missing_ok=True)
            print(located(WHO, _("%(db)s left as it was: answer yes at the question, or add "
                                 "--force to replace it (it is kept aside)") % {"db": db}),
                  file=sys.stderr)
            return 1
    try:
        aside, restored = finish_restore(ready, db)
    except (OSError, StoreError) as exc:
        ready.unlink(missing_ok=True)
        why = os_reason(exc) if isinstance(exc, OSError) else reason(exc)
        print(located(WHO, why), file=sys.stderr)
        return 2
    print(_("restored %(db)s from %(backup)s: %(held)s, every game replayed")
          % {"db": db, "backup": backup, "held": _held(restored)})
    if aside is not None:
        print(_("the store it replaced is kept as %(aside)s") % {"aside": aside})
    return 0
