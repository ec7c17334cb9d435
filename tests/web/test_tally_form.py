"""The count form (the tally, when the camera fails; issue 72 item 4): totals
that cannot be are refused with a French message and nothing is stored; what
the organiser typed is never changed: not by the page, not by the table. Through
the real HTTP API (Flask, table service, SQLite file) and the real form in
Debian's chromium against a real waitress server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from tests.web.conftest import PIN, phone_tab

AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}


def start(client: Any, trump: str = "H") -> None:
    r = client.post("/api/games", json={"teams": {"NS": "Les Rois", "EW": "Les Dames"},
                                        "pin": PIN, "dealer": "N",
                                        "rules": "ffb-sata"}, headers=AUTH)
    assert r.status_code == 201, r.json
    r = client.post("/api/contract", json={"taker": "N", "value": 80, "trump": trump,
                                           "double": 1}, headers=AUTH)
    assert r.status_code == 200, r.json


def stored(service: TableService) -> int:
    return len(service.events())


@pytest.mark.parametrize("trump,points,tricks,french", [
    ("H", {"NS": 100, "EW": 50}, {"NS": 5, "EW": 3},
     "les points des deux équipes font 150 (100 + 50), pas 162 : 152 points de cartes "
     "et 10 de der"),
    ("H", {"NS": 162, "EW": 0}, {"NS": 8, "EW": 0},
     "un capot fait 252 points pour l'équipe qui a les 8 plis (NS) et 0 pour l'autre, "
     "pas 162 et 0"),
    ("S", {"NS": 10, "EW": 152}, {"NS": 0, "EW": 8},
     "un capot fait 252 points pour l'équipe qui a les 8 plis (EO) et 0 pour l'autre, "
     "pas 152 et 10"),
    ("AT", {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3},
     "les points des deux équipes font 162 (100 + 62), pas 258 : 248 points de cartes "
     "et 10 de der"),
])
def test_a_total_that_cannot_be_is_refused_in_french_and_nothing_is_stored(
        client: Any, service: TableService, trump: str, points: dict[str, int],
        tricks: dict[str, int], french: str) -> None:
    start(client, trump)
    before = stored(service)
    r = client.post("/api/tally", json={"points": points, "tricks": tricks}, headers=AUTH)
    assert r.status_code == 409
    assert r.json["error"] == french
    assert stored(service) == before and service.state_json()["hands"] == []


@pytest.mark.parametrize("trump,points,tricks", [
    ("H", {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3}),
    ("H", {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}),
    ("AT", {"NS": 170, "EW": 88}, {"NS": 6, "EW": 2}),
])
def test_a_total_that_can_be_is_stored_as_typed(client: Any, service: TableService,
                                                trump: str, points: dict[str, int],
                                                tricks: dict[str, int]) -> None:
    start(client, trump)
    r = client.post("/api/tally", json={"points": points, "tricks": tricks}, headers=AUTH)
    assert r.status_code == 200, r.json
    (hand,) = service.state_json()["hands"]
    tally = hand["record"]["tally"]
    assert {t: tally[t] for t in ("NS", "EW")} == points and tally["tricks"] == tricks
    assert hand["result"]["points"] == points
    # and so in the store, read again from the SQLite file
    events = [s.event for s in service.events()]
    assert events[-1].points == points and events[-1].tricks == tricks  # type: ignore[attr-defined]


# -- the form, in a real browser -------------------------------------------------------

@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    from web import create_app, serve

    folder = tmp_path_factory.mktemp("tally")
    store = Store(folder / "table.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(folder / "pins.json"),
                               "PIN_RATE_LIMIT": "50 per minute"})
    server = serve(app, port=0)
    yield {"service": service, "server": server, "client": app.test_client()}
    server.close()
    store.close()


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    yield from phone_tab(browser)


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


def open_form(page: Any, table: dict[str, Any], trump: str = "H") -> None:
    start(table["client"], trump)
    page.goto(table["server"].url + "/control")
    if page.locator("#login-form").count():
        page.fill("#pin", PIN)
        page.fill("#author", "Mado")
        page.click("#login")
    expect()(page.locator("#conn")).to_have_class("dot-label ok")
    expect()(page.locator("#tally")).to_be_visible()
    if page.locator("#tally-details").get_attribute("open") is None:
        page.click("#tally-details summary")


@pytest.mark.browser
def test_the_form_never_changes_what_the_organiser_typed(table: dict[str, Any], phone: Any,
                                                         artifacts: Path) -> None:
    """NS 100 then EO 50: the page keeps NS 100 (it once made it 112 without a
    word), the table refuses 150 in French and stores nothing; EO 62 is then
    stored as typed."""
    service = table["service"]
    open_form(phone, table)
    phone.fill("#t-points-NS", "100")
    # an untyped figure still follows the other team's
    expect()(phone.locator("#t-points-EW")).to_have_value("62")
    phone.fill("#t-points-EW", "50")
    expect()(phone.locator("#t-points-NS")).to_have_value("100")
    phone.fill("#t-tricks-NS", "5")
    expect()(phone.locator("#t-tricks-EW")).to_have_value("3")
    before = stored(service)
    phone.click("#send-tally")
    expect()(phone.locator("#message")).to_contain_text(
        "les points des deux équipes font 150 (100 + 50), pas 162")
    phone.screenshot(path=str(artifacts / "tally-refused.png"), full_page=True)
    assert stored(service) == before and service.state_json()["hands"] == []
    # the figures are still there, as typed
    expect()(phone.locator("#t-points-NS")).to_have_value("100")
    expect()(phone.locator("#t-points-EW")).to_have_value("50")
    phone.fill("#t-points-EW", "62")
    expect()(phone.locator("#t-points-NS")).to_have_value("100")
    phone.click("#send-tally")
    expect()(phone.locator("#message")).to_contain_text("Décompte")
    (hand,) = service.state_json()["hands"]
    assert hand["record"]["tally"]["NS"] == 100 and hand["record"]["tally"]["EW"] == 62


@pytest.mark.browser
def test_the_capot_button_and_tout_atout_totals(table: dict[str, Any], phone: Any) -> None:
    service = table["service"]
    r = table["client"].post("/api/games/again", json={}, headers=AUTH)
    assert r.status_code == 201, r.json
    open_form(phone, table, trump="AT")
    phone.fill("#t-points-NS", "200")
    expect()(phone.locator("#t-points-EW")).to_have_value("58")
    phone.click("button[data-capot='EW']")
    for field, value in (("t-points-EW", "348"), ("t-points-NS", "0"), ("t-tricks-EW", "8"),
                         ("t-tricks-NS", "0")):
        expect()(phone.locator("#" + field)).to_have_value(value)
    phone.click("#send-tally")
    expect()(phone.locator("#message")).to_contain_text("Décompte")
    hand = service.state_json()["hands"][-1]
    assert hand["record"]["tally"]["EW"] == 348 and hand["record"]["tally"]["NS"] == 0
