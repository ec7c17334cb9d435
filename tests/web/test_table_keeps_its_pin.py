"""A table stays its organiser's (issue 74): it keeps its PIN from game to game
and across restarts, a new game needs it (a finished game, then a restart,
once let anyone start one and lock the organiser out), and only
``belote-table pin reset``, run at the Pi, clears it.

Each "restart" is a new store, service and app on the same real files, served
by the real waitress server; the reset runs as the organiser runs it, in a
process of its own, while the table is served.
"""

from __future__ import annotations

import http.client
import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import web
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from tests.web.conftest import PIN

ROOT = Path(__file__).resolve().parents[2]
OTHER = "975310"


class Table:
    """The table service, its app and its server on ``folder``'s files."""

    def __init__(self, folder: Path) -> None:
        self.db = folder / "table.db"
        self.store = Store(self.db)
        self.service = TableService(self.store, Bus())
        self.app = web.create_app(self.service, {"TESTING": True})
        self.server = web.serve(self.app, port=0)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None,
             pin: str | None = None) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if pin is not None:
            headers["X-Table-PIN"] = pin
        try:
            conn.request(method, path, body=json.dumps(body or {}), headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        return resp.status, (json.loads(data) if data.startswith(b"{") else {})

    def close(self) -> None:
        self.server.close()
        self.store.close()


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[list[Table]]:
    opened: list[Table] = []
    yield opened
    for t in opened:
        t.close()


def _restart(tables: list[Table], folder: Path) -> Table:
    if tables:
        tables[-1].close()
        tables.pop()
    table = Table(folder)
    tables.append(table)
    return table


def _finished_game(tables: list[Table], folder: Path) -> Table:
    """A game started with ``PIN`` and ended; then the service restarts."""
    table = _restart(tables, folder)
    assert table.call("POST", "/api/games", {"pin": PIN})[0] == 201
    assert table.call("POST", "/api/end", pin=PIN)[0] == 200
    assert table.store.current_game() is None
    return _restart(tables, folder)


def _token(client: Any, path: str = "/control") -> str:
    page: str = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def pin_reset(db: Path, *extra: str, stdin: Any = subprocess.DEVNULL,
              ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(LANG="C.UTF-8", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "cli.main", "pin", "reset", "--db", str(db),
                           *extra], capture_output=True, text=True, env=env, timeout=60,
                          stdin=stdin)


def test_after_a_finished_game_and_a_restart_a_new_game_needs_the_pin(
        tables: list[Table], tmp_path: Path) -> None:
    table = _finished_game(tables, tmp_path)
    assert table.service.game_id is None
    status, body = table.call("POST", "/api/games", {"pin": OTHER})
    assert status == 403, body
    assert body["error"] == "cette modification demande le code de la table"
    assert len(table.store.games()) == 1
    # The organiser's PIN still opens the table: a new game, keeping the PIN.
    status, body = table.call("POST", "/api/games", {"teams": {"NS": "Les As"}}, pin=PIN)
    assert status == 201, body
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=OTHER)[0] == 403
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 200


def test_the_pin_is_kept_from_game_to_game_and_a_new_one_may_be_chosen(
        tables: list[Table], tmp_path: Path) -> None:
    table = _restart(tables, tmp_path)
    # A table without a PIN: the first game must choose one.
    status, body = table.call("POST", "/api/games", {})
    assert status == 400 and body["field"] == "pin"
    assert table.call("POST", "/api/games", {"pin": PIN})[0] == 201
    assert table.call("POST", "/api/games", {}, pin=PIN)[0] == 201  # kept
    table = _restart(tables, tmp_path)
    assert table.call("POST", "/api/games", {"pin": OTHER}, pin=PIN)[0] == 201  # changed
    table = _restart(tables, tmp_path)
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 403
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=OTHER)[0] == 200


def test_the_setup_page_after_a_restart_asks_for_the_tables_pin(
        tables: list[Table], tmp_path: Path) -> None:
    table = _finished_game(tables, tmp_path)
    client = table.app.test_client()
    page = client.get("/setup").get_data(as_text=True)
    assert 'id="current_pin"' in page and "Code actuel de la table" in page
    assert re.search(r'id="newpin"[^>]*value=""', page)  # empty: the table keeps its PIN
    form = {"team_NS": "Nous", "csrf_token": _token(client, "/setup")}
    r = client.post("/setup", data=form)
    assert r.status_code == 403 and len(table.store.games()) == 1
    r = client.post("/setup", data={**form, "current_pin": PIN})
    assert r.status_code == 302 and len(table.store.games()) == 2
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 200


