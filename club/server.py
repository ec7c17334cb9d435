"""The club server's receiving end: every table's events from the broker into
the club's file, checked, once and in order.

A message on ``belote/<club>/table/<N>/events`` is stored only when it is a
valid event of known table N, the next of that table (``seq`` one above the
last stored) and an event the rules engine accepts at that point of its game
(``scorer.game.verify_event`` on the game replayed so far). A duplicate or an
event out of order changes nothing; the club answers with its last ``seq``
(``missing`` when something is lacking) and the table sends again from there.
Anything else is logged and refused, and changes nothing.

Mix-ups: each message may say which store it comes from (``origin``, the
table's store identity, ``companion.club_link``). The club learns each
table's from its first events; events of another store on the same topic (a
table whose store was replaced, two Pis set as the same table) are never
mixed into the table's game nor dropped: they are kept apart (``strays``),
acknowledged to their store, and shown on the club screen as a mix-up until
the organiser decides (keep them as another club table, or set them aside).

Messages are stored by batches (one transaction for what arrived meanwhile)
by one writer thread, and acknowledged once committed.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from club.store import ClubEvent, ClubStore
from common.topics import CLUB_USER, check_club, parse_topic, parse_url, table_topic
from companion.i18n import _
from companion.store import SOURCES
from scorer.events import GameStarted, InvalidEventError, event_from_json
from scorer.game import GameState, replay, verify_event

log = logging.getLogger(__name__)

FIELDS = {"table", "seq", "game_id", "game_seq", "event", "source", "ts", "confidence",
          "author", "hand_no"}
OPTIONAL = {"origin"}  # the table's store identity (tables from issue 75 on send it)


class RefusedMessage(ValueError):
    """A message that is not a valid event of a known table."""


def _whole(data: dict[str, Any], key: str, low: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RefusedMessage(f"{key} {value!r} is not a whole number from {low}")
    return value


def parse_message(table: int, payload: bytes) -> ClubEvent:
    """The event a table's message carries, checked in itself (not yet against
    the game); raises ``RefusedMessage`` saying why not."""
    return parse_origin(table, payload)[0]


def parse_origin(table: int, payload: bytes) -> tuple[ClubEvent, str | None]:
    """``parse_message`` and the store identity the message names (None: an
    older table that does not say)."""
    if len(payload) > 64_000:
        raise RefusedMessage(f"{len(payload)} bytes is too long for one event")
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise RefusedMessage("not JSON") from None
    if not isinstance(data, dict):
        raise RefusedMessage("not a JSON object")
    if not FIELDS <= set(data) <= FIELDS | OPTIONAL:
        raise RefusedMessage(f"fields {sorted(data)} are not {sorted(FIELDS)}")
    origin = data.get("origin")
    if origin is not None and (not isinstance(origin, str) or not 1 <= len(origin) <= 64
                               or not origin.isascii() or not origin.isalnum()):
        raise RefusedMessage(f"origin {origin!r} is not a store identity")
    if data["table"] != table:
        raise RefusedMessage(f"says table {data['table']!r} on table {table}'s topic")
    seq = _whole(data, "seq", 1)
    game_id = _whole(data, "game_id", 1)
    game_seq = _whole(data, "game_seq", 0)
    hand_no = None if data["hand_no"] is None else _whole(data, "hand_no", 1)
    if data["source"] not in SOURCES:
        raise RefusedMessage(f"source {data['source']!r} is not one of {', '.join(SOURCES)}")
    ts, conf, author = data["ts"], data["confidence"], data["author"]
    if isinstance(ts, bool) or not isinstance(ts, int | float) or not math.isfinite(ts):
        raise RefusedMessage(f"ts {ts!r} is not a time")
    if conf is not None and (isinstance(conf, bool) or not isinstance(conf, int | float)
                             or not 0 <= conf <= 1):
        raise RefusedMessage(f"confidence {conf!r} is not a number from 0 to 1")
    if author is not None and (not isinstance(author, str) or len(author) > 200):
        raise RefusedMessage(f"author {author!r} is not a short text")
    try:
        event = event_from_json(data["event"])
    except (InvalidEventError, TypeError, ValueError) as exc:
        raise RefusedMessage(f"event: {exc}") from None
    if (game_seq == 0) != isinstance(event, GameStarted):
        raise RefusedMessage("a game starts with GameStarted, and only there")
    return ClubEvent(table, seq, game_id, game_seq, hand_no, event.to_json(), data["source"],
                     float(ts), None if conf is None else float(conf), author), origin


class ClubServer:
    """Receives every table's events (``receive``), keeps each table's game
    states, and sends the concours' games to the tables (``send_next``).

    ``url``/``password`` connect it to the broker (``connect()``); without a
    broker, ``receive`` and ``flush`` are called directly (tests).
    """

    def __init__(self, store: ClubStore, club: str = "club", url: str | None = None,
                 password: str | None = None, batch: int = 500,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.club = check_club(club)
        self.url = url
        self.password = password
        self.batch = batch
        self.clock = clock
        self._lock = threading.RLock()
        self._last: dict[int, int] = store.tables()
        self._origin: dict[int, str | None] = store.origins()
        # (topic table, origin) -> the club table a second store's events go to
        self._routes: dict[tuple[int, str], int] = {}
        # (topic table, origin) -> the mix-up kept apart (undecided or set aside)
        self._apart: dict[tuple[int, str], int] = {}
        # topic table -> stores that named themselves on a table whose events
        # came before tables named theirs: asked to send from 1 to be compared
        self._unverified: dict[int, set[str]] = {}
        self._load_mixups()
        self._states: dict[tuple[int, int], GameState] = {}
        self._current: dict[int, int] = {}  # table -> its latest game id
        for g in store.games():
            self._current[g["table"]] = max(self._current.get(g["table"], 0), g["game_id"])
        self.online: dict[int, bool] = {}
        self.last_seen: dict[int, float] = {}
        self.refused: collections.deque[str] = collections.deque(maxlen=100)
        self.refused_count = 0
        self.stored_count = 0
        self.version = 0  # goes up with every change the pages show
        self._changed = threading.Condition(self._lock)
        self._queue: queue.Queue[tuple[int, bytes] | None] = queue.Queue(maxsize=20_000)
        self._next: dict[int, dict[str, Any]] = {}  # the game last sent to each table
        self._client: Any = None
        self._writer: threading.Thread | None = None
        self.connected = False

    # -- tables -------------------------------------------------------------------------

    @property
    def tables(self) -> list[int]:
        """Every club table: the club's own, and the second stores kept under
        another number."""
        with self._lock:
            return sorted(self._last)

    @property
    def topic_tables(self) -> list[int]:
        """The tables that publish under their own number (a concours seats
        teams there)."""
        with self._lock:
            kept = set(self._routes.values())
            return sorted(t for t in self._last if t not in kept)

    def _load_mixups(self) -> None:
        self._routes.clear()
        self._apart.clear()
        for m in self.store.mixups():
            if m["decision"] == "keep":
                self._routes[(m["topic"], m["origin"])] = m["table"]
            else:
                self._apart[(m["topic"], m["origin"])] = m["id"]

    def mixups(self) -> list[dict[str, Any]]:
        """Every mix-up with what the club screen says of it: ``kept`` (events
        kept apart), ``whole`` (of them, from 1 with none missing), ``both``
        (the table's known store sent events after the mix-up began: two Pis
        at once, not a replaced store)."""
        out = []
        for m in self.store.mixups():
            kept, whole = self.store.stray_count(m["topic"], m["origin"])
            last = self.store.last_received(m["topic"])
            out.append({**m, "kept": kept, "whole": whole,
                        "both": last is not None and last > m["seen"],
                        "stored": self.last_seq(m["table"]) if m["table"] else 0})
        return out

    def decide(self, mixup_id: int, decision: str, table: int | None = None) -> dict[str, Any]:
        """The organiser's decision on a mix-up (``ClubStore.decide_mixup``); a kept
        store's events are then checked and stored as club table ``table``'s."""
        with self._lock:
            m = self.store.decide_mixup(mixup_id, decision, self.clock(), table)
            self._load_mixups()
            if decision == "keep":
                self._last.setdefault(m["table"], 0)
                self._origin[m["table"]] = m["origin"]
                kept = self.store.strays(m["topic"], m["origin"])
                if kept:
                    self._process([(m["topic"], payload) for _, payload in kept])
            self._touch()
        self._ack(m["topic"])
        return m

    def add_tables(self, numbers: list[int]) -> None:
        self.store.add_tables(numbers)
        with self._lock:
            for n in numbers:
                self._last.setdefault(n, 0)
                self._origin.setdefault(n, None)

    def last_seq(self, table: int) -> int:
        with self._lock:
            return self._last.get(table, 0)

    # -- receiving ----------------------------------------------------------------------

    def receive(self, table: int, payload: bytes) -> str:
        """Check and store one message of table ``table`` at once (its own batch);
        returns ``stored``, ``duplicate``, ``gap``, ``refused``, ``apart`` (another
        store's event on that table's topic, kept apart) or ``unverified`` (a store
        that names itself on a table whose events came unnamed: asked to send from
        its first event, which the club compares with its own)."""
        outcome, _ = self._process([(table, payload)])
        return outcome[0]

    def _refuse(self, table: int, why: str) -> str:
        text = f"table {table}: {why}"
        log.warning(_("club: refused a message: %s"), text)
        with self._lock:
            self.refused.append(text)
            self.refused_count += 1
        return "refused"

    def _state_of(self, table: int, game_id: int) -> GameState | None:
        key = (table, game_id)
        state = self._states.get(key)
        if state is None:
            stored = self.store.game_events(table, game_id)
            if not stored:
                return None
            state = replay([event_from_json(e.event) for e in stored])
            self._states[key] = state
        return state

    def _process(self, messages: list[tuple[int, bytes]]
                 ) -> tuple[list[str], dict[int, set[str | None]]]:
        """Check a batch, store what is new in one transaction; return each
        message's outcome and the topic tables to acknowledge, each with the
        stores that miss something (None: the table's own)."""
        outcomes: list[str] = []
        acks: dict[int, set[str | None]] = {}
        with self._lock:
            last = dict(self._last)
            states: dict[tuple[int, int], GameState] = {}
            new: list[ClubEvent] = []
            adopt: dict[int, str] = {}
            strays: list[tuple[int, str, int, bytes]] = []
            kept = set(self._routes.values())
            for topic, payload in messages:
                if topic not in last or topic in kept:
                    outcomes.append(self._refuse(topic, "not a table of this club"))
                    continue
                try:
                    item, origin = parse_origin(topic, payload)
                except RefusedMessage as exc:
                    outcomes.append(self._refuse(topic, str(exc)))
                    continue
                table = topic
                if origin is not None:
                    known = adopt.get(topic) or self._origin.get(topic)
                    if (topic, origin) in self._routes:
                        table = self._routes[(topic, origin)]
                        item = dataclasses.replace(item, table=table)
                    elif (topic, origin) in self._apart or (known and known != origin):
                        strays.append((topic, origin, item.seq, payload))
                        outcomes.append("apart")
                        acks.setdefault(topic, set())
                        continue
                stream = None if table == topic else origin
                if (origin is not None and table == topic and last[table] > 0
                        and item.seq > last[table]
                        and not (adopt.get(topic) or self._origin.get(topic))):
                    # The club's events of this table came without a store's name:
                    # this store must first show it is theirs (from seq 1).
                    self._unverified.setdefault(topic, set()).add(origin)
                    outcomes.append("unverified")
                    acks.setdefault(topic, set())
                    continue
                if item.seq <= last[table]:
                    stored = (next((e for e in new if e.table == table and e.seq == item.seq),
                                   None) or self.store.event_at(table, item.seq))
                    if stored is not None and stored != item:
                        if origin is not None and table == topic:
                            # Another store than the one the club holds (this
                            # table's said no origin before): kept apart.
                            strays.append((topic, origin, item.seq, payload))
                            outcomes.append("apart")
                            acks.setdefault(topic, set())
                            continue
                        outcomes.append(self._refuse(
                            topic, f"seq {item.seq} differs from the event stored there"))
                    else:
                        if origin is not None and table == topic and not self._origin.get(topic):
                            adopt[topic] = origin
                        outcomes.append("duplicate")
                    acks.setdefault(topic, set())
                    continue
                if item.seq > last[table] + 1:
                    outcomes.append("gap")
                    acks.setdefault(topic, set()).add(stream)
                    continue
                key = (table, item.game_id)
                event = event_from_json(item.event)
                state = states[key] if key in states else self._state_of(*key)
                try:
                    if item.game_seq == 0:
                        if state is not None:
                            raise RefusedMessage(f"game {item.game_id} has started already")
                        assert isinstance(event, GameStarted)
                        state = replay([event])
                    else:
                        if state is None:
                            raise RefusedMessage(f"game {item.game_id} has not started")
                        if len(state.events) != item.game_seq:
                            raise RefusedMessage(
                                f"game {item.game_id}: event {len(state.events)} expected,"
                                f" not {item.game_seq}")
                        verify_event(state, event)
                        state = state.apply(event)
                except (ValueError, KeyError) as exc:
                    outcomes.append(self._refuse(topic, f"seq {item.seq}: {exc}"))
                    continue
                states[key] = state
                new.append(item)
                last[table] = item.seq
                if origin is not None and table == topic and not self._origin.get(topic):
                    adopt[topic] = origin
                acks.setdefault(topic, set()).discard(stream)
                outcomes.append("stored")
            if new:
                self.store.store_events(new, self.clock())
                self._last.update(last)
                self._states.update(states)
                for e in new:
                    self._current[e.table] = max(self._current.get(e.table, 0), e.game_id)
                self._forget_old_games()
                self.stored_count += len(new)
            for topic, origin in adopt.items():
                self.store.set_origin(topic, origin)
                self._origin[topic] = origin
                self._unverified.pop(topic, None)
            if strays:
                mixed = self.store.add_strays(strays, self.clock())
                for topic, origin, _seq, _p in strays:
                    if (topic, origin) not in self._routes:
                        self._apart.setdefault((topic, origin), 0)
                for mixup_id in mixed:
                    log.warning(_("club: mix-up %s: events of another store on a table's "
                                  "topic, kept apart"), mixup_id)
            if new or strays or adopt:
                self._touch()
        return outcomes, acks

    def _forget_old_games(self) -> None:
        """Keep the states of the games in play; a season's finished games are
        replayed from the file when a page asks for them."""
        if len(self._states) > 2 * len(self._last) + 64:
            current = {(t, g) for t, g in self._current.items()}
            for key in [k for k in self._states if k not in current]:
                del self._states[key]

    def _touch(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait_change(self, version: int, timeout: float) -> int:
        """Wait until something changes after ``version`` (or ``timeout``); the new version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout)
            return self.version

    # -- reading ------------------------------------------------------------------------

    def current_state(self, table: int) -> tuple[int | None, GameState | None]:
        with self._lock:
            game_id = self._current.get(table)
            if game_id is None:
                return None, None
            return game_id, self._state_of(table, game_id)

    def game_state(self, table: int, game_id: int) -> GameState | None:
        with self._lock:
            return self._state_of(table, game_id)

    # -- the broker ---------------------------------------------------------------------

    def connect(self) -> ClubServer:
        """Connect to the broker, subscribe to every table's events and status,
        and start the writer thread."""
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        if self.url is None or self.password is None:
            raise ValueError("the club server needs the broker's address and its password")
        address = parse_url(self.url)
        # A session kept by the broker: what tables send while the server
        # restarts waits for it there (and is sent again from the ack otherwise).
        client = mqtt.Client(CallbackAPIVersion.VERSION2,
                             client_id=f"belote-{self.club}-server", clean_session=False)
        client.username_pw_set(CLUB_USER, self.password)
        client.reconnect_delay_set(min_delay=1, max_delay=3)
        client.max_inflight_messages_set(1000)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self._client = client
        self._writer = threading.Thread(target=self._write_loop, name="club-writer",
                                        daemon=True)
        self._writer.start()
        client.connect_async(address.host, address.port, keepalive=10)
        client.loop_start()
        return self

    def close(self) -> None:
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
            # loop_start's wake-up socket pair outlives loop_stop in paho 2: close it.
            self._client._reset_sockets()
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join(timeout=10)

    def _on_connect(self, client: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning(_("club server: refused by the broker: %s"), reason)
            return
        self.connected = True
        client.subscribe([(f"belote/{self.club}/table/+/events", 1),
                          (f"belote/{self.club}/table/+/status", 1)])
        # Each table learns where to send from, even if its last ack was lost,
        # and its game of the round, even if a broker crash lost the retained one.
        for table in self.topic_tables:
            self._ack(table)
        with self._lock:
            games = dict(self._next)
        for table, game in games.items():
            client.publish(table_topic(self.club, table, "next"), json.dumps(game), qos=1,
                           retain=True)

    def _on_disconnect(self, *_args: Any) -> None:
        self.connected = False

    def _on_message(self, _client: Any, _u: Any, msg: Any) -> None:
        parsed = parse_topic(msg.topic)
        if parsed is None or parsed[0] != self.club:
            self._refuse(0, f"unknown topic {msg.topic!r}")
            return
        _, table, leaf = parsed
        if leaf == "status":
            with self._lock:
                if table in self._last:
                    self.online[table] = msg.payload == b"online"
                    self._touch()
            return
        with self._lock:
            self.last_seen[table] = self.clock()
        # Blocks when the writer is far behind: the broker then holds the rest.
        self._queue.put((table, bytes(msg.payload)))

    def _write_loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self.batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._queue.put(None)
                    break
                batch.append(item)
            try:
                _, acks = self._process(batch)
            except Exception:  # noqa: BLE001 - the server keeps running; tables resend
                log.exception(_("club server: a batch could not be stored"))
                with self._lock:
                    self._last = self.store.tables()
                    self._states.clear()
                continue
            for table, missing in acks.items():
                self._ack(table, missing)

    def ack_body(self, table: int, missing: set[str | None] | None = None) -> dict[str, Any]:
        """What the club says on table ``table``'s ack topic: the last ``seq`` it
        stored of the table's store (``origin``), and of each other store seen
        on that topic (``others``: kept apart, or kept as another table)."""
        missing = missing or set()
        with self._lock:
            body: dict[str, Any] = {"seq": self._last.get(table, 0)}
            if self._origin.get(table):
                body["origin"] = self._origin[table]
            if None in missing:
                body["missing"] = True
            others: dict[str, dict[str, Any]] = {}
            for (topic, origin), kept_as in self._routes.items():
                if topic == table:
                    others[origin] = {"seq": self._last.get(kept_as, 0)}
                    if origin in missing:
                        others[origin]["missing"] = True
            apart = [origin for (topic, origin) in self._apart if topic == table]
            for origin in self._unverified.get(table, ()):
                others[origin] = {"seq": 0, "missing": True}
        for origin in apart:
            kept, whole = self.store.stray_count(table, origin)
            others[origin] = {"seq": whole}
            if kept > whole:
                others[origin]["missing"] = True
        if others:
            body["others"] = others
        return body

    def _ack(self, table: int, missing: set[str | None] | None = None) -> None:
        if self._client is None:
            return
        self._client.publish(table_topic(self.club, table, "ack"),
                             json.dumps(self.ack_body(table, missing)), qos=1, retain=True)

    def send_next(self, table: int, game: dict[str, Any]) -> None:
        """Send table ``table`` its next game (retained: a table that joins later gets it)."""
        if self._client is None:
            raise ValueError("the club server is not connected to the broker")
        with self._lock:
            self._next[table] = game
        self._client.publish(table_topic(self.club, table, "next"), json.dumps(game), qos=1,
                             retain=True)
