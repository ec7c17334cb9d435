"""The club server's SQLite file: every table's events as the tables sent
them, the players kept across evenings, the concours, their teams and rounds.

Numbered migrations (``club/migrations``, ``PRAGMA user_version``)
as in the table's store. Events go in by batches, one transaction each, only
as the next ``seq`` of their table: a duplicate or an event out of order
changes nothing (``club.server`` decides, this file keeps).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.store import immediate, migrate

MIGRATIONS = Path(__file__).with_name("migrations")


class ClubStoreError(ValueError):
    """Bad input (unknown player, team, concours...) or a file the club cannot use.
    Nothing was written."""


@dataclass(frozen=True)
class ClubEvent:
    """One table's event as the club keeps it (the published form)."""

    table: int
    seq: int
    game_id: int
    game_seq: int
    hand_no: int | None
    event: dict[str, Any]
    source: str
    ts: float
    confidence: float | None
    author: str | None

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "seq": self.seq, "game_id": self.game_id,
                "game_seq": self.game_seq, "event": self.event, "source": self.source,
                "ts": self.ts, "confidence": self.confidence, "author": self.author,
                "hand_no": self.hand_no}


_EVENT_COLS = "table_no, seq, game_id, game_seq, hand_no, data, source, ts, confidence, author"


def _club_event(row: tuple[Any, ...]) -> ClubEvent:
    table, seq, game_id, game_seq, hand_no, data, source, ts, confidence, author = row
    return ClubEvent(table, seq, game_id, game_seq, hand_no, json.loads(data), source, ts,
                     confidence, author)


