"""The organiser's evening in a real browser (Playwright driving Debian's
chromium) on a phone (390x844) and on the club's screen (1920x1080), against a
real waitress server, table service and SQLite file: French on every page,
undo that names what it takes back and never a camera card, a hand scored by a
tally once the camera is lost, the exports, the end of a game and the next one
with the same teams, the camera's evidence beside its cards, the score chart
and the club screen. One browser and one server for the module; each test
starts its own game. Screenshots go to tests/artifacts/ for a person to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from tests.web.conftest import PIN, api_body, one_hand
from tests.web.french import english_words

pytestmark = pytest.mark.browser
AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
PHONE = {"width": 390, "height": 844}
CLUB = {"width": 1920, "height": 1080}
NAMES = ("Mado", "Lucien", "Josette", "René", "Arbitre", "Rois", "Dames")
RANK_FR = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "V", "Q": "D", "K": "R", "A": "A"}
SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_fr(code: str) -> str:
    return RANK_FR[code[0]] + SUIT[code[1]]


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    """One service, app and server for the module."""
    from web import create_app, serve

    folder = tmp_path_factory.mktemp("evening")
    store = Store(folder / "table.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(folder / "pins.json"),
                               "PIN_RATE_LIMIT": "50 per minute"})
    server = serve(app, port=0)
    yield {"service": service, "app": app, "server": server, "client": app.test_client()}
    server.close()
    store.close()


@pytest.fixture(scope="module")
def chromium(browser: Any) -> Any:
    """Debian's chromium, the one the web tests share (Playwright allows one
    driver per process); this module opens its own phone and club tabs."""
    return browser


def _tab(chromium: Any, size: dict[str, int]) -> Iterator[Any]:
    context = chromium.new_context(viewport=size, locale="fr-FR")
    page = context.new_page()
    page.set_default_timeout(5000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on("console", lambda msg: problems.append(f"console: {msg.text}")
            if "Content Security Policy" in msg.text else None)
    page.problems = problems
    yield page
    context.close()
    assert not problems, problems


@pytest.fixture(scope="module")
def phone(chromium: Any) -> Iterator[Any]:
    yield from _tab(chromium, PHONE)


@pytest.fixture(scope="module")
def club(chromium: Any) -> Iterator[Any]:
    yield from _tab(chromium, CLUB)


def new_game(table: dict[str, Any], **extra: Any) -> int:
    """A new game through the API (the previous one, if any, is closed)."""
    body = {"teams": {"NS": "Les Rois", "EW": "Les Dames"},
            "players": {"N": "Mado", "S": "Lucien", "E": "Josette", "W": "René"},
            "pin": PIN, "dealer": "N", **extra}
    r = table["client"].post("/api/games", json=body, headers=AUTH)
    assert r.status_code == 201, r.json
    return int(r.json["game_id"])


def log_in(page: Any, table: dict[str, Any], author: str = "Mado") -> None:
    page.goto(table["server"].url + "/control")
    if page.locator("#login-form").count():
        page.fill("#pin", PIN)
        page.fill("#author", author)
        page.click("#login")
    expect()(page.locator("#conn")).to_have_class("dot-label ok")


def shot(page: Any, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"organiser-{name}.png"), full_page=True)


def no_english(page: Any, where: str) -> None:
    text = page.inner_text("body")
    found = english_words(text, NAMES)
    assert not found, f"{where}: English words {found} in {text[:400]!r}"


def api(table: dict[str, Any], path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = table["client"].post(path, json=body, headers=AUTH)
    assert r.status_code == 200, (path, body, r.json)
    return dict(r.json)


def test_undo_names_the_organisers_entry_and_leaves_the_camera_card(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    new_game(table)
    service = table["service"]
    log_in(phone, table)
    for bid in ("80H", "pass", "pass", "pass"):
        api(table, "/api/bid", {"bid": bid})
    # The organiser taps belote for the wrong seat; then the camera reads a card.
    phone.click("button[data-belote='E']")
    expect()(phone.locator("#message")).to_contain_text("Est annonce belote")
    to_play = service.to_play()
    service.submit(CardPlayed(seat=to_play, card="7S"), source="camera", confidence=0.97)
    expect()(phone.locator(f"#seat-{to_play} .card")).to_have_attribute("data-card", "7S")
    # The undo names the organiser's belote, not the camera's card.
    expect()(phone.locator("#undo-what")).to_contain_text("Est annonce belote")
    phone.click("#undo")
    expect()(phone.locator("#undo-question")).to_have_text("Annuler « Est annonce belote » ?")
    shot(phone, artifacts, "phone-undo-asks")
    phone.click("#undo-yes")
    expect()(phone.locator("#message")).to_contain_text("Annulé : Est annonce belote")
    assert service.state_json()["belote"] == []
    assert service.state_json()["played"] == ["7S"]
    # The result stays in sight at the bottom of the phone's screen.
    box = phone.locator("#message").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"] + 1
    no_english(phone, "/control (undo)")


def test_camera_lost_switches_to_manual_and_a_tally_scores_the_hand(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    new_game(table)
    service = table["service"]
    log_in(phone, table)
    service.set_status(camera="ok")
    api(table, "/api/contract", {"taker": "N", "value": 100, "trump": "S", "double": 1})
    expect()(phone.locator("#tally")).to_be_visible()
    expect()(phone.locator("#camera-lost")).to_be_hidden()
    # The camera is lost: the page says so and opens the tally.
    service.set_status(camera="lost")
    expect()(phone.locator("#camera-lost")).to_be_visible()
    expect()(phone.locator("#tally-details")).to_have_attribute("open", "")
    phone.click("#mode-manual")
    expect()(phone.locator("#mode-camera")).to_be_visible()
    assert service.manual
    phone.fill("#t-points-NS", "110")
    expect()(phone.locator("#t-points-EW")).to_have_value("52")
    phone.fill("#t-tricks-NS", "6")
    expect()(phone.locator("#t-tricks-EW")).to_have_value("2")
    phone.select_option("#t-belote", "NS")
    shot(phone, artifacts, "phone-tally")
    phone.click("#send-tally")
    expect()(phone.locator("#message")).to_contain_text("Décompte")
    (hand,) = service.state_json()["hands"]
    assert hand["result"]["made"] is True and hand["result"]["belote"] == "NS"
    expect()(phone.locator("#score-NS")).to_have_text(str(service.state_json()["scores"]["NS"]))
    # A wrong tally is refused in French, and nothing changes.
    api(table, "/api/contract", {"taker": "E", "value": 80, "trump": "H", "double": 1})
    phone.fill("#t-points-NS", "100")
    phone.fill("#t-tricks-NS", "9")
    phone.click("#send-tally")
    expect()(phone.locator("#message")).to_contain_text("Plis NS : 9 est hors des limites")
    assert len(service.state_json()["hands"]) == 1
    phone.click("#mode-camera")
    expect()(phone.locator("#mode-manual")).to_be_visible()
    assert not service.manual
    no_english(phone, "/control (tally)")


@pytest.mark.slow
def test_every_page_is_french_on_the_phone_and_the_club_screen(
        table: dict[str, Any], phone: Any, club: Any, artifacts: Path) -> None:
    game_id = new_game(table)
    service = table["service"]
    for event in one_hand(3)[1:]:
        if isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.91)
        else:
            path, body = api_body(event)
            api(table, path, body)
    service.set_status(camera="virtual table", display="searching")
    url = table["server"].url
    for page, size in ((phone, "phone"), (club, "club")):
        log_in(page, table)
        for path in ("/", "/control", "/setup", "/history", f"/history/{game_id}",
                     f"/history/{game_id}/hands/1", f"/history/{game_id}/sheet"):
            page.goto(url + path)
            page.wait_for_load_state("domcontentloaded")
            no_english(page, f"{size} {path}")
            # Nothing is wider than the screen.
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"] + 1, (size, path, width)
            name = re.sub(r"\W+", "-", path).strip("-") or "live"
            shot(page, artifacts, f"{size}-{name}")


def test_a_late_answer_never_takes_the_page_back_to_an_earlier_state(
        table: dict[str, Any], phone: Any) -> None:
    """The answer to the contract arrives after the stream has brought the next hand (a
    slow phone, a busy table): the page stays on the next hand, its entry offered."""
    new_game(table, settings={"hands": 3})
    log_in(phone, table)
    expect()(phone.locator("#hand-no")).to_have_text("1 sur 3")
    held: list[tuple[Any, Any]] = []

    def hold_back(route: Any) -> None:
        held.append((route, route.fetch()))  # stored on the table, answer held back

    phone.route("**/api/contract", hold_back)
    phone.select_option("#k-taker", "S")
    phone.select_option("#k-value", "100")
    phone.select_option("#k-trump", "D")
    phone.click("#set-contract")
    expect()(phone.locator("#contract")).to_contain_text("100")  # brought by the stream
    api(table, "/api/tally", {"points": {"NS": 140, "EW": 22}, "tricks": {"NS": 7, "EW": 1}})
    expect()(phone.locator("#hand-no")).to_have_text("2 sur 3")
    assert len(held) == 1
    route, response = held[0]
    route.fulfill(response=response)
    expect()(phone.locator("#message")).to_contain_text("✓")  # the late answer is in
    expect()(phone.locator("#hand-no")).to_have_text("2 sur 3")
    expect()(phone.locator("#set-contract")).to_be_visible()
    phone.unroute("**/api/contract")


def test_quick_entry_starts_blank_each_hand_end_now_and_same_teams(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    first = new_game(table, settings={"hands": 3, "minutes": 45})
    service = table["service"]
    log_in(phone, table)
    expect()(phone.locator("#hand-no")).to_have_text("1 sur 3")
    expect()(phone.locator("#time-left")).to_have_text(re.compile(r"^encore 4[45] min$"))
    phone.select_option("#k-taker", "S")
    phone.select_option("#k-value", "100")
    phone.select_option("#k-trump", "D")
    phone.select_option("#k-double", "2")
    phone.click("#set-contract")
    expect()(phone.locator("#contract")).to_contain_text("contré")
    api(table, "/api/tally", {"points": {"NS": 140, "EW": 22}, "tricks": {"NS": 7, "EW": 1}})
    # The next hand's quick entry is blank: nothing carried over, contré included.
    expect()(phone.locator("#hand-no")).to_have_text("2 sur 3")
    for select in ("#k-taker", "#k-value", "#k-trump"):
        expect()(phone.locator(select)).to_have_value("")
    expect()(phone.locator("#k-double")).to_have_value("1")
    phone.click("#set-contract")
    expect()(phone.locator("#message")).to_contain_text("Choisissez le preneur")
    # End the game now: asked first, then the game-over box offers the same teams.
    phone.click("#end-game")
    expect()(phone.locator("#end-confirm")).to_be_visible()
    shot(phone, artifacts, "phone-end-asks")
    phone.click("#end-yes")
    expect()(phone.locator("#game-over")).to_be_visible()
    expect()(phone.locator("#game-over-title")).to_contain_text("Victoire : Les Rois")
    no_english(phone, "/control (game over)")
    shot(phone, artifacts, "phone-game-over")
    phone.click("#same-teams")
    expect()(phone.locator("#game-over")).to_be_hidden()
    assert service.game_id != first
    expect()(phone.locator("#team-NS")).to_have_text("Les Rois")
    expect()(phone.locator("#hand-no")).to_have_text("1 sur 3")
    expect()(phone.locator("#score-NS")).to_have_text("0")


SMALLEST_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest("[hidden], script, svg")) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    out.push([parseFloat(getComputedStyle(el).fontSize), node.textContent.trim().slice(0, 30)]);
  }
  return out;
}"""