def test_the_organisers_session_survives_the_end_and_a_restart(
        tables: list[Table], tmp_path: Path) -> None:
    table = _restart(tables, tmp_path)
    assert table.call("POST", "/api/games", {"pin": PIN})[0] == 201
    client = table.app.test_client()
    client.post("/control/login", data={"pin": PIN, "csrf_token": _token(client)})
    assert table.call("POST", "/api/end", pin=PIN)[0] == 200
    cookie = client.get_cookie("session")
    assert cookie is not None
    table = _restart(tables, tmp_path)
    again = table.app.test_client()
    again.set_cookie("session", cookie.value)
    r = again.post("/api/games", json={}, headers={"X-CSRFToken": _token(again, "/setup")})
    assert r.status_code == 201, r.json
    # A stranger's browser, without the cookie, cannot.
    assert table.app.test_client().post("/api/games", json={"pin": OTHER}).status_code == 403


def test_pin_reset_at_the_pi_frees_a_table_with_no_game_open(
        tables: list[Table], tmp_path: Path) -> None:
    table = _finished_game(tables, tmp_path)
    run = pin_reset(table.db, "--yes")
    assert run.returncode == 0, run.stderr
    assert "Le code de la table est effacé" in run.stdout
    assert "Aucune partie en cours" in run.stdout
    # The running service reads the PIN file again: the table is nobody's.
    assert table.call("POST", "/api/games", {"pin": OTHER})[0] == 201
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 403
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=OTHER)[0] == 200


def test_pin_reset_during_a_game_gives_it_a_new_pin_and_logs_everyone_out(
        tables: list[Table], tmp_path: Path) -> None:
    table = _restart(tables, tmp_path)
    assert table.call("POST", "/api/games", {"pin": PIN})[0] == 201
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 200  # remembered
    client = table.app.test_client()
    client.post("/control/login", data={"pin": PIN, "csrf_token": _token(client)})
    for _ in range(4):  # failed attempts are forgotten too
        table.call("POST", "/api/bid", {"bid": "pass"}, pin="000000")
    run = pin_reset(table.db, "--yes")
    assert run.returncode == 0, run.stderr
    found = re.search(r"Partie (\d+) en cours : nouveau code (\d{6})", run.stdout)
    assert found and int(found.group(1)) == table.service.game_id, run.stdout
    new = found.group(2)
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=PIN)[0] == 403
    r = client.post("/api/bid", json={"bid": "pass"}, headers={"X-CSRFToken": _token(client)})
    assert r.status_code == 403
    assert table.call("POST", "/api/bid", {"bid": "pass"}, pin=new)[0] == 200
    book = table.app.extensions["belote_access"]
    assert book.locked_for(table.service.game_id) == 0


def test_pin_reset_asks_first_and_changes_nothing_unless_confirmed(tmp_path: Path) -> None:
    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    app = web.create_app(service, {"TESTING": True})
    assert app.test_client().post("/api/games", json={"pin": PIN}).status_code == 201
    store.close()
    pins = Path(str(tmp_path / "table.db") + ".pins.json")
    before = pins.read_bytes()
    run = pin_reset(tmp_path / "table.db")  # no terminal to ask on
    assert run.returncode == 2 and "confirmez avec --yes" in run.stderr
    assert pins.read_bytes() == before
    for answer, code in (("n\n", 1), ("oui\n", 0)):
        leader, follower = pty.openpty()
        try:
            os.write(leader, answer.encode())
            run = pin_reset(tmp_path / "table.db", stdin=follower)
        finally:
            os.close(leader)
            os.close(follower)
        assert run.returncode == code, (answer, run.stdout, run.stderr)
        assert "Effacer le code de la table" in run.stdout
        assert (pins.read_bytes() == before) == (code == 1)
    missing = pin_reset(tmp_path / "nowhere.db", "--yes")
    assert missing.returncode == 1 and "pas de table ici" in missing.stderr
