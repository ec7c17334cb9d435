"""The club's copy of every table's events, against a real Mosquitto broker:
ten tables play eight hands each while the broker is killed and restarted
twice and one table is cut off a while; the club ends with exactly what each
table stored, once and in order. Duplicates, events out of order and bad
messages change nothing; a table cannot write outside its own topics."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from club.server import ClubServer
from club.store import ClubStore
from companion.bus import Bus
from companion.club_link import ClubLink, event_payload, read_events
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed, GameStarted
from scorer.simulate import simulate_game
from tests.club.conftest import close_client, listening, mqtt_client, wait_for


class Table:
    """A table of the test: its own store and service, its club link, and a
    thread playing a simulated game of ``hands`` hands."""

    def __init__(self, folder: Path, n: int, broker: Any, hands: int, pace: float) -> None:
        self.n = n
        self.db = folder / f"table{n}.db"
        self.store = Store(self.db)
        self.service = TableService(self.store, Bus())
        self.link = ClubLink(self.db, broker.url, n, broker.passwords[f"table{n}"],
                             club=broker.club, resend_after=1.5, poll=0.1).start()
        self.events = simulate_game(100 + n, hands=hands)
        self.pace = pace
        self.thread = threading.Thread(target=self.play, daemon=True)

    def play(self) -> None:
        self.service.start_game(self.events[0], source="simulator")
        for e in self.events[1:]:
            self.service.submit(e, source="simulator")
            self.link.notify()
            time.sleep(self.pace)

    def record(self) -> list[dict[str, Any]]:
        import sqlite3

        db = sqlite3.connect(self.db)
        try:
            return [event_payload(self.n, r) for r in read_events(db, 0, 10**9)]
        finally:
            db.close()

    def close(self) -> None:
        self.link.stop()
        self.store.close()


@pytest.mark.slow
def test_ten_tables_through_two_broker_crashes_and_a_cut_reach_the_club_once_in_order(
        tmp_path: Path, broker_factory: Any) -> None:
    numbers = list(range(1, 11))
    broker = broker_factory("club", numbers)
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", broker.url, broker.passwords["club"])
    server.add_tables(numbers)
    server.connect()
    # Enough hands that most tables still play at the second crash, on a slow machine
    # too (8 hands: only 4 of 10 were still playing on a 2-core AMD EPYC).
    tables = [Table(tmp_path, n, broker, hands=12, pace=0.005) for n in numbers]
    try:
        for t in tables:
            t.thread.start()
        wait_for(lambda: server.stored_count >= 300, 60, "the first events at the club")
        cut = tables[2]
        cut.link.pause()
        at_cut = cut.link.status()["acked"]
        broker.kill()
        time.sleep(0.3)
        broker.start()
        seen = server.stored_count
        wait_for(lambda: server.stored_count >= seen + 150, 60, "events after the restart")
        # The second crash comes while the tables are still playing.
        assert sum(t.thread.is_alive() for t in tables) >= 5
        broker.kill()
        time.sleep(0.3)
        broker.start()
        for t in tables:
            t.thread.join(timeout=120)
        # The cut-off table kept playing: its game is whole in its own store.
        assert len(cut.record()) == len(cut.events) > at_cut
        assert server.last_seq(cut.n) <= at_cut + 200
        cut.link.resume()
        wait_for(lambda: all(server.last_seq(t.n) == len(t.events) for t in tables), 90,
                 "every table's last event at the club")
        for t in tables:
            club_copy = [e.to_json() for e in store.table_events(t.n)]
            assert club_copy == t.record(), f"table {t.n}"
            assert [e["seq"] for e in club_copy] == list(range(1, len(t.events) + 1))
        total = store.query("SELECT COUNT(*) FROM events")[0][0]
        assert total == sum(len(t.events) for t in tables)
        assert server.refused_count == 0
        # Each table's game state at the club is the table's own.
        for t in tables:
            game_id, state = server.current_state(t.n)
            assert state is not None and state.to_json() == t.service.state.to_json()
    finally:
        for t in tables:
            t.close()
        server.close()
        store.close()


def _payloads(tmp_path: Path, n: int = 1, hands: int = 1) -> list[bytes]:
    store = Store(tmp_path / f"own{n}.db")
    service = TableService(store, Bus())
    events = simulate_game(7, hands=hands)
    service.start_game(events[0], source="simulator")
    for e in events[1:]:
        service.submit(e, source="simulator")
    store.close()
    import sqlite3

    db = sqlite3.connect(tmp_path / f"own{n}.db")
    rows = read_events(db, 0, 10**9)
    db.close()
    return [json.dumps(event_payload(n, r)).encode() for r in rows]


def _club(tmp_path: Path, broker: Any = None) -> tuple[ClubStore, ClubServer]:
    """The club's store and server for tables 1 and 2; connected to ``broker`` if given."""
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1, 2])
    if broker is not None:
        server.url, server.password = broker.url, broker.passwords["club"]
        server.connect()
    return store, server