def test_club_screen_uses_the_whole_screen_with_big_text_then_the_game_over_screen(
        table: dict[str, Any], club: Any, artifacts: Path) -> None:
    new_game(table, settings={"target": 200})
    service = table["service"]
    service.set_status(camera="ok", display="ok")
    club.goto(table["server"].url + "/")
    expect()(club.locator("#conn")).to_have_class("dot-label ok")
    for bid in ("100S", "pass", "pass", "pass"):
        api(table, "/api/bid", {"bid": bid})
    to_play = service.to_play()
    service.submit(CardPlayed(seat=to_play, card="JS"), source="camera", confidence=0.99)
    expect()(club.locator(f"#seat-{to_play} .card")).to_have_attribute("data-card", "JS")
    # Every text at least 32 px, the layout across the whole width.
    sizes = club.evaluate(SMALLEST_TEXT)
    small = [(size, text) for size, text in sizes if size < 32]
    assert not small, small
    table_box = club.locator("#table").bounding_box()
    score_box = club.locator("#box-NS").bounding_box()
    assert table_box is not None and score_box is not None
    assert table_box["x"] > CLUB["width"] / 2 - 50 and score_box["x"] < CLUB["width"] / 4
    assert table_box["x"] + table_box["width"] > CLUB["width"] * 0.9
    shot(club, artifacts, "club-play")
    # The next game, same teams, two hands by tally: the chart shows between
    # hands, then the game-over screen.
    r = table["client"].post("/api/games/again", json={}, headers=AUTH)
    assert r.status_code == 201, r.json
    api(table, "/api/contract", {"taker": "S", "value": 100, "trump": "S", "double": 1})
    api(table, "/api/tally", {"points": {"NS": 130, "EW": 32}, "tricks": {"NS": 7, "EW": 1}})
    expect()(club.locator("#live-chart")).to_be_visible()
    expect()(club.locator("#chart-img")).to_have_attribute(
        "src", re.compile(r"/chart\.svg\?hands=1$"))
    # The SVG the server drew has loaded as an image.
    club.wait_for_function("() => document.getElementById('chart-img').complete && "
                           "document.getElementById('chart-img').naturalWidth > 0")
    api(table, "/api/contract", {"taker": "N", "value": 160, "trump": "H", "double": 1})
    api(table, "/api/tally", {"points": {"NS": 252, "EW": 0}, "tricks": {"NS": 8, "EW": 0}})
    expect()(club.locator("#game-over-screen")).to_be_visible()
    expect()(club.locator("#go-winner")).to_have_text("Victoire : Les Rois")
    expect()(club.locator("#table")).to_be_hidden()
    expect()(club.locator("#contract")).to_have_text("—")
    expect()(club.locator("#live-chart")).to_be_visible()
    small = [(size, text) for size, text in club.evaluate(SMALLEST_TEXT) if size < 32]
    assert not small, small
    no_english(club, "/ (game over)")
    shot(club, artifacts, "club-game-over")


