"""The HTML pages and the event stream, through the Flask test client and a
real waitress server: French by default, English on request, the set-up
form's checks, the history's score steps, SSE ids and resuming."""

from __future__ import annotations

import doctest
import http.client
import json
import time
from typing import Any

import pytest

import web
import web.entries
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
            "author": "Mado", "settings": "must_undertrump=true"}
    r = client.post("/setup", data={**form, "csrf_token": _token(client, "/setup"),
                                     "pin": "12"})
    assert r.status_code == 400
    assert "pin:" in r.get_data(as_text=True)
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
    r = other.post("/setup", data={"pin": "5555", "csrf_token": _token(other, "/setup")})
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
    started = time.perf_counter()
    service.set_status(camera="ok")
    (status,) = conn.read(1)
    assert time.perf_counter() - started < 0.5
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


def test_app_on_its_own_opens_its_own_table(tmp_path: Any) -> None:
    app = web.create_app({"DATABASE": str(tmp_path / "own.db")})
    client = app.test_client()
    assert client.post("/api/games", json={"pin": "4321"}).status_code == 201
    assert (tmp_path / "own.db").exists()
    assert (tmp_path / "own.db.pins.json").exists()
    assert client.get("/api/state").json["phase"] == "bidding"
    app.config["SERVICE"].store.close()


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
