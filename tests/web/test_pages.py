"""The HTML pages and the event stream, through the Flask test client and a
real waitress server: French by default, English on request, the set-up
form's checks, the history's score steps, SSE ids and resuming."""

from __future__ import annotations

import doctest
import http.client
import json
import re
import time
from typing import Any

import pytest

import web
import web.entries
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from tests.web.conftest import PIN, api_body, one_hand, start_body

AUTH = {"X-Table-PIN": PIN}


def _token(client: Any, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def test_entries_doctests() -> None:
    assert doctest.testmod(web.entries).failed == 0


def test_live_page_is_french_by_default_and_english_on_request(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert '<html lang="fr">' in page
    assert "Donneur" in page and "Historique" in page
    page = client.get("/?lang=en").get_data(as_text=True)
    assert "Dealer" in page and "History" in page
    client.get("/lang/en")
    assert "History" in client.get("/history").get_data(as_text=True)
    client.get("/lang/fr")
    assert "Donneur" in client.get("/").get_data(as_text=True)


def test_live_page_carries_everything_it_draws_and_nothing_from_outside(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    for anchor in ("score-NS", "score-EW", "team-NS", "target", "dealer", "contract",
                   "seat-N", "seat-W", "to-play", "tricks-NS", "points-EW",
                   "renonce-banner", "unknown-prompt", "camera-status", "display-status"):
        assert f'id="{anchor}"' in page
    assert "http://" not in page and "https://" not in page
    policy = client.get("/").headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "/static/table.js" in page


def test_setup_form_starts_a_game_and_logs_the_organiser_in(client: Any, service: Any) -> None:
    form = {"team_NS": "Les As", "team_EW": "Les Rois", "player_N": "Mado", "rules": "ffb",
            "target": "1500", "direction": "clockwise", "dealer": "E", "pin": PIN,
            "author": "Mado", "set_must_undertrump": "true"}
    r = client.post("/setup", data={**form, "csrf_token": _token(client, "/setup"),
                                     "pin": "12"})
    assert r.status_code == 400
    assert "le code de la table doit avoir de 6 à 8 chiffres" in r.get_data(as_text=True)
    assert service.game_id is None
    r = client.post("/setup", data={**form, "csrf_token": _token(client, "/setup"),
                                     "settings": "undertrump=yes"})
    assert r.status_code == 400 and "undertrump" in r.get_data(as_text=True)
    assert service.game_id is None
    r = client.post("/setup", data={**form, "csrf_token": _token(client, "/setup")})
    assert r.status_code == 302
    state = service.state_json()
    assert state["teams"] == {"NS": "Les As", "EW": "Les Rois"}
    assert state["target"] == 1500 and state["dealer"] == "E"
    assert state["rules"]["clockwise"] is True and state["rules"]["must_undertrump"] is True
    # The organiser's page now shows the controls, not the PIN form.
    page = client.get("/control").get_data(as_text=True)
    assert 'id="picker"' in page and 'id="login-form"' not in page
    assert page.count('class="red"') == 16  # hearts and diamonds in the picker


def test_setup_form_without_the_current_pin_is_refused(client: Any, app: Any,
                                                       service: Any) -> None:
    client.post("/api/games", json={"pin": PIN})
    first = service.game_id
    other = app.test_client()
    r = other.post("/setup", data={"pin": "555555", "csrf_token": _token(other, "/setup")})
    assert r.status_code == 403
    assert service.game_id == first
    assert 'id="login-form"' in other.get("/control").get_data(as_text=True)


def test_history_shows_the_hand_step_by_step(client: Any, service: Any) -> None:
    events = one_hand(4)
    client.post("/api/games", json=start_body(events[0]))
    for event in events[1:]:
        path, body = api_body(event)
        assert client.post(path, json=body, headers=AUTH).status_code == 200
    game_id = service.game_id
    assert f"/history/{game_id}" in client.get("/history").get_data(as_text=True)
    page = client.get(f"/history/{game_id}?lang=en").get_data(as_text=True)
    assert "details" in page and "/scores.csv" in page
    page = client.get(f"/history/{game_id}/hands/1?lang=en").get_data(as_text=True)
    for words in ("Auction", "Card points in the tricks won", "Dix de der", "Points made",
                  "Score for the hand", "Rounded to the nearest ten", "/record.json"):
        assert words in page
    assert page.count("<tr><td>") >= 8  # the eight tricks
    sheet = client.get(f"/history/{game_id}/sheet").get_data(as_text=True)
    assert "Feuille de marque" in sheet and "@media print" not in sheet
    assert client.get(f"/history/{game_id}/hands/9").status_code == 404


def _seq(event_id: str) -> int:
    """The bus number in an SSE id (``<run>-<number>``)."""
    return int(event_id.rpartition("-")[2])


class Stream:
    """A raw SSE client: reads ``id``/``event``/``data`` messages off the socket."""

    def __init__(self, server: Any, last_id: str | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3)
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        self.conn.request("GET", "/events", headers=headers)
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        assert self.resp.getheader("Content-Type", "").startswith("text/event-stream")

    def read(self, want: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        msg: dict[str, Any] = {}
        while len(out) < want:
            line = self.resp.readline().decode().rstrip("\n")
            if not line:
                if "event" in msg:
                    out.append(msg)
                msg = {}
                continue
            key, _, value = line.partition(": ")
            msg[key] = json.loads(value) if key == "data" else value
        return out

    def close(self) -> None:
        self.resp.close()
        self.conn.close()


def test_event_stream_sends_the_state_then_each_change_with_ids(server: Any,
                                                                service: Any) -> None:
    conn = Stream(server)
    first = conn.read(2)
    assert [m["event"] for m in first] == ["state", "status"]
    assert first[0]["data"]["phase"] == "setup"
    service.set_status(camera="ok")
    (status,) = conn.read(1)
    # Pushed as it was published, not found by a later poll: it carries that message's number.
    assert _seq(status["id"]) == service.bus.last["status"].seq
    assert status["event"] == "status" and status["data"]["camera"] == "ok"
    assert _seq(status["id"]) > _seq(first[0]["id"])
    conn.close()


def test_event_stream_resumes_after_a_dropped_connection(server: Any, client: Any,
                                                         service: Any) -> None:
    conn = Stream(server)
    (state, _status) = conn.read(2)
    last_id = state["id"]
    conn.close()
    # While the browser is away, a game starts.
    client.post("/api/games", json={"teams": {"NS": "A", "EW": "B"}, "pin": PIN})
    conn = Stream(server, last_id)
    (missed, _status) = conn.read(2)
    assert missed["event"] == "state" and _seq(missed["id"]) > _seq(last_id)
    assert missed["data"]["teams"] == {"NS": "A", "EW": "B"}
    up_to_date = missed["id"]
    conn.close()
    # A browser that missed nothing gets no state again, only what is new.
    conn = Stream(server, up_to_date)
    (status,) = conn.read(1)
    assert status["event"] == "status"
    service.set_status(display="ok")
    (new,) = conn.read(1)
    assert new["event"] == "status" and new["data"]["display"] == "ok"
    conn.close()
    # An id from another run of the server (before a restart) gets the state again.
    conn = Stream(server, "0badc0de-" + str(_seq(up_to_date) + 100))
    assert conn.read(1)[0]["event"] == "state"
    conn.close()


def test_event_streams_are_capped_and_a_closed_one_frees_its_place(app: Any) -> None:
    app.config["MAX_STREAMS"] = 1
    with web.serve(app, port=0) as srv:
        first = Stream(srv)
        first.read(1)
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=3)
        conn.request("GET", "/events")
        resp = conn.getresponse()
        assert resp.status == 503 and resp.getheader("Retry-After") == "5"
        resp.read()
        conn.close()
        first.close()
        # The server notices the closed stream at its next write (at most a keepalive away);
        # publishing something makes that write happen now.
        deadline = time.monotonic() + 3
        while app.extensions["belote_streams"].open and time.monotonic() < deadline:
            app.config["SERVICE"].set_status(camera="ok")
            time.sleep(0.05)
        second = Stream(srv)
        assert second.read(1)[0]["event"] == "state"
        second.close()


def test_app_works_on_the_table_it_is_given(tmp_path: Any) -> None:
    """The web page never opens a table of its own: it is given the service (with its
    store and bus), and keeps the PINs beside that store's file."""
    service = TableService(Store(tmp_path / "own.db"), Bus())
    app = web.create_app(service)
    assert app.config["SERVICE"] is service
    client = app.test_client()
    assert client.post("/api/games", json={"pin": "432187"}).status_code == 201
    assert (tmp_path / "own.db").exists()
    assert (tmp_path / "own.db.pins.json").exists()
    assert client.get("/api/state").json["phase"] == "bidding"
    assert service.game_id is not None  # the game was opened on the given service
    service.store.close()


def test_app_refuses_a_service_in_its_config(service: Any) -> None:
    with pytest.raises(TypeError, match="first argument"):
        web.create_app(service, {"SERVICE": service})


def test_server_binds_loopback_and_refuses_debug(app: Any) -> None:
    srv = web.serve(app, port=0)
    try:
        assert srv.host == "127.0.0.1" and srv.port > 0
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=3)
        conn.request("GET", "/api/state")
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["phase"] == "setup"
        conn.close()
    finally:
        srv.close()
    app.debug = True
    with pytest.raises(RuntimeError, match="debug"):
        web.serve(app, port=0)


def _enter(client: Any, events: list[Any]) -> None:
    assert client.post("/api/games", json=start_body(events[0])).status_code == 201
    for event in events[1:]:
        path, body = api_body(event)
        r = client.post(path, json=body, headers=AUTH)
        assert r.status_code == 200, (event, r.json)


def test_history_hand_shows_renonce_proof_and_each_correction_with_who_and_when(
        client: Any, service: Any) -> None:
    from scorer.game import replay
    from scorer.simulate import simulate_game

    events = next(e for e in (simulate_game(s, hands=1, inject_renonce=True)
                              for s in range(1, 60))
                  if replay(e).hands and replay(e).hands[0]["result"]["renonces"])
    _enter(client, events)
    result = service.state_json()["hands"][0]["result"]
    (renonce,) = result["renonces"]
    first = result["tricks"][0]
    r = client.post("/api/correct", json={"seat": first["seats"][2], "trick": 1, "hand": 1,
                                          "card": first["cards"][2]},
                    headers={**AUTH, "X-Author": "Arbitre"})
    assert r.status_code == 200, r.json
    page = client.get(f"/history/{service.game_id}/hands/1?lang=en").get_data(as_text=True)
    renonces = page.split('id="renonces"')[1].split("</ul>")[0]
    seats = {"N": "North", "E": "East", "S": "South", "W": "West"}
    proof = renonce["proof"]["card"]
    assert f"{seats[renonce['seat']]} in trick {renonce['trick']}" in renonces
    assert f'data-card="{proof}"' in renonces or web.i18n.SUIT_SYMBOLS[proof[1]] in renonces
    assert f"in trick {renonce['proof']['trick']}" in renonces
    corrections = page.split('id="corrections"')[1].split("</ul>")[0]
    assert "Arbitre (by hand)" in corrections and "none" not in corrections
    assert re.search(r"\d{1,2}:\d{2}", corrections), corrections  # when it was made
    assert f'data-card="{first["cards"][2]}"' in corrections
    # The same undo or correction is listed by the API with its time.
    (listed,) = client.get(f"/api/games/{service.game_id}/hands/1").json["corrections"]
    assert listed["author"] == "Arbitre" and listed["ts"] > 0


def test_history_steps_show_the_contre_multiplier(client: Any, service: Any) -> None:
    from scorer.events import BidMade, ContractSet
    from scorer.game import replay

    events = one_hand(8)
    contract = replay(events).hands[0]["result"]["contract"]
    entered = [events[0], ContractSet(**{**contract, "double": 4}),
               *(e for e in events[1:] if not isinstance(e, BidMade))]
    _enter(client, entered)
    page = client.get(f"/history/{service.game_id}/hands/1").get_data(as_text=True)
    steps = page.split('id="steps"')[1].split("</ol>")[0]
    assert "surcontré : × 4" in steps  # French puts a space before the colon
    # What the winners get is worked out: FFB 10.2's table, 160 × 4.
    assert "Ce que marque chaque équipe" in steps and "160 × 4 = 640" in steps
    assert "surcontré" in page.split("Contrat")[1]  # in the contract line too
    score = replay(entered).hands[0]["result"]["score"]
    assert f"NS {score['NS']}, " in steps.replace(service.state_json()["teams"]["NS"], "NS")


def test_login_form_pin_attempts_are_rate_limited(client: Any) -> None:
    client.post("/api/games", json={"pin": PIN})
    token = _token(client, "/control")
    # Refusals on the log-in form and the set-up form count together.
    codes = [client.post("/control/login", data={"pin": "0000", "csrf_token": token}
                         ).status_code for _ in range(3)]
    codes += [client.post("/setup", data={"pin": "555555", "current_pin": "0000",
                                          "csrf_token": token}).status_code for _ in range(2)]
    codes.append(client.post("/control/login", data={"pin": "0000", "csrf_token": token}
                             ).status_code)
    assert codes == [403] * 5 + [429]
    r = client.post("/control/login", data={"pin": PIN, "csrf_token": token})
    assert r.status_code == 429
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 429
    assert 'id="login-form"' in client.get("/control").get_data(as_text=True)


def test_no_page_or_static_file_loads_anything_from_outside(client: Any,
                                                           service: Any) -> None:
    _enter(client, one_hand(4))
    game_id = service.game_id
    client.post("/control/login", data={"pin": PIN, "csrf_token": _token(client, "/control")})
    pages = ["/", "/control", "/setup", "/history", f"/history/{game_id}",
             f"/history/{game_id}/sheet", f"/history/{game_id}/hands/1"]
    assert 'id="picker"' in client.get("/control").get_data(as_text=True)
    assets = set()
    for path in pages:
        r = client.get(path)
        assert r.status_code == 200, path
        text = r.get_data(as_text=True)
        # Every src/href is a path on this server.
        for link in re.findall(r'(?:src|href)="([^"]*)"', text):
            assert link.startswith(("/", "#")) and not link.startswith("//"), (path, link)
            if link.startswith("/static/"):
                assets.add(link)
        assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert {"/static/style.css", "/static/table.js", "/static/control.js",
            "/static/print.js"} <= assets
    for asset in assets:
        with client.get(asset) as r:
            text = r.get_data(as_text=True)
        assert not re.search(r"(https?:)?//[\w.-]+\.\w+/", text), asset
        assert "@import" not in text and "url(http" not in text


@pytest.mark.parametrize("rules,settings", [
    ("ffb", None), ("ffb-pfd", None), ("ffb-pfd-note1", None), ("classic", None),
    ("ffb", {"contre_scoring": "multiply", "sans_tout_atout": True}),
])
def test_each_teams_score_is_broken_down_into_the_scorers_parts(
        rules: str, settings: dict[str, Any] | None) -> None:
    from scorer.game import replay
    from scorer.simulate import simulate_game
    from web.gamebook import award, steps

    seen = set()
    for seed in range(10):
        state = replay(simulate_game(seed, hands=6, rules=rules, settings=settings,
                                     inject_renonce=seed % 3 == 0)).to_json()
        for h in state["hands"]:
            result = h["result"]
            parts = award(result)
            if not result.get("contract") or result.get("cancelled"):
                assert parts is None
                assert "award" not in [s["step"] for s in steps(result, state["rules"])]
                continue
            # The page shows the scorer's own parts, which add up to its score.
            assert parts == result["parts"], result
            for team in ("NS", "EW"):
                assert sum(p["points"] for p in parts[team]) == result["score"][team]
                seen.update(p["what"] for p in parts[team])
            shown = steps(result, state["rules"])
            assert [s["step"] for s in shown][-2:] == ["award", "score"]
            assert {t: shown[-2][t] for t in ("NS", "EW")} == result["parts"]
    assert {"points", "fallen", "renonce", "belote"} <= seen
    if rules != "classic":
        assert "contre" in seen  # contré and surcontré hands were among them


def _award_line(page: str) -> str:
    steps = page.split('id="steps"')[1].split("</ol>")[0]
    return " ".join(steps.split('id="award">')[1].split("</li>")[0].split())


def test_history_award_shows_a_contract_renonce_on_a_capot_as_500(client: Any,
                                                                  service: Any) -> None:
    from scorer.cards import other_team, team_of
    from scorer.events import BeloteAnnounced, BidMade, ContractSet
    from scorer.game import replay
    from scorer.simulate import simulate_game

    def first_hand_renonce(events: list[Any]) -> bool:
        hands = replay(events).hands
        return bool(hands and hands[0]["result"]["contract"] and hands[0]["result"]["renonces"])

    events = next(e for e in (simulate_game(s, hands=1, rules="club", inject_renonce=True)
                              for s in range(1, 80)) if first_hand_renonce(e))
    contract = replay(events).hands[0]["result"]["contract"]
    # The same cards under a capot contract: the club's contract penalty is then 500.
    entered = [events[0], ContractSet(**{**contract, "value": "capot", "double": 1}),
               *(e for e in events[1:] if not isinstance(e, BidMade | BeloteAnnounced))]
    _enter(client, entered)
    state = service.state_json()
    result = state["hands"][0]["result"]
    other = other_team(team_of(result["renonces"][0]["seat"]))
    assert result["score"] == {other: 500, other_team(other): 0}
    page = client.get(f"/history/{service.game_id}/hands/1?lang=en").get_data(as_text=True)
    teams = state["teams"]
    shown = {other: "Renonce 500", other_team(other): "0"}
    assert _award_line(page) == (f"What each team scores: {teams['NS']} {shown['NS']}; "
                                 f"{teams['EW']} {shown['EW']}")


def test_history_award_shows_the_litige_points_held_over_to_the_next_winners(
        client: Any, service: Any) -> None:
    from scorer.events import BidMade, CardTurned, GameStarted

    started = GameStarted(rules="classic", dealer="N", teams={"NS": "Nord", "EW": "Est"})
    _enter(client, [started, CardTurned(card="9H"), BidMade("W", "take")])
    tally = {"points": {"NS": 81, "EW": 81}, "tricks": {"NS": 4, "EW": 4}}
    assert client.post("/api/tally", json=tally, headers=AUTH).status_code == 200
    # Hand 2 (dealer W): S takes and makes it; NS also take the 81 that waited.
    for path, body in (api_body(CardTurned(card="7S")), api_body(BidMade("S", "take"))):
        assert client.post(path, json=body, headers=AUTH).status_code == 200
    tally = {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 3}}
    assert client.post("/api/tally", json=tally, headers=AUTH).status_code == 200
    hands = service.state_json()["hands"]
    assert hands[1]["result"]["score"] == {"NS": 181, "EW": 62}
    litige = _award_line(client.get(f"/history/{service.game_id}/hands/1").get_data(
        as_text=True))
    assert litige == "Ce que marque chaque équipe : Nord points 81; Est 0", litige
    after = client.get(f"/history/{service.game_id}/hands/2").get_data(as_text=True)
    assert _award_line(after) == ("Ce que marque chaque équipe : Nord points 100 + "
                                  "report du litige 81 = 181; Est points 62"), _award_line(after)
    after = client.get(f"/history/{service.game_id}/hands/2?lang=en").get_data(as_text=True)
    assert "Nord points 100 + held over from the litige 81 = 181; Est points 62" in \
        _award_line(after)