def test_history_chart_and_camera_evidence_on_the_phone(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    from tests.web.test_evidence_pages import picture

    game_id = new_game(table)
    service = table["service"]
    log_in(phone, table)
    events = one_hand(3)
    plays = [e for e in events if isinstance(e, CardPlayed)]
    for event in events[1:]:
        if isinstance(event, CardPlayed):
            if event is plays[5]:
                break
            sure = 0.55 if event is plays[2] else 0.98
            service.submit(event, source="camera", confidence=sure, crop=picture())
        else:
            path, body = api_body(event)
            api(table, path, body)
    # The organiser's list of cards shows each picture; the unsure read stands out.
    unsure = phone.locator("#played-list button.unsure")
    expect()(unsure).to_have_count(1)
    expect()(unsure).to_contain_text("0,55")
    expect()(phone.locator("#played-list button img.crop")).to_have_count(5)
    shot(phone, artifacts, "phone-evidence")
    for event in events[events.index(plays[5]):]:
        if isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.98, crop=picture())
        else:
            path, body = api_body(event)
            api(table, path, body)
    phone.goto(table["server"].url + f"/history/{game_id}")
    expect()(phone.locator("#chart svg")).to_be_visible()
    assert phone.locator("#chart polyline").count() == 2
    phone.goto(table["server"].url + f"/history/{game_id}/hands/1")
    expect()(phone.locator("#tricks .played-card.unsure")).to_have_count(1)
    expect()(phone.locator("#tricks img.crop")).to_have_count(32)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"] + 1
    shot(phone, artifacts, "phone-history-hand")


