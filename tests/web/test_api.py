"""The JSON API on a real table service and SQLite file: reading the table,
entering a whole hand, corrections, refusals that change nothing, the PIN and
its rate limit, CSRF for cookie sessions, the generated OpenAPI description."""

from __future__ import annotations

import csv
import io
from typing import Any

from scorer.events import CardCorrected, CardPlayed, GameStarted
from scorer.game import replay
from scorer.record import score_record
from tests.web.conftest import PIN, api_body, one_hand, start_body

AUTH = {"X-Table-PIN": PIN}


def start(client: Any, **extra: Any) -> dict[str, Any]:
    body = {"teams": {"NS": "Les Pieds", "EW": "Les Mains"}, "pin": PIN, **extra}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def enter_hand(client: Any, events: list[Any]) -> None:
    assert isinstance(events[0], GameStarted)
    r = client.post("/api/games", json=start_body(events[0]))
    assert r.status_code == 201, r.json
    for event in events[1:]:
        path, body = api_body(event)
        r = client.post(path, json=body, headers=AUTH)
        assert r.status_code == 200, (event, r.json)


def test_state_has_the_table_before_any_game(client: Any) -> None:
    state = client.get("/api/state").json
    assert state["phase"] == "setup"
    for key in ("teams", "scores", "contract", "current_trick", "renonces", "status"):
        assert key in state


def test_whole_hand_entered_by_hand_scores_like_the_rules_engine(client: Any, service: Any) -> None:
    events = one_hand(3)
    enter_hand(client, events)
    expected = replay(events).to_json()
    state = client.get("/api/state").json
    assert state["scores"] == expected["scores"]
    assert state["hands"][0]["result"] == expected["hands"][0]["result"]
    # Every entry is stored with the web as its source and the API as its author.
    stored = service.store.events(service.game_id)
    assert len(stored) == len(events)
    assert {s.source for s in stored} == {"web"}


def test_classic_belote_hand_with_turned_card(client: Any) -> None:
    events = one_hand(2, rules="classic")
    enter_hand(client, events)
    expected = replay(events).to_json()
    state = client.get("/api/state").json
    assert state["preset"] == "classic"
    assert state["hands"][0]["record"]["turned"] == expected["hands"][0]["record"]["turned"]
    assert state["scores"] == expected["scores"]


def test_write_without_pin_is_refused_and_changes_nothing(client: Any, service: Any) -> None:
    start(client)
    before = len(service.store.events(service.game_id))
    r = client.post("/api/bid", json={"bid": "80H"})
    assert r.status_code == 403
    assert r.json["error"] == "cette modification demande le code de la table"
    r = client.post("/api/bid?lang=en", json={"bid": "80H"})
    assert r.json["error"] == "this change needs the table's PIN"
    r = client.post("/api/bid", json={"bid": "80H"}, headers={"X-Table-PIN": "0000"})
    assert r.status_code == 403
    assert len(service.store.events(service.game_id)) == before
    assert client.get("/api/state").json["bids"] == []


def test_pin_attempts_are_rate_limited(client: Any) -> None:
    start(client)
    codes = [client.post("/api/bid", json={"bid": "pass"}, headers={"X-Table-PIN": "9999"})
             .status_code for _ in range(6)]
    assert codes == [403] * 5 + [429]
    # Past the limit even the right PIN waits: guessing cannot go on.
    r = client.post("/api/bid", json={"bid": "pass"}, headers=AUTH)
    assert r.status_code == 429
    assert "trop d'essais de code" in r.json["error"]


def test_right_pin_does_not_count_against_the_limit(client: Any) -> None:
    start(client)
    for _ in range(8):
        r = client.post("/api/bid", json={"bid": "pass"}, headers=AUTH)
        assert r.status_code in (200, 409), r.json


