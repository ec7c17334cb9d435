"""The crash-safe event store: every game's events in one SQLite file.

Events are the only thing kept (docs/design.md): a game's state is rebuilt by
replaying them, and a correction is one more event. Each event is written in
its own transaction with ``synchronous=FULL`` in WAL mode, so once ``append``
returns the event survives a power cut or a ``kill -9``; an event that fails
its checks is never written, and the file is left as it was.

The schema is versioned with the numbered SQL files of
``companion/migrations`` and ``PRAGMA user_version``.

>>> from scorer.events import GameStarted, BidMade
>>> store = Store(":memory:")
>>> game = store.new_game(GameStarted(dealer="N"), source="web", author="club")
>>> store.append(game, BidMade(seat="W", bid="80H"), source="web").seq
1
>>> [e.event.to_json()["type"] for e in store.events(game)]
['GameStarted', 'BidMade']
>>> store.append(game, BidMade(seat="S", bid="pass"), source="phone")
Traceback (most recent call last):
...
companion.store.StoreError: append to game 1: source 'phone' is not one of camera, web, simulator
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer import validate
from scorer.cards import Card, InvalidCardError
from scorer.events import Event, GameStarted, InvalidEventError, event_from_json

SOURCES = ("camera", "web", "simulator")
MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class StoreError(ValueError):
    """Bad input to the store (unknown game, bad source or confidence...) or a
    database the store cannot use. Nothing was written."""


class StoreTooNewError(StoreError):
    """The database was written by a newer program (its schema is ahead)."""


class StoreCorruptError(StoreError):
    """The file is not a SQLite database, or a damaged one."""


# The storage faults a table lives through (issue 74): the disk is full, the
# store's folder (or the whole card) became read-only, or the card fails.
FAULTS = ("full", "readonly", "io")


class StoreFaultError(Exception):
    """The disk refused a write: ``kind`` is ``full``, ``readonly`` or ``io``.
    The input was good and nothing was written; the same write succeeds once
    the fault is gone (the service keeps the events meanwhile). Not a
    ``ValueError``: the request was right, the disk was not."""

    def __init__(self, kind: str, detail: str, path: str) -> None:
        super().__init__(f"{path}: cannot write the store ({kind}): {detail}")
        self.kind = kind
        self.detail = detail
        self.path = path


def fault_kind(exc: BaseException, path: str | Path) -> str | None:
    """The storage fault behind ``exc`` (an SQLite or OS error on ``path``):
    ``full``, ``readonly``, ``io``, or None when it is no storage fault (a
    damaged file, a bug, a busy database)."""
    import errno
    import os

    if isinstance(exc, OSError):
        code = {errno.ENOSPC: "full", errno.EDQUOT: "full", errno.EROFS: "readonly",
                errno.EACCES: "readonly", errno.EPERM: "readonly", errno.EIO: "io"}
        return code.get(exc.errno or 0)
    if not isinstance(exc, sqlite3.OperationalError):
        return None
    primary = int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    # SQLITE_FULL 13, SQLITE_READONLY 8, SQLITE_IOERR 10, SQLITE_CANTOPEN 14, SQLITE_PERM 3
    if primary not in (3, 8, 10, 13, 14):
        return None
    folder = Path(path).parent
    if not folder.is_dir():
        return None  # a wrong path, not a fault of the disk
    if primary == 13 or _free_bytes(folder) < 64 * 1024:
        return "full"
    if primary in (3, 8) or not os.access(folder, os.W_OK) or _read_only_mount(folder):
        return "readonly"
    return "io"


def _free_bytes(folder: Path) -> int:
    import os

    try:
        st = os.statvfs(folder)
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


def _read_only_mount(folder: Path) -> bool:
    import os

    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


@dataclass(frozen=True)
class StoredEvent:
    """One stored event and where it came from. ``seq`` counts from 0 within a game."""

    game_id: int
    seq: int
    event: Event
    source: str
    ts: float
    confidence: float | None = None
    author: str | None = None
    hand_no: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The form published on the bus (topic ``event``) and served by the API."""
        return {"game_id": self.game_id, "seq": self.seq, "event": self.event.to_json(),
                "source": self.source, "ts": self.ts, "confidence": self.confidence,
                "author": self.author, "hand_no": self.hand_no}


