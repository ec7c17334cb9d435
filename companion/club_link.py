"""The table's link to the club server over MQTT (``belote-table run --club``).

The table's own SQLite store stays the truth. A publisher thread reads it
(its own read connection) and publishes every stored event, in the order
stored, QoS 1, on ``belote/<club>/table/<N>/events``; ``seq`` is the event's
position in the table's whole store (the events table's row id: the store
never deletes, so it runs 1, 2, 3... with no gap). The club server answers
on the retained ``ack`` topic with the last ``seq`` it stored; after a broker
restart, a Wi-Fi cut or a reboot the table sends again from there, so the
club gets every event once, in order. At most ``window`` events are in
flight beyond the last ack, so a table cut off for an evening holds no more
in memory than that. The table never waits on the club: the game goes on in
the service whatever the link does.

Each message also names the store it comes from (``origin``: a digest of
the store's first event, which never changes): a table whose store was
replaced, or two Pis set as the same table, then send under different
origins, and the club keeps each store's events apart rather than losing
them (``club.server``). The ack says the club's last ``seq`` for each store
it saw on the topic; a store it does not know sends from its first event.

The concours sends each table its next game on the retained ``next`` topic;
``apply_next_game`` starts it through the service's normal command, once
(the game's author, ``club:match:<id>``, says it was started already).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common.topics import check_club, check_table, parse_url, table_topic, table_user
from companion.i18n import _

log = logging.getLogger(__name__)

MATCH_AUTHOR = "club:match:"
ACK_WAIT = 1.0  # seconds a new connection waits for the club's ack before sending
CLOSING_FLUSH = 3.0  # seconds a closing table gives the club to confirm its last events


def event_payload(table: int, row: tuple[Any, ...]) -> dict[str, Any]:
    """The published form of one stored event row
    (rowid, game_id, seq, hand_no, data, source, ts, confidence, author)."""
    rowid, game_id, game_seq, hand_no, data, source, ts, confidence, author = row
    return {"table": table, "seq": rowid, "game_id": game_id, "game_seq": game_seq,
            "event": json.loads(data), "source": source, "ts": ts,
            "confidence": confidence, "author": author, "hand_no": hand_no}


def store_origin(db: sqlite3.Connection) -> str | None:
    """The store's identity the club tells stores apart by: a digest of its
    first event (its time to the microsecond and its content), which a store
    never changes; None while the store is empty."""
    row = db.execute("SELECT ts, data FROM events ORDER BY rowid LIMIT 1").fetchone()
    if row is None:
        return None
    return hashlib.sha256(f"{row[0]!r}|{row[1]}".encode()).hexdigest()[:16]


def read_events(db: sqlite3.Connection, after: int, limit: int) -> list[tuple[Any, ...]]:
    """Stored event rows with ``seq`` (row id) above ``after``, in order."""
    return db.execute(
        "SELECT rowid, game_id, seq, hand_no, data, source, ts, confidence, author"
        " FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, limit)).fetchall()


class ClubLink:
    """Publishes a table's store to the club; see the module's docstring.

    ``on_next`` is called (in the MQTT thread) with each game the club sends;
    ``wake`` (e.g. the service's bus subscription) lets the publisher send a
    new event at once instead of at its next poll.
    """

    def __init__(self, db_path: str | Path, url: str, table: int, password: str,
                 club: str = "club", user: str | None = None,
                 on_next: Callable[[dict[str, Any]], None] | None = None,
                 window: int = 50, resend_after: float = 5.0, poll: float = 0.5,
                 keepalive: int = 10) -> None:
        self.address = parse_url(url)
        self.table = check_table(table)
        self.club = check_club(club)
        self.db_path = str(db_path)
        self.window = window
        self.resend_after = resend_after
        self.poll = poll
        self.keepalive = keepalive
        self.on_next = on_next
        self.topic = table_topic(club, table, "events")
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.connected = False
        self.acked = 0  # last seq the club stored (its retained ack)
        self.sent = 0  # last seq handed to the MQTT client
        self.published = 0  # how many publishes in all (resends included)
        self._progress = time.monotonic()
        self._paused = False
        self._ack_seen = False  # the club's ack since this connection began
        self._warned_ahead = False
        self._connected_at = 0.0
        self.origin: str | None = None  # this store's identity (store_origin)
        self._last_ack: Any = None
        self._user = user or table_user(table)
        self._password = password
        self._client = self._make_client()
        self._thread = threading.Thread(target=self._run, name=f"club-link-{table}",
                                        daemon=True)

    def _make_client(self) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        # A client id of its own: two Pis set as the same table must not push
        # each other off the broker (the club then sees both and says so).
        client = mqtt.Client(CallbackAPIVersion.VERSION2,
                             client_id=f"belote-{self.club}-table{self.table}-"
                                       f"{secrets.token_hex(4)}",
                             clean_session=True)
        client.username_pw_set(self._user, self._password)
        client.will_set(table_topic(self.club, self.table, "status"), "offline", qos=1,
                        retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=3)
        client.max_inflight_messages_set(min(self.window, 100))
        client.max_queued_messages_set(self.window)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _connect(self) -> None:
        self._client.connect_async(self.address.host, self.address.port, self.keepalive)
        self._client.loop_start()

    def _drop_client(self) -> None:
        client = self._client
        client.disconnect()
        client.loop_stop()
        # loop_start's wake-up socket pair outlives loop_stop in paho 2: close it.
        client._reset_sockets()

    # -- life ---------------------------------------------------------------------------

    def start(self) -> ClubLink:
        self._connect()
        self._thread.start()
        return self

    def stop(self, flush: float = 0.0) -> None:
        """Stop; with ``flush``, first wait up to that many seconds for the club to
        confirm what the store holds (the evening's last events, at closing time)."""
        if flush > 0:
            self._flush(flush)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)
        with self._lock:
            paused = self._paused
        if not paused:
            self._drop_client()

    def _flush(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        try:
            db = sqlite3.connect(self.db_path, timeout=1)
            try:
                stored = _stored_max(db)
            finally:
                db.close()
        except sqlite3.Error:
            return
        while time.monotonic() < deadline:
            with self._lock:
                if self.acked >= stored or self._paused:
                    return
            self._wake.set()
            time.sleep(0.05)

    def notify(self) -> None:
        """A new event is stored: send it now."""
        self._wake.set()

    def pause(self) -> None:
        """Drop off the network (a Wi-Fi cut, for tests and the demo); the table
        goes on storing."""
        with self._lock:
            self._paused = True
            self.connected = False
        self._drop_client()

    def resume(self) -> None:
        with self._lock:
            self._paused = False
        self._client = self._make_client()
        self._connect()

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"connected": self.connected, "acked": self.acked, "sent": self.sent,
                    "published": self.published}

    # -- MQTT callbacks -------------------------------------------------------------------

    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any,
                    _props: Any) -> None:
        if reason.is_failure:
            log.warning(_("club link: table %s refused by the broker: %s"), self.table, reason)
            return
        client.subscribe([(table_topic(self.club, self.table, "ack"), 1),
                          (table_topic(self.club, self.table, "next"), 1)])
        client.publish(table_topic(self.club, self.table, "status"), "online", qos=1,
                       retain=True)
        with self._lock:
            self.connected = True
            # What was in flight may be lost with the old connection: from the ack again.
            self.sent = self.acked
            self._progress = self._connected_at = time.monotonic()
            self._ack_seen = False
        self._wake.set()

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, _reason: Any,
                       _props: Any) -> None:
        with self._lock:
            self.connected = False

    def _on_message(self, _client: Any, _userdata: Any, msg: Any) -> None:
        try:
            data = json.loads(msg.payload)
        except ValueError:
            log.warning(_("club link: unreadable message on %s"), msg.topic)
            return
        if msg.topic.endswith("/ack"):
            self._on_ack(data)
        elif msg.topic.endswith("/next") and self.on_next is not None and data:
            try:
                self.on_next(data)
            except ValueError as exc:
                log.warning(_("club link: next game refused: %s"), exc)
            except Exception:  # noqa: BLE001 - the link must outlive a failed start
                log.exception(_("club link: the club's next game could not be started"))

    def _on_ack(self, data: Any) -> None:
        self._last_ack = data
        data = self._own_ack(data)
        seq = data.get("seq") if isinstance(data, dict) else None
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            log.warning(_("club link: bad ack %r"), data)
            return
        with self._lock:
            self._ack_seen = True
            if seq != self.acked:
                self._progress = time.monotonic()
            if seq < self.acked or data.get("missing"):
                # The club lacks what follows its ack (it lost a message, or its
                # file is older than ours): send again from there.
                self.sent = seq
            self.acked = seq
            self.sent = max(self.sent, seq)
        self._wake.set()

    def _own_ack(self, data: Any) -> Any:
        """The part of the club's ack about this store: the whole ack when it
        names no store or this one, its ``others`` entry for this store, or
        ``seq`` 0 (the club holds nothing of it) for a store it does not name."""
        if not isinstance(data, dict) or self.origin is None:
            return data
        others = data.get("others")
        if isinstance(others, dict) and isinstance(others.get(self.origin), dict):
            # Named among the others (an older club file names no store of its own).
            return others[self.origin]
        if data.get("origin") in (None, self.origin):
            return data
        return {"seq": 0}

    # -- the publisher --------------------------------------------------------------------

    def _check_ahead(self, db: sqlite3.Connection, start: int) -> None:
        """Say it once when the club holds more of this table than its store does
        (a new store file on a table the club knew): what it stores now would
        be refused as a different copy of events the club has."""
        if start > 0 and not self._warned_ahead and _stored_max(db) < start:
            self._warned_ahead = True
            log.error(_("club link: the club holds %d events of table %d, this store fewer: "
                      "a new store needs a new table number (or a new club file)"), start,
                      self.table)

    def _run(self) -> None:
        db = sqlite3.connect(self.db_path, timeout=5)
        try:
            while not self._stop.is_set():
                self._wake.wait(self.poll)
                self._wake.clear()
                try:
                    self._send_some(db)
                except sqlite3.Error as exc:
                    log.warning(_("club link: reading the store: %s"), exc)
        finally:
            db.close()

    def _send_some(self, db: sqlite3.Connection) -> None:
        while not self._stop.is_set():
            with self._lock:
                if not self.connected or self._paused:
                    return
                now = time.monotonic()
                if not self._ack_seen and now - self._connected_at < ACK_WAIT:
                    # After a reboot the table knows no ack: the club's retained one
                    # comes within moments and saves sending what it holds already.
                    return
                if self.sent == self.acked:
                    self._progress = now  # nothing in flight: the ack clock starts now
                elif now - self._progress > self.resend_after:
                    log.info(_("club link: no ack for %.0f s, sending again from %d"),
                             now - self._progress, self.acked + 1)
                    self.sent = self.acked
                    self._progress = now
                start, room = self.sent, self.acked + self.window - self.sent
            if room <= 0:
                return
            if self.origin is None:
                self.origin = store_origin(db)
                if self.origin is None:
                    return  # nothing stored yet
                with self._lock:
                    # The ack seen before the store had its first event, read again.
                    last = self._last_ack
                if last is not None:
                    self._on_ack(last)
                continue
            rows = read_events(db, start, room)
            if not rows:
                self._check_ahead(db, start)
                return
            for row in rows:
                payload = json.dumps({**event_payload(self.table, row), "origin": self.origin},
                                     separators=(",", ":"))
                info = self._client.publish(self.topic, payload, qos=1)
                if info.rc != 0:
                    return  # not connected after all: from the ack at the next connection
                with self._lock:
                    if self.sent == start:
                        self.sent = row[0]
                    start = self.sent
                    self.published += 1


