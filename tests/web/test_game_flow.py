"""The flow of an evening: end a game now, a fixed number of hands, a time
limit, a new game with the same teams, set-up forms that start from the last
game, and a fresh table that leads its first visitor to a new game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import ContractSet, TallyEntered
from tests.web.conftest import PIN

AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
TALLY = {"points": {"NS": 120, "EW": 42}, "tricks": {"NS": 6, "EW": 2}}


def _token(client: Any, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def _start(client: Any, **extra: Any) -> int:
    body = {"teams": {"NS": "Les Rois", "EW": "Les Dames"}, "players": {"N": "Mado"},
            "pin": PIN, "dealer": "N", **extra}
    r = client.post("/api/games", json=body, headers=AUTH)
    assert r.status_code == 201, r.json
    return int(r.json["game_id"])


def _tally_hand(client: Any, taker: str = "N") -> dict[str, Any]:
    r = client.post("/api/contract", json={"taker": taker, "value": 80, "trump": "H"},
                    headers=AUTH)
    assert r.status_code == 200, r.json
    r = client.post("/api/tally", json=TALLY, headers=AUTH)
    assert r.status_code == 200, r.json
    return dict(r.json["state"])


def test_end_the_game_now_then_a_new_one_with_the_same_teams(client: Any,
                                                             service: Any) -> None:
    first = _start(client, settings={"must_undertrump": True})
    _tally_hand(client)
    r = client.post("/api/end", json={}, headers=AUTH)
    assert r.status_code == 200, r.json
    state = r.json["state"]
    assert state["phase"] == "over" and state["ended"] == "organiser"
    assert state["winner"] == "NS" and r.json["message"] == "Partie terminée par l'organisateur"
    assert service.store.current_game() is None
    # Nothing more goes into a finished game.
    assert client.post("/api/end", json={}, headers=AUTH).status_code == 409
    r = client.post("/api/games/again", json={}, headers=AUTH)
    assert r.status_code == 201, r.json
    again = r.json["state"]
    assert r.json["game_id"] != first and again["teams"] == {"NS": "Les Rois", "EW": "Les Dames"}
    assert again["players"] == {"N": "Mado"} and again["rules"]["must_undertrump"] is True
    assert again["dealer"] == "W" and again["scores"] == {"NS": 0, "EW": 0}
    # The same PIN goes on working.
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 200


def test_a_game_of_a_fixed_number_of_hands_ends_after_them(client: Any, service: Any) -> None:
    _start(client, settings={"hands": 2})
    assert _tally_hand(client)["phase"] == "bidding"
    state = _tally_hand(client, taker="E")
    assert state["phase"] == "over" and state["ended"] == "hands"
    assert len(state["hands"]) == 2


def test_the_time_limit_ends_the_game_at_the_end_of_a_hand(tmp_path: Path) -> None:
    now = [1000.0]
    store = Store(tmp_path / "t.db", clock=lambda: now[0])
    service = TableService(store, Bus())
    from scorer.events import GameStarted

    service.start_game(GameStarted(settings={"minutes": 30}))
    assert service.state_json()["ends_at"] == 1000.0 + 30 * 60
    contract = ContractSet(taker="N", value=80, trump="H")
    tally = TallyEntered(points=TALLY["points"], tricks=TALLY["tricks"])
    service.submit_many([contract, tally])
    assert service.state_json()["phase"] == "bidding"
    now[0] += 31 * 60  # past the limit in the middle of the next hand: it is played out
    service.submit(contract)
    assert service.state_json()["phase"] == "play"
    service.submit(tally)
    state = service.state_json()
    assert state["phase"] == "over" and state["ended"] == "time"
    assert [s.event.to_json()["type"] for s in service.events()][-1] == "GameEnded"
    store.close()


def test_setup_form_starts_from_the_last_game(client: Any, service: Any) -> None:
    _start(client, rules="club", settings={"hands": 6, "must_undertrump": False,
                                           "clockwise": True})
    page = client.get("/setup").get_data(as_text=True)
    assert 'value="Les Rois"' in page and 'value="Mado"' in page
    assert 'value="club" checked' in page and 'id="hands" name="hands"' in page
    assert 'value="6"' in page.split('id="hands"')[1].split(">")[0]
    assert 'value="clockwise" checked' in page
    assert '<option value="false" selected>' in page.split('id="set_must_undertrump"')[1]


def test_a_fresh_table_leads_to_a_new_game(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'id="start-first"' in page and 'href="/setup"' in page
    _start(client)
    assert 'id="start-first"' not in client.get("/").get_data(as_text=True)
    # The PIN page offers a new game too.
    visitor = client.application.test_client()
    assert 'id="new-game-link"' in visitor.get("/control").get_data(as_text=True)