class ClubStore:
    """The club's file. Thread-safe: one connection behind one lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 5000")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.Error as exc:
            raise ClubStoreError(f"{self.path}: cannot use the club's file: {exc}") from None

    @property
    def version(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        migrate(self._db, self._lock, MIGRATIONS, ClubStoreError, self.path)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with immediate(self._db, self._lock) as db:
            yield db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- tables and their events ----------------------------------------------------------

    def add_tables(self, numbers: list[int]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO club_tables (table_no) VALUES (?)",
                           [(n,) for n in numbers])

    def tables(self) -> dict[int, int]:
        """Every known table and the last ``seq`` stored from it."""
        return dict(self.query("SELECT table_no, last_seq FROM club_tables ORDER BY table_no"))

    def store_events(self, events: list[ClubEvent], now: float) -> None:
        """Store events, each the next of its table (the caller checked), in one
        transaction."""
        if not events:
            return
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO events (table_no, seq, game_id, game_seq, hand_no, type, data,"
                " source, ts, confidence, author, received) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(e.table, e.seq, e.game_id, e.game_seq, e.hand_no, e.event["type"],
                  json.dumps(e.event, sort_keys=True), e.source, e.ts, e.confidence,
                  e.author, now) for e in events])
            last: dict[int, int] = {}
            for e in events:
                last[e.table] = e.seq
            for table, seq in last.items():
                cur = db.execute("UPDATE club_tables SET last_seq = ? WHERE table_no = ?"
                                 " AND last_seq < ?", (seq, table, seq))
                if cur.rowcount != 1:
                    raise ClubStoreError(f"table {table}: seq {seq} is not after the last")

    def event_at(self, table: int, seq: int) -> ClubEvent | None:
        rows = self.query(f"SELECT {_EVENT_COLS} FROM events WHERE table_no = ? AND seq = ?",
                          (table, seq))
        return _club_event(rows[0]) if rows else None

    def table_events(self, table: int) -> list[ClubEvent]:
        rows = self.query(f"SELECT {_EVENT_COLS} FROM events WHERE table_no = ? ORDER BY seq",
                          (table,))
        return [_club_event(r) for r in rows]

    def game_events(self, table: int, game_id: int) -> list[ClubEvent]:
        rows = self.query(f"SELECT {_EVENT_COLS} FROM events WHERE table_no = ? AND game_id = ?"
                          " ORDER BY game_seq", (table, game_id))
        return [_club_event(r) for r in rows]

    def games(self) -> list[dict[str, Any]]:
        """Every table game the club holds: table, game_id, author (of its start), events."""
        rows = self.query(
            "SELECT table_no, game_id, MAX(CASE WHEN game_seq = 0 THEN author END),"
            " MIN(ts), MAX(ts), COUNT(*) FROM events GROUP BY table_no, game_id"
            " ORDER BY table_no, game_id")
        keys = ("table", "game_id", "author", "started", "last", "events")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def received_times(self) -> list[tuple[int, int, float, float]]:
        """(table, seq, table's ts, club's received) of every event (benchmark)."""
        return self.query("SELECT table_no, seq, ts, received FROM events")

    # -- players ------------------------------------------------------------------------

    def add_player(self, name: str) -> int:
        name = _clean_name(name, "player")
        with self.transaction() as db:
            row = db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
            if row:
                return int(row[0])
            cur = db.execute("INSERT INTO players (name, created) VALUES (?, ?)",
                             (name, time.time()))
            return int(cur.lastrowid or 0)

    def players(self) -> list[dict[str, Any]]:
        return [{"id": i, "name": n} for i, n in
                self.query("SELECT id, name FROM players ORDER BY name COLLATE NOCASE")]

    # -- concours -----------------------------------------------------------------------

    def new_concours(self, name: str, rounds: int, hands: int | None, target: int | None,
                     minutes: int | None, rules: str, ranking: str, draw: str,
                     seed: int) -> int:
        name = _clean_name(name, "concours")
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO concours (name, created, rounds, hands, target, minutes, rules,"
                " ranking, draw, seed) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (name, time.time(), rounds, hands, target, minutes, rules, ranking, draw, seed))
            return int(cur.lastrowid or 0)

    def concours(self, concours_id: int) -> dict[str, Any]:
        rows = self.query("SELECT id, name, created, rounds, hands, target, minutes, rules,"
                          " ranking, draw, seed, current FROM concours WHERE id = ?",
                          (concours_id,))
        if not rows:
            raise ClubStoreError(f"no concours {concours_id}")
        keys = ("id", "name", "created", "rounds", "hands", "target", "minutes", "rules",
                "ranking", "draw", "seed", "current")
        return dict(zip(keys, rows[0], strict=True))

    def all_concours(self) -> list[dict[str, Any]]:
        return [self.concours(i) for (i,) in self.query("SELECT id FROM concours ORDER BY id")]

    def set_ranking(self, concours_id: int, ranking: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE concours SET ranking = ? WHERE id = ?", (ranking, concours_id))

    def add_team(self, concours_id: int, name: str, player1: int, player2: int) -> int:
        name = _clean_name(name, "team")
        if player1 == player2:
            raise ClubStoreError(f"team {name!r}: two different players, please")
        with self.transaction() as db:
            if db.execute("SELECT current FROM concours WHERE id = ?",
                          (concours_id,)).fetchone() != (0,):
                raise ClubStoreError(f"concours {concours_id}: no team can join once it has "
                                     "started (or there is no such concours)")
            used = db.execute("SELECT name FROM teams WHERE concours_id = ? AND (player1 IN"
                              " (?, ?) OR player2 IN (?, ?))",
                              (concours_id, player1, player2, player1, player2)).fetchone()
            if used:
                raise ClubStoreError(f"team {name!r}: a player already plays in {used[0]!r}")
            try:
                cur = db.execute("INSERT INTO teams (concours_id, name, player1, player2)"
                                 " VALUES (?,?,?,?)", (concours_id, name, player1, player2))
            except sqlite3.IntegrityError as exc:
                why = ("this concours already has a team of that name" if "UNIQUE" in str(exc)
                       else "no such player or concours" if "FOREIGN KEY" in str(exc)
                       else str(exc))
                raise ClubStoreError(f"team {name!r}: {why}") from None
            return int(cur.lastrowid or 0)

    def teams(self, concours_id: int) -> list[dict[str, Any]]:
        rows = self.query(
            "SELECT t.id, t.name, p1.id, p1.name, p2.id, p2.name FROM teams t"
            " JOIN players p1 ON p1.id = t.player1 JOIN players p2 ON p2.id = t.player2"
            " WHERE t.concours_id = ? ORDER BY t.id", (concours_id,))
        return [{"id": i, "name": n, "players": [{"id": a, "name": an}, {"id": b, "name": bn}]}
                for i, n, a, an, b, bn in rows]

    def start_round(self, concours_id: int, round_no: int,
                    assignments: list[tuple[int, int, int]], now: float) -> list[int]:
        """Record round ``round_no``'s (table, team NS, team EW); return the match ids."""
        with self.transaction() as db:
            cur = db.execute("UPDATE concours SET current = ? WHERE id = ? AND current = ?",
                             (round_no, concours_id, round_no - 1))
            if cur.rowcount != 1:
                raise ClubStoreError(f"concours {concours_id}: round {round_no} cannot start now")
            ids = []
            for table, ns, ew in assignments:
                c = db.execute("INSERT INTO matches (concours_id, round, table_no, team_ns,"
                               " team_ew, sent) VALUES (?,?,?,?,?,?)",
                               (concours_id, round_no, table, ns, ew, now))
                ids.append(int(c.lastrowid or 0))
            return ids

    def matches(self, concours_id: int) -> list[dict[str, Any]]:
        rows = self.query("SELECT id, round, table_no, team_ns, team_ew, sent FROM matches"
                          " WHERE concours_id = ? ORDER BY round, table_no", (concours_id,))
        keys = ("id", "round", "table", "team_ns", "team_ew", "sent")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def match(self, match_id: int) -> dict[str, Any] | None:
        rows = self.query("SELECT id, concours_id, round, table_no, team_ns, team_ew, sent"
                          " FROM matches WHERE id = ?", (match_id,))
        keys = ("id", "concours_id", "round", "table", "team_ns", "team_ew", "sent")
        return dict(zip(keys, rows[0], strict=True)) if rows else None


def _clean_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ClubStoreError(f"a {what} needs a name")
    text = " ".join(name.split())
    if len(text) > 60:
        raise ClubStoreError(f"{what} name {text[:20]!r}...: 60 characters at most")
    return text
