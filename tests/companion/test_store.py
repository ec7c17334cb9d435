"""The SQLite event store: what is appended reads back the same after a reopen,
the schema is versioned, and bad input is refused with the place and the reason
while the file stays as it was."""

from __future__ import annotations

import sqlite3

import pytest

from companion.store import SOURCES, Store, StoreError, migrations
from scorer.events import BidMade, CardPlayed, GameStarted


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "table.db"


def _rows(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT game_id, seq, type, data, source, ts, confidence, author"
                          " FROM events ORDER BY game_id, seq").fetchall()


def test_events_read_back_in_order_with_source_time_confidence_author(db_path):
    ticks = iter(range(100, 200))
    with Store(db_path, clock=lambda: float(next(ticks))) as store:
        game = store.new_game(GameStarted(dealer="E", players={"N": "Ana"}), "web", "club")
        store.append(game, BidMade(seat="S", bid="80H"), "web", author="Ana", hand_no=1)
        store.append(game, CardPlayed(seat="S", card="th"), "camera", confidence=0.93,
                     hand_no=1)
    with Store(db_path) as store:
        events = store.events(game)
    assert [e.seq for e in events] == [0, 1, 2]
    assert events[0].event == GameStarted(dealer="E", players={"N": "Ana"})
    assert events[1].event == BidMade(seat="S", bid="80H")
    assert events[2].event == CardPlayed(seat="S", card="TH")
    assert [e.source for e in events] == ["web", "web", "camera"]
    assert [e.ts for e in events] == [100.0, 101.0, 102.0]
    assert [e.confidence for e in events] == [None, None, 0.93]
    assert [e.author for e in events] == ["club", "Ana", None]
    assert events[2].to_json()["event"] == {"type": "CardPlayed", "seat": "S", "card": "TH"}


def test_file_is_wal_synchronous_full_and_at_the_latest_schema(db_path):
    with Store(db_path) as store:
        assert store.version == len(migrations()) >= 1
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with sqlite3.connect(db_path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "hands", "events"} <= tables


def test_reopening_does_not_migrate_twice_and_a_newer_schema_is_refused(db_path):
    Store(db_path).close()
    Store(db_path).close()  # a second run of 0001 would fail on CREATE TABLE
    with sqlite3.connect(db_path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="schema version 99 is newer"):
        Store(db_path)


def test_games_current_game_and_hands(db_path):
    with Store(db_path) as store:
        first = store.new_game(GameStarted(), "web")
        store.append(first, BidMade(seat="W", bid="pass"), "simulator", hand_no=1)
        store.append(first, BidMade(seat="S", bid="pass"), "simulator", hand_no=1)
        store.append(first, BidMade(seat="E", bid="pass"), "simulator", hand_no=2)
        assert store.current_game() == first
        store.end_game(first)
        assert store.current_game() is None
        second = store.new_game(GameStarted(rules="classic"), "web")
        assert store.current_game() == second
        games = store.games()
        hands = store.hands(first)
    assert [(g["id"], g["rules"], g["events"], g["hands"]) for g in games] == [
        (first, "ffb", 4, 2), (second, "classic", 1, 0)]
    assert games[0]["ended"] is not None and games[1]["ended"] is None
    assert hands == [
        {"hand_no": 1, "first_seq": 1, "last_seq": 2},
        {"hand_no": 2, "first_seq": 3, "last_seq": 3}]


