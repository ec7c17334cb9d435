"""Who may change the table: anyone may watch, every change needs the table's PIN.

The PIN is chosen when a game starts (or given in the app config for a game
started elsewhere, or made up, logged and shown on the score display when
neither) and kept per game as a ``hashlib.scrypt`` hash in a small JSON file
beside the event store, written with fsync and rename so that a crash leaves
the old file or the new one, never half of one. A file from before the hashes
(plain PINs) is hashed on first read; an empty or corrupt one is set aside,
said on the page, and the service goes on. A table keeps its PIN from game to
game and across restarts: with no game open, the latest game's PIN guards it,
and a new game keeps it unless a new one is chosen. Only ``belote-table pin
reset``, at the Pi, clears it (``reset_table_pin``); a running service reads
the PIN file again when it changes on disk.

API clients send the PIN in the ``X-Table-PIN`` header; the organiser's
browser proves it once on the control page and then carries a session id,
kept server-side in SQLite (with the failed attempts and the cookie signing
key), so a session survives a restart and dies at log-out. Failed attempts
are counted per table, not per address, and kept across restarts: after
``PIN_MAX_FAILURES`` wrong PINs the table refuses every PIN for
``PIN_LOCKOUT_S`` seconds, doubling at each lockout, and says how long is left.
A PIN is counted before it is checked, in the same SQLite write transaction
that reads the lockout, so a burst of simultaneous guesses gets
``PIN_MAX_FAILURES`` checks at most and the lockout grows one step per burst.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from flask import Flask, current_app, request, session
from flask_babel import gettext as _

log = logging.getLogger(__name__)
T = TypeVar("T")

PIN_HEADER = "X-Table-PIN"
PIN_DIGITS = 6          # a PIN the service makes up; a chosen one has 6 to 8 digits
# scrypt's cost: about 16 MB and a few tens of milliseconds a check, so a
# stolen PIN file cannot be searched quickly; verified PINs are remembered
# in memory (as an HMAC) so API clients do not pay it on every request.
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
MAX_LOCKOUT_S = 3600
SESSION_S = 31 * 24 * 3600


class AccessDenied(Exception):
    """A change asked for without the right PIN (answered with 403)."""


class PinLocked(Exception):
    """Too many wrong PINs for this table: every PIN waits (answered with 429)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(1, int(seconds + 0.999))
        super().__init__(self.message())

    def message(self) -> str:
        return str(_("too many PIN attempts: try again in %(seconds)s s",
                     seconds=self.seconds))


def hash_pin(pin: str, salt: bytes | None = None, **cost: int) -> dict[str, Any]:
    """The stored form of a PIN (scrypt, with its salt and cost)."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    params = {**SCRYPT, **cost}
    digest = hashlib.scrypt(pin.encode(), salt=salt, maxmem=64 * 1024 * 1024, dklen=32,
                            **params)
    return {"kdf": "scrypt", **params, "salt": salt.hex(), "hash": digest.hex()}


def _pin_ok(stored: dict[str, Any], pin: str) -> bool:
    try:
        again = hash_pin(pin, bytes.fromhex(stored["salt"]), n=int(stored["n"]),
                         r=int(stored["r"]), p=int(stored["p"]))
    except (KeyError, ValueError, TypeError):
        return False
    return hmac.compare_digest(again["hash"], str(stored.get("hash", "")))


def write_atomically(path: Path, text: str) -> None:
    """Write, fsync, rename, fsync the folder: after a crash the file is the
    old one or the new one, never empty or half written."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _set_aside(path: Path) -> Path:
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, aside)
    return aside