def test_bad_input_gets_the_place_and_reason_and_changes_nothing(client: Any,
                                                                 service: Any) -> None:
    start(client)
    # The message names the field as the page does, in French unless English is asked.
    for path, body, field, french, english in [
        ("/api/bid", {"bid": "80H", "seat": "X"}, "seat", "Place : X n'est pas une place",
         "Seat: X is not a seat"),
        ("/api/contract", {"taker": "N", "value": 85, "trump": "H"}, "value",
         "Valeur : 85 n'est pas une valeur de contrat (capot, ou de 80 à 500",
         "Value: 85 is not a contract value (capot, or 80 to 500"),
        ("/api/contract", {"taker": "N", "value": 80, "trump": "Z"}, "trump",
         "Atout : Z n'est pas un atout", "Trump: Z is not a trump"),
        ("/api/play", {"seat": "W", "card": "5H"}, "card",
         "Carte : 5H n'est pas une carte de belote", "Card: 5H is not a belote card"),
        ("/api/correct", {"seat": "W", "trick": 9, "card": "7H"}, "trick",
         "Pli : 9 est hors des limites (de 1 à 8)", "Trick: 9 is out of range (1 to 8)"),
    ]:
        r = client.post(path, json=body, headers=AUTH)
        assert r.status_code == 400, (path, r.json)
        assert r.json["field"] == field
        assert r.json["error"].startswith(french), r.json
        r = client.post(path + "?lang=en", json=body, headers=AUTH)
        assert r.json["error"].startswith(english), r.json
    r = client.post("/api/bid", data="{not json", headers={**AUTH,
                                                           "Content-Type": "application/json"})
    assert r.status_code == 400
    assert "JSON" in r.json["error"]
    assert len(service.store.events(service.game_id)) == 1


def test_entry_refused_by_the_rules_is_409_and_stores_nothing(client: Any, service: Any) -> None:
    start(client)
    # The dealer is N, so W speaks first: N may not bid now.
    r = client.post("/api/bid", json={"seat": "N", "bid": "80H"}, headers=AUTH)
    assert r.status_code == 409
    assert r.json["error"]
    # No card may be played during the auction.
    r = client.post("/api/play", json={"seat": "W", "card": "7H"}, headers=AUTH)
    assert r.status_code == 409
    assert len(service.store.events(service.game_id)) == 1


def test_correction_changes_the_trick_and_the_points(client: Any, service: Any) -> None:
    events = one_hand(5)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    # Enter up to and including the first card of trick 2.
    enter_hand(client, events[:plays[4] + 1])
    state = client.get("/api/state").json
    first = state["tricks"][0]
    unplayed = next(c for c in ("7S", "8S", "7H", "8H", "7D", "8D", "7C", "8C")
                    if c not in state["played"])
    old_points = dict(state["card_points"])
    # Replace the trick's highest-scoring card by a seven: the points must drop.
    r = client.post("/api/correct", json={"seat": first["seats"][0], "trick": 1,
                                          "card": unplayed}, headers=AUTH)
    assert r.status_code == 200, r.json
    after = r.json["state"]
    assert after["tricks"][0]["cards"][0] == unplayed
    expected = replay(events[:plays[4] + 1] + [
        CardCorrected(seat=first["seats"][0], trick=1, new=unplayed)]).to_json()
    assert after["card_points"] == expected["card_points"]
    assert after["tricks"][0] != first or after["card_points"] != old_points


def test_unknown_card_then_confirmed(client: Any) -> None:
    events = one_hand(2)
    first_play = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    enter_hand(client, events[:first_play])
    seat = events[first_play].seat
    r = client.post("/api/play", json={"card": None}, headers=AUTH)
    assert r.status_code == 200, r.json
    assert r.json["state"]["unknown"] == [{"seat": seat, "trick": 1}]
    r = client.post("/api/correct", json={"seat": seat, "trick": 1,
                                          "card": events[first_play].card}, headers=AUTH)
    assert r.status_code == 200, r.json
    assert r.json["state"]["unknown"] == []
    assert r.json["state"]["current_trick"]["cards"][0]["card"] == events[first_play].card


def test_confirming_a_card_keeps_who_vouched_and_changes_nothing_else(client: Any,
                                                                      service: Any) -> None:
    events = one_hand(6)
    enter_hand(client, events)
    before = service.state_json()
    first = before["hands"][0]["result"]["tricks"][0]
    r = client.post("/api/correct", json={"seat": first["seats"][1], "trick": 1, "hand": 1,
                                          "card": first["cards"][1]},
                    headers={**AUTH, "X-Author": "Arbitre"})
    assert r.status_code == 200, r.json
    after = r.json["state"]
    assert after["hands"] == before["hands"] and after["scores"] == before["scores"]
    detail = client.get(f"/api/games/{service.game_id}/hands/1").json
    (confirmed,) = detail["corrections"]
    assert confirmed["author"] == "Arbitre" and confirmed["card"] == first["cards"][1]
    assert confirmed["trick"] == 1 and confirmed["ts"] > 0