def test_a_store_of_schema_1_loses_the_stale_hand_results_and_keeps_its_events(db_path):
    """Migration 0002: a hand's score was once stored beside its events and went stale
    after a correction; the column goes, the events and hands stay as they were."""
    first = migrations()[0][1]
    with sqlite3.connect(db_path) as db:
        db.executescript(first.read_text(encoding="utf-8"))
        db.execute("PRAGMA user_version = 1")
        db.execute("INSERT INTO games (id, created, source, rules) VALUES (1, 100, 'web', 'ffb')")
        db.execute("INSERT INTO events (game_id, seq, hand_no, type, data, source, ts) VALUES"
                   " (1, 0, NULL, 'GameStarted', ?, 'web', 100),"
                   " (1, 1, 1, 'BidMade', ?, 'web', 101)",
                   ('{"type": "GameStarted"}', '{"type": "BidMade", "seat": "W", "bid": "pass"}'))
        db.execute("INSERT INTO hands (game_id, hand_no, first_seq, last_seq, result)"
                   " VALUES (1, 1, 1, 1, '{\"score\": {\"NS\": 160, \"EW\": 0}}')")
    db.close()
    with Store(db_path) as store:
        assert store.version == len(migrations()) >= 2
        assert store.hands(1) == [{"hand_no": 1, "first_seq": 1, "last_seq": 1}]
        assert [e.event for e in store.events(1)] == [GameStarted(),
                                                      BidMade(seat="W", bid="pass")]
    with sqlite3.connect(db_path) as db:
        columns = [r[1] for r in db.execute("PRAGMA table_info(hands)")]
    db.close()
    assert "result" not in columns


@pytest.mark.parametrize(("call", "message"), [
    (lambda s, g: s.append(g, BidMade(seat="W", bid="80H"), "phone"),
     "source 'phone' is not one of camera, web, simulator"),
    (lambda s, g: s.append(g, CardPlayed(seat="W", card="7H"), "camera", confidence=1.5),
     "confidence 1.5 is not a number from 0 to 1"),
    (lambda s, g: s.append(g, CardPlayed(seat="W", card="7H"), "camera",
                           confidence=float("nan")), "confidence nan"),
    (lambda s, g: s.append(g, CardPlayed(seat="W", card="7H"), "camera", confidence=True),
     "confidence True"),
    (lambda s, g: s.append(g, {"type": "CardPlayed"}, "web"), "is not an event"),
    (lambda s, g: s.append(g, GameStarted(), "web"), "GameStarted opens a game"),
    (lambda s, g: s.append(g + 7, BidMade(seat="W", bid="80H"), "web"),
     "append to game 8: no such game"),
    (lambda s, g: s.append(g, BidMade(seat="W", bid="80H"), "web", author=3), "author 3"),
    (lambda s, g: s.append(g, BidMade(seat="W", bid="80H"), "web", hand_no=0), "hand_no 0"),
    (lambda s, g: s.append(g, BidMade(seat="W", bid=float("inf")), "web"), "cannot be stored"),
    (lambda s, g: s.new_game(BidMade(seat="W", bid="80H"), "web"), "must be GameStarted"),
])
def test_bad_input_is_refused_with_the_reason_and_changes_nothing(db_path, call, message):
    with Store(db_path) as store:
        game = store.new_game(GameStarted(), "web")
        store.append(game, BidMade(seat="W", bid="pass"), "web", hand_no=1)
        before = _rows(db_path), store.games(), store.hands(game)
        with pytest.raises(StoreError, match=message.replace("(", r"\(")):
            call(store, game)
        assert (_rows(db_path), store.games(), store.hands(game)) == before


def test_a_finished_game_takes_no_more_events(db_path):
    with Store(db_path) as store:
        game = store.new_game(GameStarted(), "web")
        store.end_game(game)
        with pytest.raises(StoreError, match=f"append to game {game}: the game is over"):
            store.append(game, BidMade(seat="W", bid="pass"), "web")
        assert len(store.events(game)) == 1


def test_sources_are_the_three_of_the_design():
    assert SOURCES == ("camera", "web", "simulator")


def test_a_file_that_is_not_a_store_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"shopping list: bread, cards, felt\n" * 100)
    with pytest.raises(StoreError, match="notes.db: cannot use the store: file is not a"):
        Store(path)
    assert path.read_bytes() == b"shopping list: bread, cards, felt\n" * 100
    with pytest.raises(StoreError, match="cannot open the store"):
        Store(tmp_path / "no" / "such" / "dir" / "t.db")