class PinBook:
    """The PIN hash of each game, by game id, optionally kept in a JSON file.

    ``problem`` says (in words for the organiser) what went wrong reading the
    file, if anything; the book then starts empty and the service goes on.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._pins: dict[str, dict[str, Any]] = {}
        self.problem: str | None = None
        self.unsaved = False  # the PINs changed but the disk refused the file
        self._seen: tuple[int, int, int] | None = None
        if path is not None and path.exists():
            self._load(path)
        self._seen = self._stamp()

    def _stamp(self) -> tuple[int, int, int] | None:
        """The file as last seen (inode, time, size); None: there is none."""
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError:
            return self._seen  # unreadable for now: keep what is known
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _fresh(self) -> None:
        """Read the file again when something else rewrote it (``belote-table pin
        reset``, run at the Pi while the service runs). Called with the lock held."""
        stamp = self._stamp()
        if stamp == self._seen or self.path is None:
            return
        self._pins = {}
        if stamp is not None:
            self._load(self.path)
        self._seen = self._stamp()
        log.warning("PIN file %s changed on disk: read again (%d games with a PIN)",
                    self.path, len(self._pins))

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            pins = data.get("pins") if data.get("version") == 2 else data
            if not isinstance(pins, dict):
                raise ValueError("no 'pins' object")
        except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeError too
            aside = _set_aside(path)
            log.error("PIN file %s unreadable (%s): set aside as %s; a new PIN will be "
                      "made and shown on the score display", path, exc, aside.name)
            self.problem = "pin_file"
            return
        migrated = False
        for game, value in pins.items():
            if isinstance(value, str):
                # A file from before the hashes: the plain PIN is hashed and dropped.
                self._pins[str(game)] = hash_pin(value)
                migrated = True
            elif isinstance(value, dict) and value.get("kdf") == "scrypt":
                self._pins[str(game)] = value
            else:
                log.error("PIN file %s: game %s has no usable PIN; a new one will be made",
                          path, game)
        if migrated:
            self._save()
            log.info("PIN file %s: plain PINs replaced by their scrypt hashes", path)

    def _save(self) -> None:
        if self.path is not None:
            try:
                write_atomically(self.path, json.dumps({"version": 2, "pins": self._pins}))
            except OSError as exc:
                # A full disk or a read-only folder: the PIN holds in memory and
                # is written at the next change once the disk takes it.
                log.error("PIN file %s cannot be written (%s): kept in memory", self.path, exc)
                self.unsaved = True
                return
            self.unsaved = False
            self._seen = self._stamp()

    def has(self, game_id: Any) -> bool:
        with self._lock:
            self._fresh()
            return str(game_id) in self._pins

    def fingerprint(self, game_id: Any) -> str:
        """Changes whenever the game's PIN does (its hash; "" with none)."""
        with self._lock:
            self._fresh()
            return str(self._pins.get(str(game_id), {}).get("hash", ""))

    def check(self, game_id: Any, pin: str) -> bool:
        with self._lock:
            self._fresh()
            stored = self._pins.get(str(game_id))
        return stored is not None and _pin_ok(stored, pin)

    def copy(self, from_game: Any, to_game: Any) -> bool:
        """Give ``to_game`` the PIN of ``from_game`` (its hash: the PIN itself
        is not kept). False when ``from_game`` has none."""
        with self._lock:
            self._fresh()
            record = self._pins.get(str(from_game))
            if record is None:
                return False
            self._pins[str(to_game)] = dict(record)
            self._save()
        return True

    def set(self, game_id: Any, pin: str) -> None:
        record = hash_pin(pin)
        with self._lock:
            self._fresh()
            self._pins[str(game_id)] = record
            self._save()