def test_undo_cancels_the_last_entry(client: Any, service: Any) -> None:
    start(client)
    client.post("/api/bid", json={"bid": "80H"}, headers=AUTH)
    client.post("/api/bid", json={"bid": "90S"}, headers=AUTH)
    r = client.post("/api/undo", headers=AUTH)
    assert r.status_code == 200, r.json
    assert [b["bid"] for b in r.json["state"]["bids"]] == ["80H"]
    r = client.post("/api/undo", headers=AUTH)
    assert r.json["state"]["bids"] == []
    # Only the start is left: nothing more to undo, and nothing is stored for it.
    n = len(service.store.events(service.game_id))
    r = client.post("/api/undo", headers=AUTH)
    assert r.status_code == 400
    assert len(service.store.events(service.game_id)) == n


def test_new_game_needs_the_current_pin(client: Any, service: Any) -> None:
    start(client)
    first = service.game_id
    r = client.post("/api/games", json={"pin": "111111"})
    assert r.status_code == 403
    assert service.game_id == first
    r = client.post("/api/games", json={"pin": "12"}, headers=AUTH)
    assert r.status_code == 400 and r.json["field"] == "pin"
    r = client.post("/api/games", json={"pin": "111111", "rules": "ffb",
                                        "settings": {"targget": 5}}, headers=AUTH)
    assert r.status_code == 400 and "targget" in r.json["error"]
    assert service.game_id == first
    r = client.post("/api/games", json={"pin": "111111", "target": 1500}, headers=AUTH)
    assert r.status_code == 201
    assert r.json["state"]["target"] == 1500
    assert service.game_id != first
    # The new PIN, not the old one, now guards the table.
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 403
    assert client.post("/api/bid", json={"bid": "pass"},
                       headers={"X-Table-PIN": "111111"}).status_code == 200


def test_history_exports_agree_with_the_rules_engine(client: Any, service: Any) -> None:
    events = one_hand(4)
    enter_hand(client, events)
    game_id = service.game_id
    detail = client.get(f"/api/games/{game_id}/hands/1").json
    expected = replay(events).to_json()["hands"][0]
    assert [t["winner"] for t in detail["tricks"]] == [
        t["winner"] for t in expected["result"]["tricks"]]
    steps = {s["step"]: s for s in detail["steps"]}
    assert steps["score"]["NS"] == expected["result"]["score"]["NS"]
    assert steps["points"]["NS"] + steps["points"]["EW"] in (162, 252)
    assert steps["dix_de_der"]["points"] in (10, 100)
    assert steps["contract"]["made"] == expected["result"]["made"]
    record = client.get(f"/api/games/{game_id}/hands/1/record.json")
    assert "attachment" in record.headers["Content-Disposition"]
    assert score_record(record.json)["score"] == expected["result"]["score"]
    rows = list(csv.DictReader(io.StringIO(
        client.get(f"/api/games/{game_id}/scores.csv").get_data().decode("utf-8-sig")),
        delimiter=";"))
    assert len(rows) == 1
    assert int(rows[0]["Total NS"]) == expected["result"]["score"]["NS"]
    assert client.get(f"/api/games/{game_id}/hands/2").status_code == 404
    assert client.get("/api/games/999").status_code == 404