def _stored(store: ClubStore) -> list[tuple[Any, ...]]:
    return store.query("SELECT table_no, seq, data FROM events ORDER BY table_no, seq")


def test_events_twice_or_out_of_order_change_nothing(tmp_path: Path) -> None:
    payloads = _payloads(tmp_path)
    store, server = _club(tmp_path)
    assert [server.receive(1, p) for p in payloads[:5]] == ["stored"] * 5
    before = _stored(store)
    # Ahead of the next one, or again: nothing changes.
    assert server.receive(1, payloads[7]) == "gap"
    assert server.receive(1, payloads[2]) == "duplicate"
    assert server.receive(1, payloads[4]) == "duplicate"
    assert _stored(store) == before and server.last_seq(1) == 5
    # Everything again in a shuffled order, each twice, until all is in.
    rng = random.Random(3)
    while server.last_seq(1) < len(payloads):
        batch = payloads * 2
        rng.shuffle(batch)
        for p in batch:
            server.receive(1, p)
    assert server.refused_count == 0
    assert [json.loads(p) for p in payloads] == [e.to_json() for e in store.table_events(1)]
    # A restarted club server goes on from its file.
    again = ClubServer(store, "club")
    assert again.last_seq(1) == len(payloads)
    assert again.receive(1, payloads[-1]) == "duplicate"
    store.close()


def test_messages_that_are_not_valid_events_of_a_known_table_are_refused_and_logged(
        tmp_path: Path, caplog: Any) -> None:
    payloads = _payloads(tmp_path)
    store, server = _club(tmp_path)
    for p in payloads[:6]:
        server.receive(1, p)
    before = _stored(store)
    good = json.loads(payloads[6])
    play = next(json.loads(p) for p in payloads[6:] if json.loads(p)["event"]["type"]
                == "CardPlayed")
    wrong_turn = {**good, "event": CardPlayed(seat="E" if play["event"]["seat"] != "E" else "N",
                                              card="7S").to_json()}
    if good["event"]["type"] != "CardPlayed":
        wrong_turn["event"] = {"type": "CardPlayed", "seat": "N", "card": "7S"}
    bad: dict[str, tuple[int, bytes]] = {
        "not JSON": (1, b"\xff{nope"),
        "a list": (1, b"[1, 2]"),
        "a field missing": (1, json.dumps({k: v for k, v in good.items() if k != "ts"}).encode()),
        "another table's number": (1, json.dumps({**good, "table": 2}).encode()),
        "unknown table": (9, json.dumps({**good, "table": 9}).encode()),
        "unknown event type": (1, json.dumps({**good, "event": {"type": "Cheat"}}).encode()),
        "bad card": (1, json.dumps({**good, "event": {"type": "CardPlayed", "seat": "N",
                                                        "card": "ZZ"}}).encode()),
        "illegal at this point": (1, json.dumps(wrong_turn).encode()),
        "a second start": (1, json.dumps({**good, "event": GameStarted().to_json(),
                                          "game_seq": 0, "game_id": 1}).encode()),
        "bad source": (1, json.dumps({**good, "source": "phone"}).encode()),
        "changed copy of a stored event": (1, json.dumps(
            {**json.loads(payloads[3]), "ts": 1.0}).encode()),
        "seq not a number": (1, json.dumps({**good, "seq": "7"}).encode()),
    }
    with caplog.at_level(logging.WARNING, logger="club.server"):
        outcomes = {name: server.receive(table, body) for name, (table, body) in bad.items()}
    assert outcomes == dict.fromkeys(bad, "refused"), outcomes
    assert _stored(store) == before and server.last_seq(1) == 6
    assert server.refused_count == len(bad)
    assert len([r for r in caplog.records if "message refusé" in r.getMessage()]) == len(bad)
    # The next real event still goes in.
    assert server.receive(1, payloads[6]) == "stored"
    store.close()


