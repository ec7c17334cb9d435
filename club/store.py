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

    def own_tables(self) -> list[int]:
        """The club's tables (a second store kept under another number excepted):
        the ones a concours seats teams at."""
        return [n for (n,) in self.query("SELECT table_no FROM club_tables"
                                         " WHERE topic_no IS NULL ORDER BY table_no")]

    def origins(self) -> dict[int, str | None]:
        """Each club table's store identity (None: not known yet)."""
        return dict(self.query("SELECT table_no, origin FROM club_tables"))

    def topic_numbers(self) -> dict[int, int]:
        """Club table -> the table number its Pi publishes as, for the events of a
        second store kept under another number."""
        return dict(self.query("SELECT table_no, topic_no FROM club_tables"
                               " WHERE topic_no IS NOT NULL"))

    def set_origin(self, table: int, origin: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE club_tables SET origin = ? WHERE table_no = ? AND origin IS NULL",
                       (origin, table))

    # -- mix-ups: events of another store on a table's topic -----------------------------

    def add_strays(self, rows: list[tuple[int, str, int, bytes]], now: float) -> list[int]:
        """Keep (topic table, origin, seq, payload) rows as they came (a row
        already kept stays); a new mix-up is recorded for a new (table, origin).
        Returns the ids of the mix-ups recorded now."""
        new: list[int] = []
        with self.transaction() as db:
            for topic, origin, seq, payload in rows:
                db.execute("INSERT OR IGNORE INTO strays (topic_no, origin, seq, payload,"
                           " received) VALUES (?,?,?,?,?)",
                           (topic, origin, seq, payload.decode("utf-8", "replace"), now))
                cur = db.execute("INSERT OR IGNORE INTO mixups (topic_no, origin, seen)"
                                 " VALUES (?,?,?)", (topic, origin, now))
                if cur.rowcount == 1:
                    new.append(int(cur.lastrowid or 0))
        return new

    def strays(self, topic: int, origin: str) -> list[tuple[int, bytes]]:
        """(seq, payload) kept from one store on table ``topic``'s topic, in order."""
        return [(q, p.encode("utf-8")) for q, p in self.query(
            "SELECT seq, payload FROM strays WHERE topic_no = ? AND origin = ? ORDER BY seq",
            (topic, origin))]

    def stray_count(self, topic: int, origin: str) -> tuple[int, int]:
        """(events kept, the last seq with none missing before it) of one store."""
        seqs = [q for (q,) in self.query("SELECT seq FROM strays WHERE topic_no = ? AND"
                                         " origin = ? ORDER BY seq", (topic, origin))]
        whole = 0
        for q in seqs:
            if q != whole + 1:
                break
            whole = q
        return len(seqs), whole

    def mixups(self) -> list[dict[str, Any]]:
        rows = self.query("SELECT id, topic_no, origin, seen, decision, decided, table_no"
                          " FROM mixups ORDER BY id")
        keys = ("id", "topic", "origin", "seen", "decision", "decided", "table")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def decide_mixup(self, mixup_id: int, decision: str, now: float,
                     table: int | None = None) -> dict[str, Any]:
        """The organiser's decision on a mix-up: ``keep`` its store's events as
        club table ``table`` (a number no table has), or ``set-aside`` (they stay
        kept apart). Returns the mix-up."""
        if decision not in ("keep", "set-aside"):
            raise ClubStoreError(f"decision {decision!r} is not keep or set-aside")
        with self.transaction() as db:
            row = db.execute("SELECT topic_no, origin, decision FROM mixups WHERE id = ?",
                             (mixup_id,)).fetchone()
            if row is None:
                raise ClubStoreError(f"no mix-up {mixup_id}")
            if row[2] == "keep":
                raise ClubStoreError(f"mix-up {mixup_id} was decided already")
            if decision == "keep":
                if isinstance(table, bool) or not isinstance(table, int) or not (
                        1 <= table <= 999):
                    raise ClubStoreError(f"table number {table!r}: a whole number from 1 to 999")
                if db.execute("SELECT 1 FROM club_tables WHERE table_no = ?",
                              (table,)).fetchone():
                    raise ClubStoreError(f"table {table} exists already: choose a free number")
                db.execute("INSERT INTO club_tables (table_no, origin, topic_no) VALUES (?,?,?)",
                           (table, row[1], row[0]))
            db.execute("UPDATE mixups SET decision = ?, decided = ?, table_no = ? WHERE id = ?",
                       (decision, now, table if decision == "keep" else None, mixup_id))
        return next(m for m in self.mixups() if m["id"] == mixup_id)

    def last_received(self, table: int) -> float | None:
        rows = self.query("SELECT MAX(received) FROM events WHERE table_no = ?", (table,))
        return rows[0][0] if rows else None

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
        """Every table game the club holds: table, game_id, author (of its start), events,
        its first and last event by the table's clock (``started``, ``last``) and when
        the club stored its last (``received``, the club's clock)."""
        rows = self.query(
            "SELECT table_no, game_id, MAX(CASE WHEN game_seq = 0 THEN author END),"
            " MIN(ts), MAX(ts), COUNT(*), MAX(received) FROM events"
            " GROUP BY table_no, game_id ORDER BY table_no, game_id")
        keys = ("table", "game_id", "author", "started", "last", "events", "received")
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
                     seed: int, bye_points: int = 0) -> int:
        name = _clean_name(name, "concours")
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO concours (name, created, rounds, hands, target, minutes, rules,"
                " ranking, draw, seed, bye_points) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (name, time.time(), rounds, hands, target, minutes, rules, ranking, draw, seed,
                 bye_points))
            return int(cur.lastrowid or 0)

    def concours(self, concours_id: int) -> dict[str, Any]:
        rows = self.query("SELECT id, name, created, rounds, hands, target, minutes, rules,"
                          " ranking, draw, seed, current, bye_points FROM concours WHERE id = ?",
                          (concours_id,))
        if not rows:
            raise ClubStoreError(f"no concours {concours_id}")
        keys = ("id", "name", "created", "rounds", "hands", "target", "minutes", "rules",
                "ranking", "draw", "seed", "current", "bye_points")
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

    def _before_first_round(self, db: sqlite3.Connection, concours_id: int, team_id: int,
                            name: str) -> None:
        row = db.execute("SELECT c.current FROM teams t JOIN concours c ON c.id = t.concours_id"
                         " WHERE t.id = ? AND t.concours_id = ?",
                         (team_id, concours_id)).fetchone()
        if row is None:
            raise ClubStoreError(f"concours {concours_id} has no team {team_id}")
        if row[0] != 0 or db.execute("SELECT 1 FROM matches WHERE team_ns = ? OR team_ew = ?",
                                     (team_id, team_id)).fetchone():
            raise ClubStoreError(f"team {name!r} has played a round already: it stays as it is")

    def rename_team(self, concours_id: int, team_id: int, name: str) -> None:
        """A team's new name, before its first round."""
        name = _clean_name(name, "team")
        with self.transaction() as db:
            self._before_first_round(db, concours_id, team_id, name)
            try:
                db.execute("UPDATE teams SET name = ? WHERE id = ?", (name, team_id))
            except sqlite3.IntegrityError:
                raise ClubStoreError(f"team {name!r}: this concours already has a team of "
                                     "that name") from None

    def remove_team(self, concours_id: int, team_id: int) -> None:
        """Take a team out of the concours, before its first round (its players
        stay the club's)."""
        with self.transaction() as db:
            self._before_first_round(db, concours_id, team_id, str(team_id))
            db.execute("DELETE FROM teams WHERE id = ?", (team_id,))

    def teams(self, concours_id: int) -> list[dict[str, Any]]:
        rows = self.query(
            "SELECT t.id, t.name, p1.id, p1.name, p2.id, p2.name FROM teams t"
            " JOIN players p1 ON p1.id = t.player1 JOIN players p2 ON p2.id = t.player2"
            " WHERE t.concours_id = ? ORDER BY t.id", (concours_id,))
        return [{"id": i, "name": n, "players": [{"id": a, "name": an}, {"id": b, "name": bn}]}
                for i, n, a, an, b, bn in rows]

    def start_round(self, concours_id: int, round_no: int,
                    assignments: list[tuple[int, int, int | None]], now: float) -> list[int]:
        """Record round ``round_no``'s (table, team NS, team EW); return the match ids.
        An exempt team is (0, team, None)."""
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


    # -- results entered by hand --------------------------------------------------------

    def add_manual_result(self, match_id: int, points_ns: int, points_ew: int,
                          now: float) -> None:
        """The organiser's result of a match (its table could not send it); the
        latest entry counts, earlier ones stay."""
        for points in (points_ns, points_ew):
            if isinstance(points, bool) or not isinstance(points, int) or not (
                    0 <= points <= 100_000):
                raise ClubStoreError(f"points {points!r}: a whole number from 0")
        with self.transaction() as db:
            row = db.execute("SELECT team_ew FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None:
                raise ClubStoreError(f"no match {match_id}")
            if row[0] is None:
                raise ClubStoreError(f"match {match_id} is a bye: it has no result to enter")
            db.execute("INSERT INTO manual_results (match_id, points_ns, points_ew, entered)"
                       " VALUES (?,?,?,?)", (match_id, points_ns, points_ew, now))

    def manual_results(self, concours_id: int) -> dict[int, dict[str, Any]]:
        """The latest hand-entered result of each match of the concours, by match id."""
        rows = self.query(
            "SELECT r.match_id, r.points_ns, r.points_ew, r.entered FROM manual_results r"
            " JOIN matches m ON m.id = r.match_id WHERE m.concours_id = ? ORDER BY r.id",
            (concours_id,))
        return {m: {"NS": ns, "EW": ew, "entered": t} for m, ns, ew, t in rows}

    def game_received(self, table: int, game_id: int) -> list[tuple[int | None, float]]:
        """(hand_no, when the club stored it) of a game's events: the club's
        clock, which timed rounds go by."""
        return [(h, r) for h, r in self.query(
            "SELECT hand_no, received FROM events WHERE table_no = ? AND game_id = ?"
            " ORDER BY game_seq", (table, game_id))]


def _clean_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ClubStoreError(f"a {what} needs a name")
    text = " ".join(name.split())
    if len(text) > 60:
        raise ClubStoreError(f"{what} name {text[:20]!r}...: 60 characters at most")
    return text