ACCESS_SCHEMA = """
CREATE TABLE IF NOT EXISTS pin_attempts (
    game_id TEXT PRIMARY KEY, failures INTEGER NOT NULL, lockouts INTEGER NOT NULL,
    locked_until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, game_id TEXT NOT NULL, author TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _memory_on_fault(method: Callable[..., T]) -> Callable[..., T]:
    """A write the disk refuses (full, read-only) moves the book to memory
    (``AccessBook._to_memory``) and is made there: a full disk never stops
    an organiser logging in or a PIN being counted."""
    @functools.wraps(method)
    def guarded(self: AccessBook, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            from companion.store import fault_kind

            if self.path is None or fault_kind(exc, self.path) is None:
                raise
            self._to_memory(exc)
            return method(self, *args, **kwargs)
    return guarded


class AccessBook:
    """Failed PIN attempts per table, organisers' sessions and the cookie
    signing key, in a small SQLite file (in memory without one, or once the
    disk refuses to write it)."""

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.time,
                 max_failures: int = 5, lockout_s: float = 60.0) -> None:
        self.path = path
        self.clock = clock
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self._lock = threading.Lock()
        self.problem: str | None = None
        try:
            self._db = self._open()
        except (OSError, sqlite3.OperationalError) as exc:
            # A read-only folder or a full disk: the table starts anyway, its
            # attempts and sessions kept in memory until the next start.
            log.error("access file %s cannot be written (%s): kept in memory", path, exc)
            self.problem = "access_unsaved"
            self.path = None
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            assert path is not None  # an in-memory database cannot be corrupt
            aside = _set_aside(path)
            log.error("access file %s unreadable (%s): set aside as %s; organisers log "
                      "in again", path, exc, aside.name)
            self.problem = "access_file"
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(":memory:" if self.path is None else str(self.path),
                             isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 5000")
            db.executescript(ACCESS_SCHEMA)
            if self.path is not None:
                os.chmod(self.path, 0o600)
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _to_memory(self, exc: BaseException) -> None:
        """Go on in memory with everything the file holds (SQLite's backup
        reads only), after the disk refused a write."""
        with self._lock:
            if self.path is None:
                return
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._db.backup(memory)
            self._db.close()
            self._db = memory
            log.error("access file %s cannot be written (%s): kept in memory", self.path, exc)
            self.path = None
            self.problem = "access_unsaved"

    @_memory_on_fault
    def secret_key(self) -> str:
        """The key that signs session cookies, made once and kept."""
        with self._lock:
            row = self._db.execute("SELECT value FROM secrets WHERE name='cookie'").fetchone()
            if row:
                return str(row[0])
            key = secrets.token_hex(32)
            self._db.execute("INSERT INTO secrets VALUES ('cookie', ?)", (key,))
            return key

    # -- attempts ---------------------------------------------------------------------

    def _row(self, game_id: str) -> tuple[int, int, float]:
        row = self._db.execute("SELECT failures, lockouts, locked_until FROM pin_attempts "
                               "WHERE game_id=?", (game_id,)).fetchone()
        return (int(row[0]), int(row[1]), float(row[2])) if row else (0, 0, 0.0)

    def _put(self, game_id: str, failures: int, lockouts: int, until: float) -> None:
        self._db.execute("INSERT OR REPLACE INTO pin_attempts VALUES (?, ?, ?, ?)",
                         (game_id, failures, lockouts, until))

    def locked_for(self, game_id: Any) -> float:
        """Seconds this table still refuses every PIN (0: it listens)."""
        with self._lock:
            _, _, until = self._row(str(game_id))
        return max(0.0, until - self.clock())

    @_memory_on_fault
    def admit(self, game_id: Any) -> float:
        """Let one PIN be checked, or not: the lockout is read and the attempt
        counted (as a failure, cleared by ``succeeded``) in one step, one
        SQLite write transaction, so that neither threads nor another process
        on the same file can slip guesses in between. Returns the seconds the
        table still refuses every PIN (nothing counted) or 0 (counted: check it)."""
        key = str(game_id)
        with self._lock, self._immediate():
            _, _, until = self._row(key)
            left = until - self.clock()
            if left > 0:
                return left
            self._count(key)
        return 0.0

    def _immediate(self) -> contextlib.AbstractContextManager[None]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``)."""
        @contextlib.contextmanager
        def transaction() -> Iterator[None]:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return transaction()

    def _count(self, key: str) -> None:
        """Count one PIN tried; the last one allowed starts a lockout."""
        failures, lockouts, until = self._row(key)
        failures += 1
        if failures >= self.max_failures:
            wait = min(MAX_LOCKOUT_S, self.lockout_s * 2 ** lockouts)
            failures, lockouts, until = 0, lockouts + 1, self.clock() + wait
            log.warning("table (game %s): %d PINs tried, every PIN refused for %.0f s",
                        key, self.max_failures, wait)
        self._put(key, failures, lockouts, until)

    @_memory_on_fault
    def succeeded(self, game_id: Any) -> None:
        with self._lock:
            self._db.execute("DELETE FROM pin_attempts WHERE game_id=?", (str(game_id),))

    @_memory_on_fault
    def forget_everyone(self) -> None:
        """No failed attempts, no sessions (``belote-table pin reset``)."""
        with self._lock, self._immediate():
            self._db.execute("DELETE FROM pin_attempts")
            self._db.execute("DELETE FROM sessions")

    # -- sessions ---------------------------------------------------------------------

    @_memory_on_fault
    def open_session(self, game_id: Any, author: str) -> str:
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        with self._lock:
            # Sessions live as long as their cookie (Flask's 31 days) at most.
            self._db.execute("DELETE FROM sessions WHERE created < ?", (now - SESSION_S,))
            self._db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)",
                             (sid, str(game_id), author, now))
        return sid

    def session(self, sid: Any, game_id: Any) -> str | None:
        """The author of a live session for this game, or None."""
        if not isinstance(sid, str) or not sid:
            return None
        with self._lock:
            row = self._db.execute("SELECT author FROM sessions WHERE id=? AND game_id=? "
                                   "AND created >= ?",
                                   (sid, str(game_id), self.clock() - SESSION_S)).fetchone()
        return str(row[0]) if row else None

    @_memory_on_fault
    def close_session(self, sid: Any) -> None:
        if isinstance(sid, str):
            with self._lock:
                self._db.execute("DELETE FROM sessions WHERE id=?", (sid,))


def pin_files(db: Path | str) -> tuple[Path, Path]:
    """The PIN file and the access file kept beside the event store ``db``."""
    pin_file = Path(str(db) + ".pins.json")
    return pin_file, pin_file.with_suffix(".sqlite")