def test_a_table_writes_only_its_own_topics_and_strangers_cannot_connect(
        tmp_path: Path, broker_factory: Any) -> None:
    broker = broker_factory("club", [1, 2])
    store, server = _club(tmp_path, broker)
    payloads = _payloads(tmp_path, n=2)
    clients: list[Any] = []
    try:
        wait_for(lambda: server.connected, 10, "the club server's connection")
        # No password, a wrong one, a table the club does not have: refused.
        for user, password in (("", ""), ("table1", "guess"), ("table9", "anything")):
            clients.append(mqtt_client(broker.port, user, password))
            assert clients[-1].result.is_failure, user
        # Table 1 with its own credentials writes table 2's events: dropped by
        # the broker; then a message on its own topic arrives (in order after it).
        intruder = mqtt_client(broker.port, "table1", broker.passwords["table1"])
        clients.append(intruder)
        assert not intruder.result.is_failure
        intruder.publish("belote/club/table/2/events", payloads[0], qos=1).wait_for_publish(5)
        intruder.publish("belote/club/table/2/ack", b'{"seq": 999}', qos=1).wait_for_publish(5)
        intruder.publish("belote/club/table/1/events", b"not an event", qos=1
                         ).wait_for_publish(5)
        wait_for(lambda: server.refused_count == 1, 10, "table 1's own message")
        assert server.last_seq(2) == 0 and _stored(store) == []
    finally:
        for c in clients:
            close_client(c)
        server.close()
        store.close()


def test_a_running_table_starts_the_game_the_club_sends_once_and_publishes_it(
        tmp_path: Path, broker_factory: Any) -> None:
    from companion.club_link import link_service

    broker = broker_factory("club", [1])
    store, server = _club(tmp_path, broker)
    own = Store(tmp_path / "t1.db")
    service = TableService(own, Bus())
    close = link_service(service, tmp_path / "t1.db", broker.url, 1, broker.passwords["table1"])
    try:
        wait_for(lambda: server.connected, 10, "the club server")
        game = {"match": 7, "teams": {"NS": "Les Pies", "EW": "Les Geais"},
                "players": {"N": "Léa", "S": "Marc", "E": "Zoé", "W": "Yann"},
                "rules": "ffb", "settings": {"target": 500}, "dealer": "N"}
        server.send_next(1, {"match": "bad"})
        server.send_next(1, game)
        wait_for(lambda: service.game_id is not None, 10, "the game started at the table")
        state = service.state.to_json()
        assert state["teams"] == game["teams"] and state["players"] == game["players"]
        assert state["target"] == 500
        for e in simulate_game(3, hands=1, settings={"target": 500})[1:]:
            service.submit(e, source="simulator")
        wait_for(lambda: server.last_seq(1) == len(service.events()), 10, "the club's copy")
        # The same message again (a reconnection) starts nothing new.
        server.send_next(1, game)
        time.sleep(0.5)
        assert len(own.games()) == 1
        assert store.games()[0]["author"] == "club:match:7"
    finally:
        close()
        server.close()
        own.close()
        store.close()


