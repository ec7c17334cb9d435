"""The table's PIN holds (issue 28, defects 3 and 5): 6 digits, kept as a scrypt
hash in a file written whole, attempts counted per table and kept across a
restart, sessions kept server-side (they survive a restart, die at log-out),
an empty, corrupt or plain-text PIN file handled without stopping the service.

Each "restart" builds a new app on the same real files, as the service does.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import web
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import GameStarted
from tests.web.conftest import PIN
from web import access

AUTH = {"X-Table-PIN": PIN}


def _app(service: TableService, tmp_path: Path, **extra: Any) -> Any:
    return web.create_app(service, {"TESTING": True,
                                    "PIN_FILE": str(tmp_path / "pins.json"), **extra})


def _token(client: Any, path: str = "/control") -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def _display_pins(sub: Any) -> list[str]:
    shown = []
    msg = sub.get(timeout=0.5)
    while msg is not None:
        if msg.topic == "display" and msg.data.get("kind") == "show_pin":
            shown.append(msg.data["pin"])
        msg = sub.get(timeout=0.2)
    return shown


def test_pin_is_kept_as_a_scrypt_hash_written_whole(client: Any, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    assert client.post("/api/games", json={"pin": PIN}).status_code == 201
    text = (tmp_path / "pins.json").read_text()
    assert PIN not in text
    stored = json.loads(text)["pins"]["1"]
    assert stored["kdf"] == "scrypt" and len(bytes.fromhex(stored["hash"])) == 32
    assert (tmp_path / "pins.json").stat().st_mode & 0o777 == 0o600
    assert len(synced) >= 2  # the file, then its folder
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".pins")] == []


def test_a_new_pin_has_6_to_8_digits_and_the_form_suggests_6(client: Any) -> None:
    for short in ("2468", "12345", "123456789", "12a456"):
        r = client.post("/api/games", json={"pin": short})
        assert r.status_code == 400 and r.json["field"] == "pin", short
    page = client.get("/setup").get_data(as_text=True)
    suggested = re.search(r'id="newpin"[^>]*value="(\d*)"', page)
    assert suggested and len(suggested.group(1)) == 6


def test_a_game_without_a_pin_gets_6_digits_on_the_display(service: TableService,
                                                           tmp_path: Path) -> None:
    service.start_game(GameStarted(), source="web")  # as `belote-table run` does
    sub = service.bus.subscribe()
    client = _app(service, tmp_path).test_client()  # shown as the service starts
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 403
    (made,) = _display_pins(sub)
    assert re.fullmatch(r"\d{6}", made)
    assert client.post("/api/bid", json={"bid": "pass"},
                       headers={"X-Table-PIN": made}).status_code == 200


def test_attempts_count_per_table_from_every_address_and_survive_a_restart(
        service: TableService, tmp_path: Path) -> None:
    client = _app(service, tmp_path).test_client()
    client.post("/api/games", json={"pin": PIN})
    codes = [client.post("/api/bid", json={"bid": "pass"},
                         headers={"X-Table-PIN": f"00000{i}"},
                         environ_base={"REMOTE_ADDR": f"10.0.0.{i}"}).status_code
             for i in range(5)]
    assert codes == [403] * 5
    # A restart does not clear the count: the table still refuses every PIN.
    client = _app(service, tmp_path).test_client()
    r = client.post("/api/bid", json={"bid": "pass"}, headers=AUTH,
                    environ_base={"REMOTE_ADDR": "10.0.0.99"})
    assert r.status_code == 429
    left = int(r.headers["Retry-After"])
    assert 50 <= left <= 60
    assert r.json["error"] == f"trop d'essais de code : réessayez dans {left} s"
    # No PIN at all is a 403 (the PIN is needed), not a 429.
    assert client.post("/api/bid", json={"bid": "pass"}).status_code == 403


def test_lockout_ends_and_the_right_pin_then_resets_the_count(service: TableService,
                                                              tmp_path: Path) -> None:
    app = _app(service, tmp_path, PIN_LOCKOUT_S=60)
    book: access.AccessBook = app.extensions["belote_access"]
    now = [1000.0]
    book.clock = lambda: now[0]
    client = app.test_client()
    client.post("/api/games", json={"pin": PIN})
    for _ in range(5):
        client.post("/api/bid", json={"bid": "pass"}, headers={"X-Table-PIN": "000000"})
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 429
    now[0] += 61
    assert client.post("/api/bid", json={"bid": "pass"}, headers=AUTH).status_code == 200
    # A second lockout lasts twice as long.
    for _ in range(5):
        client.post("/api/bid", json={"bid": "pass"}, headers={"X-Table-PIN": "000000"})
    assert book.locked_for(service.game_id) == pytest.approx(60)  # the count was reset
    now[0] += 61
    for _ in range(5):
        client.post("/api/bid", json={"bid": "pass"}, headers={"X-Table-PIN": "000000"})
    assert book.locked_for(service.game_id) == pytest.approx(120)


def test_a_logged_in_organiser_keeps_working_through_a_lockout(client: Any) -> None:
    client.post("/api/games", json={"pin": PIN})
    r = client.post("/control/login", data={"pin": PIN, "csrf_token": _token(client)})
    assert r.status_code == 302
    other = client.application.test_client()
    for _ in range(6):
        other.post("/api/bid", json={"bid": "pass"}, headers={"X-Table-PIN": "000000"})
    r = client.post("/api/bid", json={"bid": "pass"}, headers={"X-CSRFToken": _token(client)})
    assert r.status_code == 200


def test_session_survives_a_restart_and_dies_at_logout(service: TableService,
                                                       tmp_path: Path) -> None:
    client = _app(service, tmp_path).test_client()
    client.post("/api/games", json={"pin": PIN})
    client.post("/control/login", data={"pin": PIN, "author": "Mado",
                                         "csrf_token": _token(client)})
    cookie = client.get_cookie("session").value
    # Restart: a new app on the same files; the same cookie still opens the controls.
    again = _app(service, tmp_path).test_client()
    again.set_cookie("session", cookie)
    assert 'id="picker"' in again.get("/control").get_data(as_text=True)
    r = again.post("/api/bid", json={"bid": "pass"}, headers={"X-CSRFToken": _token(again)})
    assert r.status_code == 200 and service.events()[-1].author == "Mado"
    again.post("/control/logout", data={"csrf_token": _token(again)})
    # A copy of the cookie taken before the log-out opens nothing now.
    stolen = _app(service, tmp_path).test_client()
    stolen.set_cookie("session", cookie)
    assert 'id="login-form"' in stolen.get("/control").get_data(as_text=True)
    r = stolen.post("/api/bid", json={"bid": "pass"}, headers={"X-CSRFToken": _token(stolen)})
    assert r.status_code == 403


def test_a_plain_text_pin_file_is_hashed_on_first_read(service: TableService,
                                                       tmp_path: Path) -> None:
    service.start_game(GameStarted(), source="web")
    (tmp_path / "pins.json").write_text(json.dumps({str(service.game_id): "2468"}))
    client = _app(service, tmp_path).test_client()
    assert "2468" not in (tmp_path / "pins.json").read_text()
    assert client.post("/api/bid", json={"bid": "pass"},
                       headers={"X-Table-PIN": "2468"}).status_code == 200


@pytest.mark.parametrize("content", [b"", b"{\"1\": ", b"\xff\xfe\x00garbage", b"[1, 2]"],
                         ids=["empty", "cut", "not-utf8", "not-an-object"])
def test_an_unreadable_pin_file_is_set_aside_and_the_service_goes_on(
        tmp_path: Path, content: bytes) -> None:
    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    service.start_game(GameStarted(), source="web")
    (tmp_path / "pins.json").write_bytes(content)
    sub = service.bus.subscribe()
    app = _app(service, tmp_path)
    client = app.test_client()
    page = client.get("/control").get_data(as_text=True)
    assert "Le fichier des codes de la table était illisible" in page
    assert client.get("/api/state").status_code == 200
    (made,) = _display_pins(sub)
    assert client.post("/api/bid", json={"bid": "pass"},
                       headers={"X-Table-PIN": made}).status_code == 200
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("pins.json.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    store.close()


def test_a_corrupt_access_file_is_set_aside(service: TableService, tmp_path: Path) -> None:
    (tmp_path / "pins.sqlite").write_bytes(b"this is not a database" * 100)
    client = _app(service, tmp_path).test_client()
    assert client.post("/api/games", json={"pin": PIN}).status_code == 201
    assert any(p.name.startswith("pins.sqlite.corrupt-") for p in tmp_path.iterdir())


def test_the_login_page_shows_the_time_left_in_french(client: Any) -> None:
    client.post("/api/games", json={"pin": PIN})
    token = _token(client)
    for _ in range(5):
        client.post("/control/login", data={"pin": "000000", "csrf_token": token})
    r = client.post("/control/login", data={"pin": PIN, "csrf_token": token})
    assert r.status_code == 429 and 50 <= int(r.headers["Retry-After"]) <= 60
    page = r.get_data(as_text=True)
    assert re.search(r"trop d&#39;essais de code : réessayez dans \d+ s", page), page[-800:]