def _stored_max(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM events").fetchone()[0])


def apply_next_game(service: Any, data: dict[str, Any]) -> int | None:
    """Start the game the club sent (``next`` topic) through the service's normal
    command, unless it was started already; return the new game's id, or None.
    Raises ``ValueError`` for a message that is not a game."""
    from scorer.events import GameStarted

    if not isinstance(data, dict):
        raise ValueError(f"next game: not an object: {data!r}")
    match = data.get("match")
    if isinstance(match, bool) or not isinstance(match, int) or match < 1:
        raise ValueError(f"next game: bad match number {match!r}")
    author = f"{MATCH_AUTHOR}{match}"
    if any(g.get("author") == author for g in service.store.games()):
        return None
    teams, players = data.get("teams"), data.get("players") or {}
    if (not isinstance(teams, dict) or set(teams) != {"NS", "EW"}
            or not all(isinstance(v, str) and v for v in teams.values())):
        raise ValueError(f"next game: teams must name NS and EW: {teams!r}")
    if not isinstance(players, dict) or not set(players) <= {"N", "E", "S", "W"} or not all(
            isinstance(v, str) for v in players.values()):
        raise ValueError(f"next game: players must be seat -> name: {players!r}")
    settings = data.get("settings") or {}
    if not isinstance(settings, dict):
        raise ValueError(f"next game: settings must be an object: {settings!r}")
    started = GameStarted(rules=str(data.get("rules") or "ffb"), settings=dict(settings),
                          dealer=str(data.get("dealer") or "N"), teams=dict(teams),
                          players=dict(players))
    game_id: int = service.start_game(started, source="web", author=author)
    return game_id


def link_service(service: Any, db_path: str | Path, url: str, table: int, password: str,
                 club: str = "club") -> Callable[[], None]:
    """Publish a running table's store to the club, start the games the club
    sends, and send each new event at once (the service's bus wakes the
    link); returns the function that stops it."""

    def on_next(data: dict[str, Any]) -> None:
        game_id = apply_next_game(service, data)
        if game_id is not None:
            log.info(_("club link: game %s started as the club asked (match %s)"), game_id,
                     data.get("match"))

    link = ClubLink(db_path, url, table, password, club=club, on_next=on_next).start()
    sub = service.bus.subscribe()

    def follow() -> None:
        for msg in sub:
            if msg.topic == "event":
                link.notify()

    threading.Thread(target=follow, name="club-link-bus", daemon=True).start()

    def close() -> None:
        sub.close()
        link.stop(flush=CLOSING_FLUSH)

    return close