def test_club_setup_writes_settings_mosquitto_runs_with() -> None:
    import shutil
    import subprocess
    import sys
    import tempfile

    from club.broker import find_mosquitto, free_port

    if find_mosquitto() is None:
        pytest.skip("Debian's mosquitto is missing: 'sudo apt-get install -y mosquitto'")
    # A folder the 'mosquitto' user can reach, as /etc/mosquitto is (pytest's own
    # temporary folders are private to us).
    base = Path(tempfile.mkdtemp(prefix="belote-setup-"))
    base.chmod(0o755)
    port = free_port()
    clients: list[Any] = []
    proc = None
    try:
        out = subprocess.run([sys.executable, "-m", "cli.main", "club", "setup",
                              "--tables", "3", "--out", str(base / "conf"), "--port", str(port),
                              "--listen", "127.0.0.1"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[2], timeout=60)
        assert out.returncode == 0, out.stderr
        conf = (base / "conf" / "belote.conf").read_text()
        assert "allow_anonymous false" in conf and "password_file" in conf
        assert "acl_file" in conf
        hashed = (base / "conf" / "passwords").read_text()
        secret = (base / "conf" / "secrets" / "table2.pw").read_text().strip()
        assert "table2:$7$" in hashed and secret not in hashed
        # Mosquitto as the service runs it, on the settings file alone (as root it
        # reads the files as the 'mosquitto' user).
        proc = subprocess.Popen([find_mosquitto() or "", "-c", str(base / "conf" /
                                                                  "belote.conf")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: listening(port), 10, "mosquitto with the written settings")
        clients.append(mqtt_client(port, "table2", secret))
        assert not clients[-1].result.is_failure
        clients.append(mqtt_client(port, "table2", "wrong"))
        assert clients[-1].result.is_failure
    finally:
        for c in clients:
            close_client(c)
        if proc is not None:
            proc.kill()
            proc.wait()
        shutil.rmtree(base, ignore_errors=True)


def test_a_rebooted_table_and_a_restarted_club_server_go_on_from_the_club_s_ack(
        tmp_path: Path, broker_factory: Any) -> None:
    broker = broker_factory("club", [1])
    store = ClubStore(tmp_path / "club.db")

    def club_server() -> ClubServer:
        server = ClubServer(store, "club", broker.url, broker.passwords["club"])
        server.add_tables([1])
        return server.connect()

    server = club_server()
    own = Store(tmp_path / "t1.db")
    service = TableService(own, Bus())
    events = simulate_game(12, hands=3)
    thirds = [events[: len(events) // 3], events[len(events) // 3: 2 * len(events) // 3],
              events[2 * len(events) // 3:]]

    def link() -> ClubLink:
        return ClubLink(tmp_path / "t1.db", broker.url, 1, broker.passwords["table1"],
                        poll=0.1, resend_after=1.0).start()

    def play(part: list[Any], table_link: ClubLink | None) -> None:
        for e in part:
            if isinstance(e, GameStarted):
                service.start_game(e, source="simulator")
            else:
                service.submit(e, source="simulator")
            if table_link is not None:
                table_link.notify()

    first = link()
    try:
        play(thirds[0], first)
        wait_for(lambda: server.last_seq(1) == len(thirds[0]), 20, "the first third")
        first.stop()  # the Pi goes off; the game goes on in its store
        play(thirds[1], None)
        # The club server restarts too, while the table is away.
        server.close()
        server = club_server()
        second = link()  # the Pi back: a new link knows nothing but the club's ack
        play(thirds[2], second)
        wait_for(lambda: server.last_seq(1) == len(events), 30, "every event")
        time.sleep(0.3)
        # It sent from the ack on, not the whole store again.
        assert second.status()["published"] < len(events) - len(thirds[0]) + 20
        assert [e.to_json()["event"] for e in store.table_events(1)] == [
            e.to_json() for e in events]
        second.stop()
    finally:
        server.close()
        own.close()
        store.close()


def test_a_table_away_when_its_game_was_sent_gets_it_after_a_broker_crash(
        tmp_path: Path, broker_factory: Any) -> None:
    from companion.club_link import link_service

    broker = broker_factory("club", [1])
    store, server = _club(tmp_path, broker)
    own = Store(tmp_path / "t1.db")
    service = TableService(own, Bus())
    close = None
    try:
        wait_for(lambda: server.connected, 10, "the club server")
        game = {"match": 3, "teams": {"NS": "Les Pies", "EW": "Les Geais"},
                "players": {"N": "Léa", "S": "Marc", "E": "Zoé", "W": "Yann"},
                "rules": "ffb", "settings": {}, "dealer": "N"}
        server.send_next(1, game)
        time.sleep(0.3)
        # The broker dies before saving its retained messages, then comes back.
        broker.kill()
        wait_for(lambda: not server.connected, 10, "the club server to see the crash")
        broker.start()
        wait_for(lambda: server.connected, 20, "the club server back")
        close = link_service(service, tmp_path / "t1.db", broker.url, 1,
                             broker.passwords["table1"])
        wait_for(lambda: service.game_id is not None, 10, "the game at the table")
        assert service.state.to_json()["teams"] == game["teams"]
    finally:
        if close is not None:
            close()
        server.close()
        own.close()
        store.close()