def migrations(folder: Path = MIGRATIONS) -> list[tuple[int, Path]]:
    """The numbered migrations, in order; the numbers must run 1, 2, 3... with no gap."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        m = _MIGRATION_NAME.match(path.name)
        if not m:
            raise StoreError(f"{path}: migration names are NNNN_name.sql")
        found.append((int(m.group(1)), path))
    for expected, (number, path) in enumerate(found, start=1):
        if number != expected:
            raise StoreError(f"{path}: migration {expected:04d} expected, found {number:04d}")
    return found


class Store:
    """The SQLite event store. Thread-safe: one connection behind one lock.

    ``path`` is a file (created if missing) or ``":memory:"``; ``clock`` gives
    the time stamped on each event (tests inject their own).
    """

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        # The storage fault the store is living through (``FAULTS``), None when
        # writing works: ``{"kind", "detail", "since"}``.
        self.fault: dict[str, Any] | None = None
        # Opened read-only (or in memory) because the disk refused the writable
        # open: the writable connection is tried again before each write.
        self._fallback = False
        try:
            self._db = self._open()
        except StoreFaultError as exc:
            # A full disk or a read-only folder at start: the table still starts
            # (on what can be read) and writes again once the fault is gone.
            self._db = self._open_read_only()
            self._fallback = True
            self._set_fault(exc.kind, exc.detail)

    def _open(self) -> sqlite3.Connection:
        """The writable connection, migrated; ``StoreFaultError`` when the disk refuses it."""
        # isolation_level=None: we open and close every transaction ourselves.
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            kind = fault_kind(exc, self.path)
            if kind is not None:
                raise StoreFaultError(kind, str(exc), self.path) from None
            raise StoreError(f"{self.path}: cannot open the store: {exc}") from None
        try:
            db.execute("PRAGMA busy_timeout = 5000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA foreign_keys = ON")
            migrate(db, self._lock, MIGRATIONS, StoreTooNewError, self.path)
            # A database already in WAL mode opens on a read-only folder (its
            # -shm is there); the first write would fail: find out now.
            with immediate(db, self._lock):
                pass
        except sqlite3.Error as exc:
            db.close()
            kind = fault_kind(exc, self.path)
            if kind is not None:
                raise StoreFaultError(kind, str(exc), self.path) from None
            # "file is not a database", "database disk image is malformed"; a
            # locked file (OperationalError) is not corrupt.
            error = (StoreCorruptError if isinstance(exc, sqlite3.DatabaseError)
                     and not isinstance(exc, sqlite3.OperationalError) else StoreError)
            raise error(f"{self.path}: cannot use the store: {exc}") from None
        except BaseException:
            db.close()
            raise
        if self.path != ":memory:" and _read_only_mount(Path(self.path).parent):
            # Opened (its -shm was there) but nothing can be written: say so now.
            self._set_fault("readonly", "read-only file system")
        return db

    def probe(self) -> bool:
        """Is writing possible again? Tries the writable connection and an
        empty write transaction; clears ``fault`` when they work."""
        with self._lock:
            try:
                self._writable()
                if self.path != ":memory:" and _read_only_mount(Path(self.path).parent):
                    return False
                with self._transaction():
                    pass
            except StoreFaultError:
                return False
            return True

    def _open_read_only(self) -> sqlite3.Connection:
        """What can be read when the disk refuses a writable open: the file
        read-only (as a file nobody changes when it has no WAL to replay, which
        needs no -shm either), else an empty store in memory."""
        import os

        wal = Path(self.path + "-wal")
        has_wal = wal.exists() and wal.stat().st_size > 0
        tries = ["?mode=ro"] + ([] if has_wal else ["?mode=ro&immutable=1"])
        if os.path.exists(self.path) and os.path.getsize(self.path) > 0:
            from urllib.parse import quote

            for query in tries:
                db = None
                try:
                    db = sqlite3.connect(f"file:{quote(os.path.abspath(self.path))}{query}",
                                         uri=True, isolation_level=None,
                                         check_same_thread=False)
                    version = int(db.execute("PRAGMA user_version").fetchone()[0])
                    if version > len(migrations()):
                        raise StoreTooNewError(
                            f"{self.path}: schema version {version} is newer than this program "
                            f"knows ({len(migrations())}); upgrade belote-table")
                    db.execute("SELECT COUNT(*) FROM events").fetchone()
                    return db
                except sqlite3.DatabaseError as exc:
                    if db is not None:
                        db.close()
                    if fault_kind(exc, self.path) is None:
                        raise StoreCorruptError(f"{self.path}: cannot use the store: {exc}"
                                                ) from None
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        migrate(db, self._lock, MIGRATIONS, StoreTooNewError, ":memory:")
        return db

    def _set_fault(self, kind: str, detail: str) -> None:
        with self._lock:
            if self.fault is None or self.fault["kind"] != kind:
                self.fault = {"kind": kind, "detail": detail, "since": time.time()}

    def _writable(self) -> None:
        """Before a write: after a fault at start, try the writable connection
        again; ``StoreFaultError`` while the disk still refuses it."""
        with self._lock:
            if not self._fallback:
                return
            try:
                db = self._open()
            except StoreFaultError as exc:
                self._set_fault(exc.kind, exc.detail)
                raise
            old, self._db, self._fallback = self._db, db, False
            old.close()

    # -- schema -------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The schema version (``PRAGMA user_version``)."""
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        migrate(self._db, self._lock, MIGRATIONS, StoreTooNewError, self.path)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a storage fault raises ``StoreFaultError``
        (nothing written) and is remembered in ``fault`` until a write succeeds."""
        with self._lock:
            self._writable()
            try:
                with immediate(self._db, self._lock) as db:
                    yield db
            except sqlite3.OperationalError as exc:
                kind = fault_kind(exc, self.path)
                if kind is None:
                    raise
                self._set_fault(kind, str(exc))
                raise StoreFaultError(kind, str(exc), self.path) from None
            self.fault = None

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of the whole store in ``target`` (SQLite's online
        backup: safe while the table plays; each event is in the copy whole or
        not at all). Written beside the target and renamed, so a half copy is
        never left under its name."""
        target = Path(target)
        tmp = target.with_name(target.name + ".part")
        tmp.unlink(missing_ok=True)
        copy = sqlite3.connect(tmp)
        try:
            with self._lock:
                self._db.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            if copy.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise StoreError(f"backup to {target}: the copy failed its integrity check")
        finally:
            copy.close()
        tmp.replace(target)
        return target

    def now(self) -> float:
        """The store's clock (the time it stamps on events)."""
        return float(self._clock())

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- checks ---------------------------------------------------------------------

    @staticmethod
    def _check(where: str, source: str, confidence: float | None, author: str | None) -> None:
        if source not in SOURCES:
            raise StoreError(f"{where}: source {source!r} is not one of {', '.join(SOURCES)}")
        if confidence is not None and (
                isinstance(confidence, bool) or not isinstance(confidence, int | float)
                or not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0):
            raise StoreError(f"{where}: confidence {confidence!r} is not a number from 0 to 1")
        if author is not None and not isinstance(author, str):
            raise StoreError(f"{where}: author {author!r} is not a text")

    @staticmethod
    def _event_json(where: str, event: Event) -> str:
        if not isinstance(event, Event):
            raise StoreError(f"{where}: {event!r} is not an event")
        data = event.to_json()
        try:
            text = json.dumps(data, sort_keys=True, allow_nan=False)
            # The stored form must read back as the same event.
            if event_from_json(json.loads(text)) != event:
                raise StoreError(f"{where}: {data['type']} does not read back the same")
        except (TypeError, ValueError) as exc:
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"{where}: {data.get('type')} cannot be stored: {exc}") from None
        return text

    # -- writing ----------------------------------------------------------------------

    def new_game(self, started: GameStarted, source: str = "web",
                 author: str | None = None) -> int:
        """Open a game whose first event (seq 0) is ``started``; return its id."""
        self._check("new_game", source, None, author)
        if not isinstance(started, GameStarted):
            raise StoreError(f"new_game: the first event must be GameStarted, not {started!r}")
        try:
            # The same check as the API's and the CLI's: a game the rules cannot
            # play is never stored.
            validate.settings(started.rules, started.settings)
        except validate.InvalidInputError as exc:
            raise StoreError(f"new_game: {exc.reason}") from None
        data = self._event_json("new_game", started)
        now = self._clock()
        with self._transaction() as db:
            cur = db.execute("INSERT INTO games (created, source, author, rules) VALUES (?,?,?,?)",
                             (now, source, author, started.rules))
            game_id = int(cur.lastrowid or 0)
            db.execute("INSERT INTO events (game_id, seq, hand_no, type, data, source, ts,"
                       " confidence, author) VALUES (?, 0, NULL, ?, ?, ?, ?, NULL, ?)",
                       (game_id, "GameStarted", data, source, now, author))
        return game_id

    # The largest picture kept with a camera card (a small JPEG is a few kB).
    CROP_MAX = 64 * 1024
    # The most reads kept with a camera card (its likeliest cards).
    READS_MAX = 8

    @classmethod
    def _reads_json(cls, where: str, reads: Sequence[Any] | None) -> str | None:
        """The camera's reads of a card, checked, as stored: (card, probability,
        frames) each, or None."""
        if reads is None:
            return None
        if isinstance(reads, str | bytes) or len(reads) > cls.READS_MAX:
            raise StoreError(f"{where}: reads are at most {cls.READS_MAX} (card, p, frames)")
        out = []
        for read in reads:
            try:
                code, p, frames = read
                card = str(Card.parse(code))
            except (TypeError, ValueError, InvalidCardError):
                raise StoreError(f"{where}: a read is (card, p, frames), not {read!r}") from None
            if (isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p)
                    or not 0.0 <= p <= 1.0 or isinstance(frames, bool)
                    or not isinstance(frames, int) or frames < 0):
                raise StoreError(f"{where}: a read's p is from 0 to 1 and its frames a "
                                 f"count, not {read!r}")
            out.append({"card": card, "p": float(p), "frames": frames})
        return json.dumps(out)

    def append(self, game_id: int, event: Event, source: str, confidence: float | None = None,
               author: str | None = None, hand_no: int | None = None,
               crop: bytes | None = None, reads: Sequence[Any] | None = None,
               frames: int | None = None, *, ts: float | None = None,
               seq: int | None = None) -> StoredEvent:
        """Add one event at the end of a game, in one transaction; return it as stored.

        ``crop`` (camera events only): the JPEG the camera read, kept with the
        card it read and its confidence as the event's evidence; ``reads``: the
        card's likeliest cards over every frame it was seen in, as (card,
        probability, frames), and ``frames`` how many frames it was seen in."""
        where = f"append to game {game_id}"
        self._check(where, source, confidence, author)
        reads_text = self._reads_json(where, reads)
        if (reads_text is not None or frames is not None) and source != "camera":
            raise StoreError(f"{where}: only the camera's cards keep their reads")
        if frames is not None and (isinstance(frames, bool) or not isinstance(frames, int)
                                   or frames < 0):
            raise StoreError(f"{where}: frames {frames!r} is not a count")
        if crop is not None:
            if source != "camera":
                raise StoreError(f"{where}: only the camera's cards keep a picture")
            if not isinstance(crop, bytes) or not crop.startswith(b"\xff\xd8"):
                raise StoreError(f"{where}: the picture is not a JPEG")
            if len(crop) > self.CROP_MAX:
                raise StoreError(f"{where}: the picture is {len(crop)} bytes, more than "
                                 f"{self.CROP_MAX}")
        if isinstance(event, GameStarted):
            raise StoreError(f"{where}: GameStarted opens a game (use new_game)")
        if hand_no is not None and (not isinstance(hand_no, int) or hand_no < 1):
            raise StoreError(f"{where}: hand_no {hand_no!r} is not a hand number from 1")
        data = self._event_json(where, event)
        with self._transaction() as db:
            row = db.execute("SELECT ended FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"{where}: no such game")
            if row[0] is not None:
                raise StoreError(f"{where}: the game is over")
            next_seq = int(db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM events"
                                      " WHERE game_id = ?", (game_id,)).fetchone()[0])
            if seq is not None and seq < next_seq:
                kept = db.execute("SELECT data, source, ts, confidence, author, hand_no"
                                  " FROM events WHERE game_id = ? AND seq = ?",
                                  (game_id, seq)).fetchone()
                if kept is None or kept[0] != data or kept[1] != source:
                    raise StoreError(f"{where}: event {seq} is stored already, another one")
                return StoredEvent(game_id, seq, event, source, kept[2], kept[3], kept[4],
                                   kept[5])
            if seq is not None and seq != next_seq:
                raise StoreError(f"{where}: event {seq} would leave a gap after {next_seq - 1}")
            seq = next_seq
            ts = self._clock() if ts is None else float(ts)
            db.execute("INSERT INTO events (game_id, seq, hand_no, type, data, source, ts,"
                       " confidence, author) VALUES (?,?,?,?,?,?,?,?,?)",
                       (game_id, seq, hand_no, type(event).__name__, data, source, ts,
                        None if confidence is None else float(confidence), author))
            if source == "camera":
                read = event.to_json()
                db.execute("INSERT INTO evidence (game_id, seq, card, confidence, crop, reads,"
                           " frames) VALUES (?,?,?,?,?,?,?)",
                           (game_id, seq, read.get("card", read.get("new")),
                            None if confidence is None else float(confidence), crop,
                            reads_text, frames))
            if hand_no is not None:
                db.execute("INSERT INTO hands (game_id, hand_no, first_seq, last_seq)"
                           " VALUES (?,?,?,?) ON CONFLICT (game_id, hand_no)"
                           " DO UPDATE SET last_seq = excluded.last_seq",
                           (game_id, hand_no, seq, seq))
        return StoredEvent(game_id, seq, event, source, ts,
                           None if confidence is None else float(confidence), author, hand_no)

    def end_game(self, game_id: int) -> None:
        """Mark a game over; no event can be added to it afterwards."""
        with self._transaction() as db:
            cur = db.execute("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                             (self._clock(), game_id))
            if cur.rowcount != 1:
                raise StoreError(f"end_game: game {game_id} does not exist or is already over")

    # -- reading ------------------------------------------------------------------------

    def events(self, game_id: int) -> list[StoredEvent]:
        """All events of a game, in order (``seq`` 0, 1, 2...)."""
        with self._lock:
            if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise StoreError(f"events: no game {game_id}")
            rows = self._db.execute(
                "SELECT seq, data, source, ts, confidence, author, hand_no FROM events"
                " WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        out = []
        for seq, data, source, ts, confidence, author, hand_no in rows:
            try:
                event = event_from_json(json.loads(data))
            except (ValueError, InvalidEventError) as exc:
                raise StoreError(f"{self.path}: game {game_id} event {seq}: {exc}") from None
            out.append(StoredEvent(game_id, seq, event, source, ts, confidence, author, hand_no))
        return out

    def evidence(self, game_id: int) -> dict[int, dict[str, Any]]:
        """The camera's evidence by event number: ``card`` read, ``confidence``,
        ``crop`` (True when a picture is kept; ``crop()`` gives it), ``reads``
        (the card's likeliest cards over every frame it was seen in:
        ``[{"card", "p", "frames"}]``, likeliest first; None when not kept) and
        ``frames`` (how many frames it was seen in, or None)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, card, confidence, crop IS NOT NULL, reads, frames FROM evidence"
                " WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return {int(seq): {"card": card, "confidence": conf, "crop": bool(has),
                           "reads": None if reads is None else json.loads(reads),
                           "frames": frames}
                for seq, card, conf, has, reads, frames in rows}

    def crop(self, game_id: int, seq: int) -> bytes | None:
        """The picture the camera read for event ``seq`` (JPEG), or None."""
        with self._lock:
            row = self._db.execute("SELECT crop FROM evidence WHERE game_id = ? AND seq = ?",
                                   (game_id, seq)).fetchone()
        return None if row is None or row[0] is None else bytes(row[0])

    def games(self) -> list[dict[str, Any]]:
        """Every game, oldest first: id, created, source, author, rules, ended, events, hands."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.created, g.source, g.author, g.rules, g.ended,"
                " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id),"
                " (SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id)"
                " FROM games g ORDER BY g.id").fetchall()
        keys = ("id", "created", "source", "author", "rules", "ended", "events", "hands")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def current_game(self) -> int | None:
        """The latest game that is not over, or None."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games WHERE ended IS NULL"
                                   " ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def hands(self, game_id: int) -> list[dict[str, Any]]:
        """A game's hands: hand_no, first_seq, last_seq. A hand's score is not kept
        here: it is folded from its events (``scorer.game.replay``), corrections
        included."""
        with self._lock:
            rows = self._db.execute("SELECT hand_no, first_seq, last_seq FROM hands"
                                    " WHERE game_id = ? ORDER BY hand_no", (game_id,)).fetchall()
        return [{"hand_no": h, "first_seq": f, "last_seq": last} for h, f, last in rows]


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``sqlite3.complete_statement`` knows where
    a statement ends, quotes and triggers included)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip() and not all(ln.strip().startswith("--") or not ln.strip()
                               for ln in buf.splitlines()):
        raise StoreError(f"unfinished SQL statement at the end of a migration: {buf.strip()!r}")
    return out


@contextmanager
def immediate(db: sqlite3.Connection, lock: threading.RLock | threading.Lock
              ) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE``) on ``db`` under ``lock``:
    committed whole, or rolled back whole on any exception."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            # A COMMIT the disk refuses (full, read-only) leaves the transaction
            # open: it is rolled back below like any other failure.
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise


def migrate(db: sqlite3.Connection, lock: threading.RLock | threading.Lock, folder: Path,
            too_new: type[Exception], path: Path | str) -> None:
    """Bring ``db`` to the last numbered migration of ``folder``; raise ``too_new``
    when its ``PRAGMA user_version`` is beyond what this program knows."""
    steps = migrations(folder)
    with lock:
        current = int(db.execute("PRAGMA user_version").fetchone()[0])
    if current > len(steps):
        raise too_new(f"{path}: schema version {current} is newer than this program "
                      f"knows ({len(steps)}); upgrade belote-table")
    for number, script in steps[current:]:
        # user_version lives in the file header and is written in the same
        # transaction as the migration: a crash leaves the old schema whole.
        with immediate(db, lock) as conn:
            for statement in _statements(script.read_text(encoding="utf-8")):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
