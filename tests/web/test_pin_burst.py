"""The PIN holds under a burst (issue 74): 100 wrong PINs sent at once, over
HTTP to the real waitress server on a real SQLite access file, get
``PIN_MAX_FAILURES`` checks at most (the others are refused, 429, unchecked),
and the lockout grows one step per burst, as it does one guess at a time.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import web
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from tests.web.conftest import PIN
from web import access

MAX_FAILURES = 5
LOCKOUT_S = 60


def _burst(ports: list[int], guesses: int) -> Counter[int]:
    """``guesses`` wrong PINs, each on its own connection and thread, spread
    over ``ports`` and released together; how many got each status."""
    ready = threading.Barrier(guesses)
    statuses: list[int] = []
    lock = threading.Lock()

    def guess(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", ports[i % len(ports)], timeout=60)
        try:
            conn.connect()
            body = json.dumps({"bid": "pass"})
            headers = {"Content-Type": "application/json", access.PIN_HEADER: f"{i:06d}"[-6:]}
            ready.wait(timeout=30)
            conn.request("POST", "/api/bid", body=body, headers=headers)
            status = conn.getresponse().status
        finally:
            conn.close()
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=guess, args=(i + 1,)) for i in range(guesses)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(statuses) == guesses
    return Counter(statuses)


@pytest.fixture
def table(tmp_path: Path) -> Any:
    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    yield service
    store.close()


def _served(service: TableService, tmp_path: Path) -> tuple[Any, Any]:
    app = web.create_app(service, {"TESTING": True, "PIN_FILE": str(tmp_path / "pins.json"),
                                   "PIN_MAX_FAILURES": MAX_FAILURES,
                                   "PIN_LOCKOUT_S": LOCKOUT_S})
    return app, web.serve(app, port=0)


def _start(app: Any) -> None:
    assert app.test_client().post("/api/games", json={"pin": PIN}).status_code == 201


def test_100_wrong_pins_at_once_get_5_checks_and_one_lockout(table: TableService,
                                                              tmp_path: Path) -> None:
    app, server = _served(table, tmp_path)
    try:
        _start(app)
        statuses = _burst([server.port], 100)
        # 403: the PIN was checked (and was wrong); 429: refused unchecked.
        assert set(statuses) <= {403, 429}, statuses
        assert 1 <= statuses[403] <= MAX_FAILURES, statuses
        assert statuses[429] == 100 - statuses[403]
        book: access.AccessBook = app.extensions["belote_access"]
        # One lockout, its first length: not straight to the cap.
        assert LOCKOUT_S - 5 < book.locked_for(table.game_id) <= LOCKOUT_S
        # Even the right PIN waits now.
        right = app.test_client().post("/api/bid", json={"bid": "pass"},
                                       headers={access.PIN_HEADER: PIN})
        assert right.status_code == 429
    finally:
        server.close()


def test_the_lockout_grows_one_step_per_burst(table: TableService, tmp_path: Path) -> None:
    app, server = _served(table, tmp_path)
    book: access.AccessBook = app.extensions["belote_access"]
    now = [1000.0]
    book.clock = lambda: now[0]
    try:
        _start(app)
        for wait in (60, 120, 240, 480):
            statuses = _burst([server.port], 100)
            assert statuses[403] <= MAX_FAILURES and statuses[429] >= 100 - MAX_FAILURES
            assert book.locked_for(table.game_id) == pytest.approx(wait)
            now[0] += wait + 1
    finally:
        server.close()


def test_two_servers_on_one_access_file_share_the_5_checks(table: TableService,
                                                          tmp_path: Path) -> None:
    """Two apps on the same files (as two processes would be: each its own
    SQLite connection and lock): the count is kept by the file's transaction."""
    first, one = _served(table, tmp_path)
    _start(first)
    second, two = _served(table, tmp_path)
    assert first.extensions["belote_access"] is not second.extensions["belote_access"]
    try:
        statuses = _burst([one.port, two.port], 100)
        assert 1 <= statuses[403] <= MAX_FAILURES, statuses
        assert statuses[429] == 100 - statuses[403]
    finally:
        one.close()
        two.close()
