"""The table service: events are checked by the rules engine before they are
stored, every stored event is published with the new state, renonces and
unknown cards raise alerts, a restart continues where the game was, and the
export gives back the hand records and scores."""

from __future__ import annotations

import csv
import io

import pytest

from companion.bus import Bus
from companion.export import export_game, hand_records, scores_csv
from companion.service import NoGameError, ServiceError, TableService
from companion.store import Store
from scorer.events import BidMade, CardPlayed, GameStarted
from scorer.game import IllegalEventError, replay
from scorer.rules import UnknownSettingError
from scorer.simulate import simulate_game


def drain(sub):
    out = []
    while (msg := sub.get(timeout=0)) is not None:
        out.append(msg)
    return out


@pytest.fixture
def table(tmp_path):
    store = Store(tmp_path / "table.db")
    bus = Bus()
    yield store, bus, TableService(store, bus)
    store.close()


def play(service, events, source="simulator"):
    service.start_game(events[0], source)
    for e in events[1:]:
        service.submit(e, source)


def test_a_simulated_game_goes_through_stored_folded_and_published(table):
    store, bus, service = table
    events = simulate_game(11, hands=2)
    sub = bus.subscribe(maxsize=10_000)
    play(service, events)
    assert [s.event for s in store.events(service.game_id)] == events
    assert service.state.to_json() == replay(events).to_json()
    msgs = drain(sub)
    published = [m.data["event"] for m in msgs if m.topic == "event"]
    assert published == [e.to_json() for e in events]
    states = [m for m in msgs if m.topic == "state"]
    assert len(states) == len(events)
    assert states[-1].data["scores"] == replay(events).to_json()["scores"]
    assert states[-1].data["game_id"] == service.game_id
    assert states[-1].data["events"] == len(events)


def test_a_refused_event_stores_and_publishes_nothing(table):
    store, bus, service = table
    events = simulate_game(5, hands=1)
    service.start_game(events[0])
    before = service.state_json()
    sub = bus.subscribe()
    speaker = before["to_speak"]
    wrong = next(s for s in "NESW" if s != speaker)
    with pytest.raises(IllegalEventError):
        service.submit(BidMade(seat=wrong, bid="80H"))
    with pytest.raises(ServiceError, match="not an event"):
        service.submit({"type": "BidMade"})
    with pytest.raises(ServiceError, match="use start_game"):
        service.submit(GameStarted())
    assert len(store.events(service.game_id)) == 1
    assert service.state_json() == before
    assert drain(sub) == []


def test_no_game_no_submit_and_bad_rules_start_nothing(table):
    store, _, service = table
    with pytest.raises(NoGameError, match="no game is open"):
        service.submit(BidMade(seat="W", bid="pass"))
    with pytest.raises(UnknownSettingError):
        service.start_game(GameStarted(settings={"no_such_setting": 1}))
    assert store.games() == []


def test_a_renonce_is_flagged_when_the_proving_card_is_played(table):
    _, bus, service = table
    events = simulate_game(3, hands=2, inject_renonce=True)
    sub = bus.subscribe(maxsize=10_000)
    play(service, events)
    msgs = drain(sub)
    alerts = [i for i, m in enumerate(msgs) if m.topic == "alert"]
    assert len(alerts) == 1
    alert = msgs[alerts[0]].data
    assert alert["kind"] == "renonce"
    # The event published just before the alert is the card that proves it.
    last_event = [m for m in msgs[:alerts[0]] if m.topic == "event"][-1].data["event"]
    assert last_event == {"type": "CardPlayed", "seat": last_event["seat"],
                          "card": alert["proof"]["card"]}
    assert "renonce by" in alert["message"]


def test_an_unknown_card_raises_an_alert_and_play_goes_on(table):
    _, bus, service = table
    events = simulate_game(5, hands=1)
    first_play = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    play(service, events[:first_play])
    sub = bus.subscribe()
    seat = service.to_play()
    service.submit(CardPlayed(seat=seat, card=None), source="camera", confidence=0.2)
    alert = next(m.data for m in drain(sub) if m.topic == "alert")
    assert alert["kind"] == "unknown_card" and alert["seat"] == seat
    assert alert["message"] == f"unknown card at seat {seat}"
    assert service.to_play() != seat


def test_a_restart_continues_the_open_hand_where_it_was(tmp_path):
    events = simulate_game(8, hands=2)
    cut = len(events) - 13  # in the middle of the second hand's play
    with Store(tmp_path / "t.db") as store:
        play(TableService(store, Bus()), events[:cut])
    with Store(tmp_path / "t.db") as store:
        bus = Bus()
        service = TableService(store, bus)
        assert service.state.to_json() == replay(events[:cut]).to_json()
        assert bus.last["state"].data["current_trick"] == replay(events[:cut]).to_json()[
            "current_trick"]
        for e in events[cut:]:
            service.submit(e, "simulator")
        assert service.state.to_json() == replay(events).to_json()
        assert [h["hand_no"] for h in store.hands(service.game_id)] == [1, 2]
        assert [h["result"] is not None for h in service.state_json()["hands"]] == [True, True]


def test_export_gives_hand_records_and_a_csv_of_scores(table, tmp_path):
    store, _, service = table
    events = simulate_game(21, hands=3)
    play(service, events)
    state = replay(events).to_json()
    records = hand_records(replay(events).view())
    assert len(records) == len(state["hands"]) >= 3
    plays = [f"{e.seat}:{e.card}" for e in events if isinstance(e, CardPlayed)]
    assert [p for r in records for p in r.get("plays", [])] == plays
    rows = list(csv.DictReader(io.StringIO(scores_csv(replay(events).view()))))
    assert [int(r["hand_no"]) for r in rows] == [h["hand_no"] for h in state["hands"]]
    assert (int(rows[-1]["total_NS"]), int(rows[-1]["total_EW"])) == (
        state["scores"]["NS"], state["scores"]["EW"])
    paths = export_game(store, service.game_id, tmp_path / "out")
    assert [p.name for p in paths] == [f"game-{service.game_id}-hands.jsonl",
                                       f"game-{service.game_id}-scores.csv"]
    assert len(paths[0].read_text().splitlines()) == len(records)
