"""Backups of the evening: a copy of the event store taken while the table
plays, and the evening as one download for the club.

``backup_file`` copies a store file from another process (``belote-table
backup``) with SQLite's online backup API, which reads a consistent snapshot
while the service goes on writing. ``evening_zip`` is the "télécharger la
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

from companion.i18n import _
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
