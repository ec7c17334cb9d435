"""Unread cards filled by the deal and the camera's reads, on the pages (issue 72), in a
real browser (Playwright driving Debian's chromium) against a real waitress server,
table service and SQLite file: the public page shows a filled card dotted, "déduite";
the organiser's page asks the others as one tap between their likeliest cards
("Ouest, pli 2 : V♥ ou V♦ ?"), the tap stores a correction, and a filled card is
changed like any card; the history shows a filled card as filled."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.fill import Filler
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed, Event
from scorer.simulate import simulate_game
from tests.web.conftest import PIN, api_body, phone_tab
from tests.web.french import english_words

pytestmark = pytest.mark.browser
AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
NAMES = ("Mado", "Lucien", "Josette", "René", "Rois", "Dames")


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


def _scene(tmp: Path) -> tuple[list[Event], dict[int, list[tuple[str, float, int]]], int]:
    """A simulated hand played to trick 3's second card: the lead of trick 2 unread
    (read as the card 0.55 of the time, another 0.4), the lead of trick 3 unread and
    read as the card 0.97: the first is asked, the second filled."""
    for seed in range(1, 60):
        events = simulate_game(seed, hands=1)
        plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
        if len(plays) < 10:
            continue
        asked, filled = plays[4], plays[8]
        end = plays[9] + 1
        later = [e.card for e in events[plays[12]:] if isinstance(e, CardPlayed)]
        first = events[asked]
        assert isinstance(first, CardPlayed) and first.card is not None
        other = next((c for c in later if c and c[1] == first.card[1]), None)
        if other is None:
            continue
        reads = {asked: [(first.card, 0.55, 6), (other, 0.4, 4)],
                 filled: [(str(getattr(events[filled], "card", "")), 0.97, 7)]}
        service = TableService(Store(tmp / f"scene-{seed}.db"), Bus())
        service._filler = Filler(bar=0.9)
        service.start_game(events[0], source="simulator")
        for i, e in enumerate(events[1:end], start=1):
            if i in reads:
                service.submit(CardPlayed(e.seat, None), source="camera", reads=reads[i])  # type: ignore[attr-defined]
            else:
                service.submit(e, source="camera" if isinstance(e, CardPlayed) else "simulator")
        state = service.state_json()
        service.store.close()
        if (len(state["questions"]) == 1 and len(state["questions"][0]["candidates"]) >= 2
                and state["questions"][0]["candidates"][0]["card"] == first.card
                and [f["trick"] for f in state["filled"]] == [3]):
            return events[:end], reads, seed
    raise AssertionError("no simulated hand gives the scene")


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    from web import create_app, serve

    folder = tmp_path_factory.mktemp("fill")
    events, reads, _ = _scene(folder)
    store = Store(folder / "table.db")
    service = TableService(store, Bus())
    service._filler = Filler(bar=0.9)
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(folder / "pins.json"),
                               "PIN_RATE_LIMIT": "50 per minute"})
    client = app.test_client()
    started = events[0]
    body = {"teams": {"NS": "Les Rois", "EW": "Les Dames"},
            "players": {"N": "Mado", "S": "Lucien", "E": "Josette", "W": "René"},
            "rules": started.rules, "settings": started.settings,  # type: ignore[attr-defined]
            "dealer": started.dealer, "pin": PIN}  # type: ignore[attr-defined]
    assert client.post("/api/games", json=body, headers=AUTH).status_code == 201
    for i, event in enumerate(events[1:], start=1):
        if i in reads:
            service.submit(CardPlayed(event.seat, None), source="camera",  # type: ignore[attr-defined]
                           reads=reads[i], frames=7)
        elif isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.97)
        else:
            path, data = api_body(event)
            assert client.post(path, json=data, headers=AUTH).status_code == 200
    server = serve(app, port=0)
    yield {"service": service, "server": server, "client": client, "events": events}
    server.close()
    store.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    yield from phone_tab(browser)


def test_filled_shown_asked_in_one_tap_and_changed_like_any_card(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    service, server = table["service"], table["server"]
    state = service.state_json()
    filled = state["filled"][0]
    question = state["questions"][0]
    truth = question["candidates"][0]["card"]
    stored = len(service.events())
    assert filled["how"] == "reads" and filled["trick"] == 3

    # The public page: the filled card in its seat, dotted and said "déduite".
    phone.goto(server.url + "/")
    slot = phone.locator(f"#seat-{filled['seat']} .card.filled")
    expect()(slot).to_be_visible()
    expect()(slot).to_have_attribute("data-card", filled["card"])
    expect()(slot.locator(".filled-tag")).to_have_text("déduite")
    expect()(phone.locator("#unknown-prompt")).to_contain_text(" ou ")
    expect()(phone.locator("#unknown-prompt")).to_contain_text("pli 2 :")
    phone.screenshot(path=str(artifacts / "fill-live.png"), full_page=True)

    # The organiser's page: the question as buttons, likeliest first.
    phone.goto(server.url + "/control")
    phone.fill("#pin", PIN)
    phone.fill("#author", "Mado")
    phone.click("#login")
    expect()(phone.locator("#conn")).to_have_class("dot-label ok")
    box = phone.locator("#questions")
    expect()(box).to_be_visible()
    buttons = box.locator("button")
    expect()(buttons).to_have_count(len(question["candidates"]))
    expect()(buttons.first).to_have_attribute("data-card", truth)
    mine = phone.locator(f'#played-list button[data-trick="3"][data-seat="{filled["seat"]}"]')
    expect()(mine).to_have_class(re.compile(r"\bfilled\b"))
    expect()(mine).to_contain_text("déduite")
    phone.screenshot(path=str(artifacts / "fill-control.png"), full_page=True)
    text = phone.inner_text("#questions")
    assert english_words(text, NAMES) == [], text

    # One tap names the card: a correction by the organiser, the question gone.
    buttons.first.click()
    expect()(box).to_be_hidden()
    assert len(service.events()) == stored + 1
    named = service.events()[-1]
    assert named.event.new == truth and named.author == "Mado"  # type: ignore[attr-defined]
    asked = phone.locator(f'#played-list button[data-trick="2"][data-seat="{question["seat"]}"]')
    expect()(asked).to_have_attribute("data-card", truth)

    # A filled card is changed like any card: picked, another card, previewed, confirmed.
    other = next(c["card"] for c in filled["candidates"] if c["card"] != filled["card"]) \
        if len(filled["candidates"]) > 1 else None
    if other is None:
        played = set(service.state_json()["played"]) | {truth}
        other = next(f"{r}{filled['card'][1]}" for r in "789TJQKA"
                     if f"{r}{filled['card'][1]}" not in played
                     and f"{r}{filled['card'][1]}" != filled["card"])
    mine.click()
    phone.click(f'#picker button[data-card="{other}"]')
    phone.click("#correct-card")
    expect()(phone.locator("#correct-preview")).to_be_visible()
    phone.click("#correct-yes")
    expect()(mine).to_have_attribute("data-card", other)
    expect()(mine).not_to_have_class(re.compile(r"\bfilled\b"))
    assert not service.state_json()["filled"]


def test_the_history_shows_a_filled_card_as_filled(tmp_path: Path) -> None:
    """A finished hand's filled card on the history's hand page, worked out again
    from the store once the game is no longer the open one."""
    from web import create_app

    for seed in range(1, 40):
        events = simulate_game(seed, hands=1)
        plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
        if len(plays) < 32:
            continue
        store = Store(tmp_path / f"h{seed}.db")
        service = TableService(store, Bus())
        service._filler = Filler(bar=1.01)
        service.start_game(events[0], source="simulator")
        hidden = plays[-1]        # the hand's last card: the deck alone names it
        for i, e in enumerate(events[1:], start=1):
            if i == hidden:
                service.submit(CardPlayed(e.seat, None), source="camera",  # type: ignore[attr-defined]
                               reads=[("7S", 0.3, 2)])
            else:
                service.submit(e, source="camera" if isinstance(e, CardPlayed) else "simulator")
        if not service.state_json()["filled"]:
            store.close()
            continue
        hand_no = service.state_json()["filled"][0]["hand_no"]
        game_id = service.game_id
        service.start_game(events[0], source="simulator")   # the game is history now
        assert service.game_id != game_id
        app = create_app(service, {"TESTING": True, "PIN_FILE": str(tmp_path / "p.json")})
        page = app.test_client().get(f"/history/{game_id}/hands/{hand_no}",
                                     headers={"Accept-Language": "fr"})
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert 'played-card filled' in html and "déduite" in html
        card = events[hidden].card  # type: ignore[attr-defined]
        assert f'data-card="{card}"' in html
        store.close()
        return
    pytest.fail("no simulated hand whose last card is filled")