def _default_pin_file(app: Flask) -> Path | None:
    if app.config.get("PIN_FILE"):
        return Path(app.config["PIN_FILE"])
    store = getattr(app.config["SERVICE"], "store", None)
    db = getattr(store, "path", None)
    if db is None or str(db) == ":memory:":
        return None
    return pin_files(db)[0]


class GuardedPin:
    """One PIN under the table's rules, for the club's organiser: kept as a
    scrypt hash in the PIN file beside ``db`` (as ``name``), checked behind the
    same lockout (``PIN_MAX_FAILURES`` wrong PINs, then every PIN refused for a
    while, doubling; counted before it is checked), kept across restarts.
    ``db`` None: in memory only."""

    def __init__(self, db: Path | str | None, name: str = "organiser", max_failures: int = 5,
                 lockout_s: float = 60.0) -> None:
        pin_file, access_file = (None, None) if db is None or str(db) == ":memory:" \
            else pin_files(db)
        self.name = name
        self.pins = PinBook(pin_file)
        self.attempts = AccessBook(access_file, max_failures=max_failures,
                                   lockout_s=lockout_s)

    def has(self) -> bool:
        return self.pins.has(self.name)

    def set(self, pin: str) -> None:
        """Keep ``pin`` (its hash; the PIN itself is not kept)."""
        self.pins.set(self.name, pin)

    def check(self, pin: Any) -> bool:
        """Is ``pin`` the PIN? Raises ``PinLocked`` while every PIN is refused."""
        if not isinstance(pin, str) or not self.has():
            return False
        left = self.attempts.admit(self.name)
        if left > 0:
            raise PinLocked(left)
        if self.pins.check(self.name, pin.strip()):
            self.attempts.succeeded(self.name)
            return True
        return False

    def close(self) -> None:
        self.attempts.close()


def reset_table_pin(db: Path | str, open_game: Any = None) -> str | None:
    """``belote-table pin reset``, at the Pi: forget every game's PIN, the
    failed attempts and the organisers' sessions, so that the table is nobody's
    until a game is started with a new PIN. A game still open (``open_game``)
    gets a new PIN at once, returned to be read at the Pi. A service running on
    these files sees it at its next request (the PIN file is read again)."""
    pin_file, access_file = pin_files(db)
    book = PinBook(pin_file)
    new = None
    with book._lock:
        book._pins = {}
        if open_game is not None:
            new = f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"
            book._pins[str(open_game)] = hash_pin(new)
        book._save()
    if access_file.exists():
        accesses = AccessBook(access_file)
        try:
            accesses.forget_everyone()
        finally:
            accesses.close()
    return new


def init_app(app: Flask, keep_secret_key: bool = False) -> None:
    """Attach the PIN book and the access book; unless the config gave one,
    sign cookies with the key kept in the access book (sessions survive restarts)."""
    pin_file = _default_pin_file(app)
    app.extensions["belote_pins"] = PinBook(pin_file)
    access_file = None if pin_file is None else pin_file.with_suffix(".sqlite")
    book = AccessBook(access_file, max_failures=int(app.config["PIN_MAX_FAILURES"]),
                      lockout_s=float(app.config["PIN_LOCKOUT_S"]))
    app.extensions["belote_access"] = book
    app.extensions["belote_pin_cache"] = set()
    if not keep_secret_key:
        app.config["SECRET_KEY"] = book.secret_key()
    # An open game without a PIN (started by `run`, or its PIN file lost) gets
    # one now, on the score display, rather than at the first change asked.
    with app.app_context():
        ensure_pin()


def service() -> Any:
    return current_app.config["SERVICE"]


def pins() -> PinBook:
    book: PinBook = current_app.extensions["belote_pins"]
    return book


def book() -> AccessBook:
    found: AccessBook = current_app.extensions["belote_access"]
    return found


def problems() -> list[str]:
    """What went wrong reading the PIN and access files, for the organiser's page."""
    out = []
    if pins().problem or book().problem == "access_file":
        out.append(_("The table's PIN file could not be read: it was set aside and a new "
                     "PIN was shown on the score display."))
    if pins().unsaved or book().problem == "access_unsaved":
        out.append(_("The disk refuses to write the table's PIN and sessions: they hold in "
                     "memory until the table restarts (see the message about the disk)."))
    return out


