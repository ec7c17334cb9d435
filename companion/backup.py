"""Backups of the evening: a copy of the event store taken while the table
plays, and the evening as one download for the club.

``backup_file`` copies a store file from another process (``belote-table
backup``) with SQLite's online backup API, which reads a consistent snapshot
while the service goes on writing. ``prepare_restore`` and ``finish_restore``
put such a copy back (``belote-table restore``): the copy is checked to be a
table's store that opens and replays before anything is touched, and the store
it replaces is kept aside, never deleted. ``evening_zip`` is the "télécharger la
soirée" download: the copy of the store, and each game of the evening as the
club's spreadsheet (CSV) and as one JSON document.
"""

from __future__ import annotations

import io
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.i18n import _, reason
from companion.store import Store, StoreError

# Games started within this many hours of the evening's last one belong to it.
EVENING_HOURS = 12


def backup_file(db: str | Path, out: str | Path) -> Path:
    """Copy the store file ``db`` to ``out`` while it may be in use (online backup)."""
    db, out = Path(db), Path(out)
    if not db.is_file():
        raise StoreError(_("%(db)s: no such store file") % {"db": db})
    tmp = out.with_name(out.name + ".part")
    tmp.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    copy = sqlite3.connect(tmp)
    try:
        try:
            source.backup(copy)
        except sqlite3.Error as exc:
            raise StoreError(_("%(db)s: cannot be backed up: %(reason)s")
                             % {"db": db, "reason": exc}) from None
        copy.execute("PRAGMA journal_mode = DELETE")
        if copy.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise StoreError(_("%(file)s: the copy failed its integrity check") % {"file": out})
    finally:
        copy.close()
        source.close()
    tmp.replace(out)
    return out


SQLITE_HEADER = b"SQLite format 3\x00"


class NotABackupError(StoreError):
    """A file ``belote-table restore`` refuses: not a backup of a table's store."""


def _not_a_backup(path: Path, why: str) -> NotABackupError:
    return NotABackupError(_("%(file)s is not a backup of the table: %(reason)s")
                           % {"file": path, "reason": why})


def _replays(store: Store) -> dict[str, int]:
    """Every game of ``store`` replayed by the rules engine: its number of games
    and events; ``StoreError`` naming the first game that does not replay."""
    from scorer.game import replay

    games = store.games()
    for game in games:
        try:
            replay([e.event for e in store.events(game["id"])])
        except ValueError as exc:  # an event refused by the rules, a damaged one
            raise StoreError(_("game %(game)s does not replay: %(reason)s")
                             % {"game": game["id"], "reason": reason(exc)}) from None
    return {"games": len(games), "events": sum(g["events"] for g in games)}


def prepare_restore(backup: str | Path, db: str | Path) -> tuple[Path, dict[str, int]]:
    """Check that ``backup`` is a backup of a table's store (a SQLite file whose
    schema is the store's, intact, that opens and whose every game replays) and
    copy it beside ``db``, ready for ``finish_restore``; ``backup`` itself is only
    read. Returns the copy and what it holds (games, events). ``NotABackupError``
    (or ``OSError`` when it cannot be read), nothing written, otherwise."""
    import sqlite3
    from urllib.parse import quote

    from companion.store import StoreTooNewError, migrations

    backup, db = Path(backup), Path(db)
    with backup.open("rb") as f:  # OSError: missing, a folder, not allowed
        header = f.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise _not_a_backup(backup, _("it is not an SQLite database"))
    tmp = db.with_name(db.name + ".restoring")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{quote(str(backup.resolve()))}?mode=ro", uri=True)
    try:
        try:
            if source.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise _not_a_backup(backup, _("the file is damaged"))
            version = int(source.execute("PRAGMA user_version").fetchone()[0])
            tables = {row[0] for row in source.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise _not_a_backup(backup, _("the file is damaged (%(reason)s)")
                                % {"reason": exc}) from None
        if version < 1 or not {"games", "events", "hands"} <= tables:
            raise _not_a_backup(backup, _("its tables are not those of a table's store"))
        if version > len(migrations()):
            raise StoreTooNewError(
                _("%(file)s was written by a newer belote-table (schema %(version)s): "
                  "update this one first") % {"file": backup, "version": version})
        try:
            copy = sqlite3.connect(tmp)
            try:
                source.backup(copy)
            finally:
                copy.close()
        except sqlite3.Error as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(_("%(file)s: the copy cannot be written: %(reason)s")
                             % {"file": tmp, "reason": exc}) from None
    finally:
        source.close()
    try:
        # Opened as the table opens it (an older schema is brought up to date on
        # the copy), and every game replayed.
        with Store(tmp) as store:
            held = _replays(store)
        _single_file(tmp)
    except BaseException:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        raise
    return tmp, held


def _single_file(path: Path) -> None:
    """Fold ``path``'s write-ahead log into it, so that it moves as one file."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


def finish_restore(ready: Path, db: str | Path) -> tuple[Path | None, dict[str, int]]:
    """Put ``ready`` (from ``prepare_restore``) in place as ``db``. A store already
    there, with its write-ahead files, is renamed
    ``<db>.before-restore-YYYYMMDD-HHMMSS`` first, never deleted. The restored
    store is then opened and replayed once more. Returns the kept store (None
    when there was none) and what the restored store holds."""
    import os

    db = Path(db)
    aside = None
    if db.exists():
        aside = db.with_name(f"{db.name}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(db, aside)
    for suffix in ("-wal", "-shm"):
        extra = Path(f"{db}{suffix}")
        if extra.exists():
            if aside is not None:
                os.replace(extra, Path(f"{aside}{suffix}"))
            else:
                extra.unlink()
    os.replace(ready, db)
    with Store(db) as store:
        held = _replays(store)
    return aside, held


def evening_games(store: Store) -> list[dict[str, Any]]:
    """The games of the evening: those started within ``EVENING_HOURS`` of the last."""
    games = store.games()
    if not games:
        return []
    last = max(g["created"] for g in games)
    return [g for g in games if g["created"] >= last - EVENING_HOURS * 3600]


def evening_zip(store: Store, csv_of: Callable[[int], str], json_of: Callable[[int], Any],
                names: dict[str, str] | None = None) -> tuple[str, bytes]:
    """The evening as a zip: the store's copy, and for each game of the evening
    its spreadsheet (``csv_of(game_id)``) and JSON document (``json_of``).
    Returns the file name and the bytes."""
    import json

    words = {"evening": "soiree", "game": "partie", **(names or {})}
    games = evening_games(store)
    day = time.strftime("%Y-%m-%d", time.localtime(games[-1]["created"] if games else None))
    folder = f"{words['evening']}-{day}"
    buf = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, \
            zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        copy = store.backup(Path(tmp) / "belote-table.db")
        archive.write(copy, f"{folder}/belote-table.db")
        for game in games:
            name = f"{folder}/{words['game']}-{game['id']}"
            archive.writestr(f"{name}.csv", csv_of(game["id"]).encode("utf-8"))
            archive.writestr(f"{name}.json", json.dumps(json_of(game["id"]), ensure_ascii=False,
                                                        indent=1))
    return f"{folder}.zip", buf.getvalue()
