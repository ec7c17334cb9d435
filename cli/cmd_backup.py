"""``belote-table backup``: a copy of the event store, safe during play.

Uses SQLite's online backup: the copy is a consistent snapshot even while
``belote-table run`` goes on storing events, and a card stored during the copy
is in it whole or not at all. The copy is one self-contained SQLite file;
``belote-table run --db COPY`` plays on from it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.i18n import _, located, ngettext


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote-table backup",
                                description=_("copy the event store, safe during play"))
    p.add_argument("--db", default="belote-table.db", metavar=_("FILE"),
                   help=_("the store to copy (default: %(default)s; on the Pi "
                          "/var/lib/belote-table/belote-table.db)"))
    p.add_argument("--out", metavar=_("FILE"), help=_("where to write the copy (default: "
                                   "belote-table-YYYYMMDD-HHMMSS.db here)"))
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from companion.backup import backup_file
    from companion.store import Store, StoreError

    out = Path(args.out or time.strftime("belote-table-%Y%m%d-%H%M%S.db"))
    try:
        backup_file(args.db, out)
        with Store(out) as copy:
            games = copy.games()
    except StoreError as exc:
        print(located("belote-table backup", exc), file=sys.stderr)
        return 1
    events = sum(g["events"] for g in games)
    print(_("saved %(file)s: %(games)s, %(events)s")
          % {"file": out,
             "games": ngettext("%(n)s game", "%(n)s games", len(games)) % {"n": len(games)},
             "events": ngettext("%(n)s event", "%(n)s events", events) % {"n": events}})
    return 0