def test_a_bad_setting_is_shown_on_the_page_in_french(table: dict[str, Any], phone: Any,
                                                      artifacts: Path) -> None:
    new_game(table)
    service = table["service"]
    service.set_status(camera="error", problem={"code": "calibration_missing",
                                                "detail": "/var/lib/belote-table/table.json"})
    try:
        phone.goto(table["server"].url + "/")
        banner = phone.locator("#problem-banner")
        expect()(banner).to_be_visible()
        expect()(banner).to_contain_text("le fichier d'étalonnage")
        expect()(banner).to_contain_text("/var/lib/belote-table/table.json")
        no_english(phone, "/ (bad setting)")
        shot(phone, artifacts, "phone-bad-setting")
    finally:
        service.set_status(camera="ok", problem=None)
    expect()(phone.locator("#problem-banner")).to_be_hidden()


def test_downloads_from_the_phone_and_a_fresh_table_leads_to_a_new_game(
        table: dict[str, Any], chromium: Any, phone: Any, artifacts: Path,
        tmp_path: Path) -> None:
    game_id = new_game(table)
    api(table, "/api/contract", {"taker": "N", "value": 80, "trump": "H", "double": 1})
    api(table, "/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 3}})
    url = table["server"].url
    phone.goto(url + f"/history/{game_id}")
    for link, ending in (("#export-csv", ".csv"), ("#export-json", ".json")):
        with phone.expect_download() as download:
            phone.click(link)
        name = download.value.suggested_filename
        assert name == f"partie-{game_id}{ending}", name
        saved = tmp_path / name
        download.value.save_as(saved)
        assert saved.stat().st_size > 100
    assert (tmp_path / f"partie-{game_id}.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    phone.goto(url + "/history")
    with phone.expect_download() as download:
        phone.click("#download-evening")
    assert download.value.suggested_filename.startswith("soiree-")
    shot(phone, artifacts, "phone-history-downloads")
    # A fresh table: the first visit leads to a new game, set up from the phone.
    from web import create_app, serve

    store = Store(tmp_path / "fresh.db")
    fresh = TableService(store, Bus())
    server = serve(create_app(fresh, {"TESTING": True,
                                      "PIN_FILE": str(tmp_path / "fresh-pins.json")}), port=0)
    context = chromium.new_context(viewport=PHONE, locale="fr-FR")
    page = context.new_page()
    page.set_default_timeout(5000)
    try:
        page.goto(server.url + "/")
        shot(page, artifacts, "phone-fresh-table")
        page.click("#start-first")
        page.wait_for_url("**/setup")
        page.fill("#team_NS", "Les Rois")
        page.fill("#newpin", "246810")
        page.click("#start")
        page.wait_for_url("**/control")
        assert fresh.game_id is not None
        expect()(page.locator("#team-NS")).to_have_text("Les Rois")
    finally:
        context.close()
        server.close()
        store.close()