def test_openapi_is_generated_from_every_api_view(app: Any, client: Any) -> None:
    spec = client.get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.")
    api_rules = {r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/api/")}
    assert len(spec["paths"]) == len(api_rules)
    assert spec["paths"]["/api/play"]["post"]["responses"]["403"]
    assert spec["paths"]["/api/state"]["get"]["summary"]
    assert spec["paths"]["/api/games/{game_id}"]["parameters"][0]["schema"]["type"] == "integer"
    assert spec["components"]["securitySchemes"]["tablePin"]["name"] == "X-Table-PIN"


def _token(client: Any, path: str = "/control") -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def test_organiser_session_needs_the_csrf_token(client: Any, app: Any) -> None:
    start(client)
    r = client.post("/control/login", data={"pin": PIN, "author": "Mado"})
    assert r.status_code == 400  # the form without its CSRF token
    r = client.post("/control/login", data={"pin": "0000", "csrf_token": _token(client)})
    assert r.status_code == 403
    r = client.post("/control/login", data={"pin": PIN, "author": "Mado",
                                             "csrf_token": _token(client)})
    assert r.status_code == 302
    # Logged in by cookie: a call without the token could come from another site.
    r = client.post("/api/bid", json={"bid": "80H"})
    assert r.status_code == 400
    assert r.json["error"] == "la page n'est plus à jour : rechargez-la"
    r = client.post("/api/bid", json={"bid": "80H"}, headers={"X-CSRFToken": _token(client)})
    assert r.status_code == 200, r.json
    stored = app.config["SERVICE"].events()
    assert stored[-1].author == "Mado"


def test_show_pin_asks_the_display_only_with_the_pin(client: Any, service: Any) -> None:
    start(client)
    sub = service.bus.subscribe()
    # Anyone at the table could press the button: without the PIN it shows nothing.
    for data in ({}, {"pin": "000000"}):
        r = client.post("/control/show-pin", data={"csrf_token": _token(client), **data})
        assert r.status_code == 403
    r = client.post("/control/show-pin", data={"csrf_token": _token(client), "pin": PIN})
    assert r.status_code == 302
    shown = []
    msg = sub.get(timeout=1)
    while msg is not None:
        if msg.topic == "display":
            shown.append(msg.data)
        msg = sub.get(timeout=0.2)
    assert shown == [{"kind": "show_pin", "pin": PIN}]


def test_undo_takes_back_the_organisers_own_entry_never_a_camera_card(
        client: Any, service: Any) -> None:
    from scorer.events import CardPlayed

    start(client)
    mine = {**AUTH, "X-Author": "Mado"}
    for bid in ("80H", "pass", "pass", "pass"):
        assert client.post("/api/bid", json={"bid": bid}, headers=mine).status_code == 200
    # Mado announces belote for the wrong seat, then the camera reads a card.
    assert client.post("/api/belote", json={"seat": "N"}, headers=mine).status_code == 200
    to_play = service.to_play()
    camera = service.submit(CardPlayed(seat=to_play, card="7S"), source="camera",
                            confidence=0.97)
    # Another organiser's entry is not Mado's to undo either.
    assert client.post("/api/belote", json={"seat": "S"},
                       headers={**AUTH, "X-Author": "Lucien"}).status_code == 200
    preview = client.get("/api/undo", headers=mine).json
    assert preview["event"] == {"type": "BeloteAnnounced", "seat": "N"}
    assert preview["entry"] == "Nord annonce belote"
    # Naming the camera's card is refused, and so is an entry that is no longer the last.
    n = len(service.events())
    r = client.post("/api/undo", json={"index": camera.seq}, headers=mine)
    assert r.status_code == 400 and "caméra" in r.json["error"]
    r = client.post("/api/undo", json={"index": preview["index"] - 1}, headers=mine)
    assert r.status_code == 400 and "n'est plus votre dernière saisie" in r.json["error"]
    assert len(service.events()) == n
    r = client.post("/api/undo", json={"index": preview["index"]}, headers=mine)
    assert r.status_code == 200, r.json
    assert r.json["message"] == "Annulé : Nord annonce belote"
    state = r.json["state"]
    assert state["belote"] == ["S"] and state["played"] == ["7S"]
    # The bids were Mado's too; the camera's card stays whatever happens.
    for _ in range(4):
        assert client.post("/api/undo", json={}, headers=mine).status_code == 200
    r = client.post("/api/undo", json={}, headers=mine)
    assert r.status_code == 400 and r.json["error"] == "Annulation : rien de votre saisie à annuler"
    assert service.state_json()["played"] == []  # the bids are gone, so the card no longer fits
    assert any(s.seq == camera.seq for s in service.events())
