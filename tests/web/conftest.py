"""Fixtures for the web page's tests: a real table service on a real SQLite
file, the Flask app around it, a real waitress server, and Debian's chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardPlayed,
    CardTurned,
    ContractSet,
    Event,
    GameStarted,
)
from scorer.game import replay
from scorer.simulate import simulate_game

PIN = "246813"
#: A phone's screen, as the pages are checked on it.
PHONE = {"width": 390, "height": 844}


def phone_tab(browser: Any) -> Iterator[Any]:
    """A French tab of the run's browser at a phone's size; a script error on its pages
    fails the test (a fixture yields from it, at the scope it needs)."""
    context = browser.new_context(viewport=PHONE, locale="fr-FR")
    page = context.new_page()
    page.set_default_timeout(5000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    yield page
    context.close()
    assert not problems, problems


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    store = Store(tmp_path / "table.db")
    bus = Bus()
    yield TableService(store, bus)
    store.close()


@pytest.fixture
def app(service: TableService, tmp_path: Path) -> Any:
    from web import create_app

    return create_app(service, {"TESTING": True,
                                "PIN_FILE": str(tmp_path / "pins.json"),
                                "PIN_MAX_FAILURES": 5})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def server(app: Any) -> Iterator[Any]:
    from web import serve

    srv = serve(app, port=0)
    yield srv
    srv.close()


def one_hand(seed: int = 1, rules: str = "ffb") -> list[Event]:
    """A simulated game's first whole hand with a contract (GameStarted first)."""
    for s in range(seed, seed + 50):
        events = simulate_game(s, hands=1, rules=rules)
        state = replay(events)
        if state.hands and state.hands[0]["result"].get("contract"):
            end = next(i for i in range(1, len(events) + 1)
                       if len(replay(events[:i]).hands) == 1)
            return events[:end]
    raise AssertionError("no simulated hand with a contract")


def api_body(event: Event) -> tuple[str, dict[str, Any]]:
    """The API address and body that enter ``event`` by hand."""
    if isinstance(event, BidMade):
        return "/api/bid", {"seat": event.seat, "bid": event.bid}
    if isinstance(event, CardPlayed):
        return "/api/play", {"seat": event.seat, "card": event.card}
    if isinstance(event, BeloteAnnounced):
        return "/api/belote", {"seat": event.seat}
    if isinstance(event, CardTurned):
        return "/api/turned", {"card": event.card}
    if isinstance(event, ContractSet):
        return "/api/contract", {"taker": event.taker, "value": event.value,
                                 "trump": event.trump, "double": event.double}
    raise AssertionError(f"no API entry for {event!r}")


def start_body(started: GameStarted, pin: str = PIN) -> dict[str, Any]:
    return {"teams": started.teams, "players": started.players, "rules": started.rules,
            "settings": started.settings, "dealer": started.dealer, "pin": pin}