def ensure_pin() -> None:
    """Give the open game a PIN if it has none (a game started elsewhere, or a
    PIN file lost): the app config's ``PIN``, or one made up, logged and shown
    on the score display, where only people at the table can read it."""
    game_id = service().game_id
    if game_id is None or pins().has(game_id):
        return
    given = current_app.config.get("PIN")
    pin = str(given) if given else f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"
    pins().set(game_id, pin)
    if not given:
        # Not logged: the PIN is read on the display, at the table.
        log.warning("game %s had no PIN: made one up, shown on the score display", game_id)
        service().bus.publish("display", {"kind": "show_pin", "pin": pin})


def table_game() -> Any:
    """The game whose PIN guards the table: the open game or, with none open
    (a game finished, then the service restarted), the latest game that has a
    PIN. None only on a table never given one, or after ``belote-table pin
    reset``: then anyone may start a game, and its PIN becomes the table's."""
    game_id = service().game_id
    if game_id is not None:
        return game_id
    known = pins()
    for row in reversed(service().store.games()):
        if known.has(row["id"]):
            return row["id"]
    return None


def needs_pin() -> bool:
    """Does a change (a new game included) need the table's PIN?"""
    return table_game() is not None


def check_pin(pin: Any) -> bool:
    """Is ``pin`` the table's PIN (``table_game``'s)? Counts a wrong one against
    the table; raises ``PinLocked`` while the table refuses every PIN."""
    ensure_pin()
    game_id = table_game()
    if game_id is None or not isinstance(pin, str):
        return False
    accesses = book()
    pin = pin.strip()
    key = str(current_app.config["SECRET_KEY"]).encode()
    # The PIN's hash is in the key: a PIN reset or changed is no longer remembered.
    said = f"{game_id}:{pins().fingerprint(game_id)}:{pin}"
    remembered = hmac.new(key, said.encode(), hashlib.sha256).hexdigest()
    cache: set[str] = current_app.extensions["belote_pin_cache"]
    if remembered in cache:
        # Known right: no guess is checked, but a locked table refuses it all the same.
        left = accesses.locked_for(game_id)
        if left > 0:
            raise PinLocked(left)
        accesses.succeeded(game_id)
        return True
    # Checked only once counted: a burst of guesses gets max_failures checks at most.
    left = accesses.admit(game_id)
    if left > 0:
        raise PinLocked(left)
    if pins().check(game_id, pin):
        cache.add(remembered)
        accesses.succeeded(game_id)
        return True
    return False


def _author(text: Any) -> str:
    return (str(text or "").strip()[:40]) or _("organiser")


def log_in(pin: str, author: str) -> bool:
    """Remember server-side that this browser knows the PIN (``PinLocked`` while locked)."""
    if not check_pin(pin):
        return False
    _open_session(table_game(), author)
    return True


def _open_session(game_id: Any, author: str) -> None:
    book().close_session(session.get("sid"))
    session["sid"] = book().open_session(game_id, _author(author))
    session.permanent = True


def log_out() -> None:
    book().close_session(session.pop("sid", None))


def keep_session(game_id: Any, author: str) -> None:
    """This browser, logged in to the last game, stays logged in to ``game_id``
    (a new game with the same PIN)."""
    _open_session(game_id, author)


def remember_new_game(game_id: Any, pin: str, author: str, previous: Any = None) -> None:
    """The new game's PIN (``pin``, or with none given the table's, from the
    ``previous`` table game) and this browser logged in to it."""
    set_new_game_pin(game_id, pin, previous)
    _open_session(game_id, author)


def set_new_game_pin(game_id: Any, pin: str, previous: Any) -> None:
    """A new game gets the PIN chosen with it, or keeps the table's."""
    if pin or previous is None or not pins().copy(previous, game_id):
        pins().set(game_id, pin)


def session_author() -> str | None:
    game_id = table_game()
    if game_id is None:
        return None
    return book().session(session.get("sid"), game_id)


def logged_in() -> bool:
    return session_author() is not None


def authorise() -> str:
    """Allow a change, or raise ``AccessDenied`` (403) or ``PinLocked`` (429).
    Returns who is making it.

    On a table without a PIN (none yet, or reset at the Pi), anyone may start a
    game (and set its PIN); a table that has one keeps it from game to game and
    across restarts, and every new game needs it.
    """
    if not needs_pin():
        return str(request.headers.get("X-Author") or _author(None))[:40]
    header = request.headers.get(PIN_HEADER)
    if header is not None:
        if not check_pin(header):
            raise AccessDenied(_("wrong PIN"))
        return str(request.headers.get("X-Author") or "api")[:40]
    author = session_author()
    if author is not None:
        # A cookie rides along on cross-site requests: insist on the CSRF token.
        current_app.extensions["belote_csrf"].protect()
        return author
    raise AccessDenied(_("this change needs the table's PIN"))
