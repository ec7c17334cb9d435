"""A correction on the organiser's page says what it changes before it is made
(issue 72), in a real browser (Playwright driving Debian's chromium) against a
real waitress server, table service and SQLite file: the trick whose winner
changes and the renonces that come, in French; "Non" changes nothing; "Oui"
corrects; the undo says what it gives back, and gives it back exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from tests.web.conftest import PIN, api_body, phone_tab
from tests.web.french import english_words
from tests.web.test_corrections_preview import _case

pytestmark = pytest.mark.browser
AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
SEATS_FR = {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"}
NAMES = ("Mado", "Lucien", "Josette", "René", "Rois", "Dames")


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    from web import create_app, serve

    folder = tmp_path_factory.mktemp("corrections")
    store = Store(folder / "table.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(folder / "pins.json"),
                               "PIN_RATE_LIMIT": "50 per minute"})
    server = serve(app, port=0)
    yield {"service": service, "server": server, "client": app.test_client()}
    server.close()
    store.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    yield from phone_tab(browser)


def test_a_correction_is_previewed_then_confirmed_or_cancelled_and_undone_exactly(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    service, client = table["service"], table["client"]
    events, fix = _case()
    started = events[0]
    body = {"teams": {"NS": "Les Rois", "EW": "Les Dames"},
            "players": {"N": "Mado", "S": "Lucien", "E": "Josette", "W": "René"},
            "rules": started.rules, "settings": started.settings, "dealer": started.dealer,
            "pin": PIN}
    assert client.post("/api/games", json=body, headers=AUTH).status_code == 201
    for event in events[1:]:
        if isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.97)
        else:
            path, data = api_body(event)
            assert client.post(path, json=data, headers=AUTH).status_code == 200
    before = service.state_json()
    stored = len(service.events())
    winner = before["tricks"][0]["winner"]

    phone.goto(table["server"].url + "/control")
    phone.fill("#pin", PIN)
    phone.fill("#author", "Mado")
    phone.click("#login")
    expect()(phone.locator("#conn")).to_have_class("dot-label ok")
    target = phone.locator(f'#played-list button[data-trick="1"][data-seat="{fix.seat}"]')
    preview = phone.locator("#correct-preview")

    def ask() -> None:
        target.click()
        phone.click(f'#picker button[data-card="{fix.new}"]')
        phone.click("#correct-card")
        expect()(preview).to_be_visible()

    # Asked: the change is said before anything is stored.
    ask()
    expect()(phone.locator("#correct-changes li").first).to_contain_text("Pli 1 : gagné par")
    expect()(phone.locator("#correct-changes")).to_contain_text(
        f"au lieu de {SEATS_FR[winner]}")
    expect()(phone.locator("#correct-changes")).to_contain_text("Renonce qui")
    expect()(phone.locator("#correct-what")).to_contain_text(
        f"de {SEATS_FR[fix.seat]} au pli 1 ?")
    phone.screenshot(path=str(artifacts / "organiser-correction-preview.png"), full_page=True)
    text = phone.inner_text("#correct-preview")
    assert english_words(text, NAMES) == [], text
    assert len(service.events()) == stored and service.state_json()["tricks"] == before["tricks"]
    # "Non": nothing changes.
    phone.click("#correct-no")
    expect()(preview).to_be_hidden()
    expect()(phone.locator("#message")).to_have_text("Rien n'a été corrigé.")
    assert len(service.events()) == stored and service.state_json()["tricks"] == before["tricks"]
    # "Oui": corrected, trick 1 now won by another seat.
    ask()
    phone.click("#correct-yes")
    expect()(preview).to_be_hidden()
    # (the message may already say the renonce the correction proved)
    expect()(target).to_have_attribute("data-card", fix.new)
    assert len(service.events()) == stored + 1
    assert service.state_json()["tricks"][0]["winner"] != winner
    # The undo says what it gives back, then gives back exactly the game before.
    expect()(phone.locator("#undo")).to_be_enabled()
    phone.click("#undo")
    expect()(phone.locator("#undo-changes")).to_contain_text(
        f"Pli 1 : gagné par {SEATS_FR[winner]}")
    phone.click("#undo-yes")
    first = before["tricks"][0]
    expect()(target).to_have_attribute("data-card",
                                       first["cards"][first["seats"].index(fix.seat)])
    after = service.state_json()
    for key in ("tricks", "renonces", "scores", "card_points", "played", "pending"):
        assert after[key] == before[key], key


def test_the_table_shows_a_card_put_down_out_of_turn_until_its_turn_comes(
        table: dict[str, Any], phone: Any) -> None:
    """The camera's card out of turn is stored and shown waiting on the public page;
    when its seat's turn comes it takes its place in the trick."""
    service, client = table["service"], table["client"]
    body = {"pin": PIN, "dealer": "N", "players": {"N": "Mado", "S": "Lucien",
                                                   "E": "Josette", "W": "René"}}
    assert client.post("/api/games", json=body, headers=AUTH).status_code == 201
    assert client.post("/api/contract", json={"taker": "W", "value": 80, "trump": "H"},
                       headers=AUTH).status_code == 200
    assert service.to_play() == "W"
    phone.goto(table["server"].url + "/")
    waiting = phone.locator("#waiting-line")
    expect()(waiting).to_be_hidden()
    service.submit(CardPlayed(seat="S", card="KS"), source="camera", confidence=0.96)
    expect()(waiting).to_be_visible()
    expect()(waiting).to_have_text("En attente de leur tour (posées hors de leur tour) : Sud R♠")
    assert english_words(phone.inner_text("#waiting-line"), NAMES) == []
    service.submit(CardPlayed(seat="W", card="7S"), source="camera", confidence=0.96)
    expect()(waiting).to_be_hidden()
    expect()(phone.locator("#seat-S .card")).to_have_attribute("data-card", "KS")
    assert service.state_json()["played"] == ["7S", "KS"]
