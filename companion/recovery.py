"""A damaged event store recovered into a new file, at start.

A torn page in the middle of the store (a power cut on a worn SD card) makes
SQLite answer "database disk image is malformed" when that page is read: the
table would not start. ``open_store`` checks the file when it opens it
(``PRAGMA quick_check``, which reads the whole file: done for a store under
``CHECK_ALWAYS_BYTES``, or after a stop that left its WAL behind, a kill or a
power cut, the only times a page gets torn), and ``companion.pipeline.open_table``
recovers a store whose open game cannot be read; a damaged one is recovered with SQLite's own
recovery (the ``.recover`` command of the ``sqlite3`` program, Debian's
``sqlite3`` package), or, without that program, by reading the tables row by
row and skipping what cannot be read. Every event that can be read is kept,
with its row number (the club link's ``seq``) and its place in its game; the
damaged file is set aside under a dated name (``<db>.corrupt-YYYYmmdd-HHMMSS``,
its -wal and -shm beside it), never deleted, and the page names it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.store import Store, StoreCorruptError, StoreError

log = logging.getLogger(__name__)

TABLES = ("games", "events", "evidence", "hands")
# A store this small is checked at every start (about a second on a Pi); a
# larger one after an unclean stop only.
CHECK_ALWAYS_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Recovered:
    """What a recovery did: the damaged file's new name, the events read back
    from it, the events known lost (gaps in a game), and how (``sqlite3
    .recover`` or ``rows``)."""

    aside: Path
    events: int
    lost: int
    how: str


def _read_only_uri(db: Path) -> str:
    from urllib.parse import quote

    return f"file:{quote(os.path.abspath(db))}?mode=ro"


def damaged(db: Path) -> str | None:
    """Why the store ``db`` cannot be trusted (SQLite's own words), or None
    when it reads whole (``PRAGMA quick_check``; a missing file is whole)."""
    if not db.exists() or db.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(_read_only_uri(db), uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.OperationalError:
        return None  # a busy or unwritable folder is no damage: the store says so
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()
    found = [str(r[0]) for r in rows]
    if found == ["ok"]:
        return None
    lines = "\n".join(found).splitlines()
    return "; ".join(line for line in lines[:4] if not line.startswith("***"))


def _header_version(db: Path) -> int:
    """``PRAGMA user_version`` as the damaged file's header has it (offset 60)."""
    try:
        with db.open("rb") as f:
            head = f.read(100)
    except OSError:
        return 0
    if len(head) < 64 or not head.startswith(b"SQLite format 3\x00"):
        return 0
    return int.from_bytes(head[60:64], "big")


def _with_cli(db: Path, target: Path) -> bool:
    """SQLite's ``.recover`` into ``target``; False when the program is missing or fails."""
    cli = shutil.which("sqlite3")
    if cli is None:
        return False
    try:
        dump = subprocess.run([cli, str(db), ".recover"], capture_output=True, timeout=600,
                              check=False)
        if not dump.stdout:
            return False
        load = subprocess.run([cli, str(target)], input=dump.stdout, capture_output=True,
                              timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("sqlite3 .recover failed: %s", exc)
        return False
    if dump.returncode != 0 or load.returncode != 0 or b"error" in dump.stderr:
        # Debian 12's sqlite3 (3.40) lacks the page reader .recover needs.
        log.warning("sqlite3 .recover failed: %s",
                    (dump.stderr + load.stderr).decode(errors="replace")[:300])
        return False
    return True


def _row(src: sqlite3.Connection, table: str, rowid: int) -> tuple[object, ...] | None:
    """Row ``rowid`` of ``table``, or None when it is missing or on a damaged
    page. One row at a time: a range read can stop short at a damaged page
    without an error."""
    try:
        row = src.execute(f"SELECT rowid, * FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else tuple(row)


def _with_python(db: Path, target: Path) -> None:
    """Every row of the store's tables that can be read, copied into a new
    store at ``target`` (the same schema, made by the store's migrations)."""
    src = sqlite3.connect(_read_only_uri(db), uri=True)
    src.execute("PRAGMA writable_schema = ON")  # read past a damaged schema row
    Store(target).close()
    out = sqlite3.connect(target, isolation_level=None)
    try:
        for table in TABLES:
            try:
                columns = [c[1] for c in src.execute(f"PRAGMA table_info({table})")]
            except sqlite3.DatabaseError:
                continue  # not a database at all (a bad header), or no such table
            if not columns:
                continue
            try:
                top = int(src.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0)
            except sqlite3.DatabaseError:
                top = 1 << 20  # the last page is damaged: look that far
            names = ", ".join(["rowid", *columns])
            marks = ", ".join("?" * (len(columns) + 1))
            out.execute("BEGIN")
            for rowid in range(1, top + 1):
                row = _row(src, table, rowid)
                if row is None:
                    continue
                try:
                    out.execute(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})", row)
                except sqlite3.Error:
                    continue
            out.execute("COMMIT")
    finally:
        out.close()
        src.close()


def _mend(target: Path, version: int) -> tuple[int, int]:
    """Make the recovered file a store again: its schema version, a game for
    events whose game's row was lost, the events whose text was damaged
    dropped. Returns (events kept, events known lost)."""
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"games", "events"} <= have:
            conn.close()
            target.unlink()
            with Store(target):
                pass
            return 0, 0
        if int(conn.execute("PRAGMA user_version").fetchone()[0]) == 0:
            conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("BEGIN")
        from scorer.events import InvalidEventError, event_from_json

        for rowid, data in conn.execute("SELECT rowid, data FROM events").fetchall():
            try:
                event_from_json(json.loads(data))
            except (TypeError, ValueError, InvalidEventError):
                conn.execute("DELETE FROM events WHERE rowid = ?", (rowid,))
        orphans = conn.execute(
            "SELECT game_id, MIN(ts), MAX(ts), MIN(source) FROM events"
            " WHERE game_id NOT IN (SELECT id FROM games) GROUP BY game_id").fetchall()
        last = conn.execute("SELECT MAX(game_id) FROM events").fetchone()[0]
        for game_id, first, end, source in orphans:
            conn.execute("INSERT INTO games (id, created, source, author, rules, ended)"
                         " VALUES (?, ?, ?, 'recovered', 'ffb', ?)",
                         (game_id, first, source, None if game_id == last else end))
        kept, lost = 0, 0
        for _game, count, top in conn.execute(
                "SELECT game_id, COUNT(*), MAX(seq) FROM events GROUP BY game_id"):
            kept += count
            lost += top + 1 - count
        conn.execute("COMMIT")
    finally:
        conn.close()
    return kept, lost


def recover(db: Path) -> Recovered:
    """Recover the damaged store ``db`` into a new file under its name and set
    the damaged one aside; return what was done. Raises ``StoreError`` when no
    new store could be written (the damaged file is then left in place)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = db.with_name(f"{db.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():  # twice in one second: never over an earlier one
        n += 1
        aside = db.with_name(f"{db.name}.corrupt-{stamp}-{n}")
    target = db.with_name(f"{db.name}.recovering")
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)
    how = "sqlite3 .recover"
    try:
        if not _with_cli(db, target):
            how = "rows"
            target.unlink(missing_ok=True)
            _with_python(db, target)
        kept, lost = _mend(target, _header_version(db))
        with Store(target) as check:  # migrated to this program's schema, and whole
            check.games()
    except (sqlite3.Error, StoreCorruptError, OSError) as exc:
        target.unlink(missing_ok=True)
        raise StoreError(f"{db}: the damaged store could not be recovered: {exc}") from None
    os.replace(db, aside)
    for suffix in ("-wal", "-shm"):
        extra = Path(f"{db}{suffix}")
        if extra.exists():
            os.replace(extra, Path(f"{aside}{suffix}"))
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    os.replace(target, db)
    log.error("%s was damaged: %d events recovered (%s), %d known lost; the damaged file is "
              "kept as %s", db, kept, how, lost, aside.name)
    return Recovered(aside, kept, lost, how)


def _worth_checking(db: Path) -> bool:
    """Check the whole file at this start? Small, or left by an unclean stop."""
    try:
        wal = Path(f"{db}-wal")
        return (wal.exists() and wal.stat().st_size > 0) or \
            db.stat().st_size <= CHECK_ALWAYS_BYTES
    except OSError:
        return False


def open_store(db: Path, say: Callable[[str], None] = print,
               damage: str | None = None) -> tuple[Store, Recovered | None]:
    """The store on ``db`` for a table that starts: a damaged file (``damaged``,
    or a file SQLite refuses; ``damage``: what was found wrong reading it
    already) is recovered first (``recover``). A full disk or a read-only
    folder does not stop it: the store opens on what can be read and writes
    again once the fault is gone (``Store.fault``). Raises ``StoreError`` for
    a store written by a newer program, or one that can be neither read nor
    recovered."""
    from companion.i18n import _

    why = damage or (damaged(db) if _worth_checking(db) else None)
    if why is None:
        try:
            return Store(db), None
        except StoreCorruptError as exc:
            why = str(exc)
    say(_("damaged database (%(reason)s): recovering what can be read")
        % {"reason": why[:300]})
    found = recover(db)
    say(_("%(n)s events recovered into a new %(db)s (%(lost)s known lost); the damaged file "
          "is kept as %(aside)s") % {"n": found.events, "db": db, "lost": found.lost,
                                     "aside": found.aside.name})
    return Store(db), found
