"""Every table page on a phone (390x844) in a real browser (Playwright driving
Debian's chromium) against a real waitress server, table service and SQLite file
(issue 75): nothing scrolls sideways, no button covers its caption, every field
has a label, the final contract's lists show their words whole, the statistics'
charts are readable (no word under 11 px), and the words a French player reads
are French: "S : 90♦" with its narrow no-break space, a phase said as a phrase,
the camera's dot green while frames arrive. Screenshots go to tests/artifacts/.
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

pytestmark = pytest.mark.browser
AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
PHONE = {"width": 390, "height": 844}
LONG_TEAM = "Les Rois de la belote du jeudi soir"

# What a page's script measures: its width, the fields without a label, the
# lists whose choice shown (or widest choice) does not fit, the buttons that cover text beside
# them, and the chart words drawn under 11 px.
MEASURE = """(widest) => {
  const seen = el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
  const out = {width: document.documentElement.scrollWidth, unlabelled: [], cut: [],
               covered: [], small: []};
  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (el.type === "hidden" || !seen(el)) continue;
    const text = [...(el.labels || [])].map(l => l.textContent.trim()).join(" ");
    if (!text) out.unlabelled.push(el.outerHTML.slice(0, 120));
  }
  const canvas = document.createElement("canvas").getContext("2d");
  for (const el of document.querySelectorAll("select")) {
    if (!seen(el)) continue;
    const style = getComputedStyle(el);
    canvas.font = style.font;
    // The choice shown (all of them with ``widest``: the list opened shows them whole).
    const shown = widest ? [...el.options] : [el.options[el.selectedIndex]].filter(o => o);
    const need = Math.max(0, ...shown.map(o => canvas.measureText(o.text).width));
    // The box's own padding and the arrow's room (about 20 px in chromium).
    const room = el.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight) - 20;
    if (need > room) out.cut.push(el.id + " " + Math.round(need) + ">" + Math.round(room));
  }
  const overlap = (a, b) => {
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return x > 1 && y > 1;
  };
  for (const button of document.querySelectorAll("button, a.button")) {
    if (!seen(button) || button.closest(".toast")) continue;
    const parent = button.parentElement;
    for (const other of parent.querySelectorAll("small, span, label, p, b")) {
      if (other.contains(button) || button.contains(other) || !seen(other)) continue;
      if (!other.textContent.trim()) continue;
      for (const rect of other.getClientRects()) {
        if (overlap(button.getBoundingClientRect(), rect)) {
          out.covered.push((button.id || button.textContent.trim()) + " / "
                           + other.textContent.trim().slice(0, 40));
          break;
        }
      }
    }
  }
  for (const t of document.querySelectorAll("svg text")) {
    if (!seen(t)) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (px < 11) out.small.push(t.textContent + " " + px.toFixed(1));
  }
  return out;
}"""


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    """A game with a long team name, a hand played from the camera and a second
    one's auction under way, on one service, app and server for the module."""
    from web import create_app, serve

    folder = tmp_path_factory.mktemp("phone")
    store = Store(folder / "table.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(folder / "pins.json")})
    server = serve(app, port=0)
    client = app.test_client()
    body = {"teams": {"NS": LONG_TEAM, "EW": ""},
            "players": {"N": "Mado", "S": "Lucien", "E": "Josette", "W": "René"},
            "pin": PIN, "dealer": "N"}
    r = client.post("/api/games", json=body, headers=AUTH)
    assert r.status_code == 201 and r.json is not None, r.json
    for event in one_hand(3)[1:]:
        if isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.91)
        else:
            path, data = api_body(event)
            assert client.post(path, json=data, headers=AUTH).status_code == 200
    # Two hands scored by a tally: three hands in all, so averages have decimals.
    for taker, points in (("E", 81), ("N", 102)):
        assert client.post("/api/contract", json={"taker": taker, "value": 80, "trump": "H",
                                                  "double": 1}, headers=AUTH).status_code == 200
        tally = {"points": {"NS": points, "EW": 162 - points},
                 "tricks": {"NS": 4, "EW": 4}}
        assert client.post("/api/tally", json=tally, headers=AUTH).status_code == 200
    seat = service.state_json()["to_speak"]
    assert client.post("/api/bid", json={"seat": seat, "bid": "90D"},
                       headers=AUTH).status_code == 200
    yield {"service": service, "server": server, "client": client,
           "game": int(r.json["game_id"]), "first_bidder": seat}
    server.close()
    store.close()


@pytest.fixture(scope="module")
def phone(browser: Any, table: dict[str, Any]) -> Iterator[Any]:
    """A phone's tab, its organiser logged in."""
    context = browser.new_context(viewport=PHONE, locale="fr-FR")
    page = context.new_page()
    page.set_default_timeout(5000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.goto(table["server"].url + "/control")
    page.fill("#pin", PIN)
    page.fill("#author", "Mado")
    page.click("#login")
    page.wait_for_selector("#contract-entry")
    yield page
    context.close()
    assert not problems, problems


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


def pages(game: int) -> list[str]:
    return ["/", "/control", "/setup", "/history", f"/history/{game}",
            f"/history/{game}/hands/1", f"/history/{game}/sheet", "/stats", "/nowhere"]


def test_no_table_page_scrolls_sideways_or_hides_a_word_on_a_phone(
        table: dict[str, Any], phone: Any, artifacts: Path) -> None:
    problems = {}
    for path in pages(table["game"]):
        phone.goto(table["server"].url + path)
        phone.wait_for_load_state("load")
        found = phone.evaluate(MEASURE, False)
        name = path.strip("/").replace("/", "-") or "live"
        phone.screenshot(path=str(artifacts / f"phone-{name}.png"), full_page=True)
        wrong = {k: v for k, v in found.items() if (k == "width" and v > PHONE["width"])
                 or (k != "width" and v)}
        if wrong:
            problems[path] = wrong
    # The log-in form a visitor sees first.
    context = phone.context.browser.new_context(viewport=PHONE, locale="fr-FR")
    visitor = context.new_page()
    visitor.goto(table["server"].url + "/control")
    expect()(visitor.locator("#login-form")).to_be_visible()
    found = visitor.evaluate(MEASURE, False)
    context.close()
    if found["width"] > PHONE["width"] or any(found[k] for k in found if k != "width"):
        problems["/control (log-in)"] = found
    assert not problems, problems


def test_the_final_contract_lists_say_their_words_whole(table: dict[str, Any],
                                                         phone: Any) -> None:
    phone.goto(table["server"].url + "/control")
    for select, label in (("k-taker", "Preneur"), ("k-value", "Valeur"),
                          ("k-trump", "Atout"), ("k-double", "Contré")):
        field = phone.locator(f"#{select}")
        expect()(phone.locator(f"label:has(#{select})")).to_contain_text(label)
        assert field.evaluate("el => el.labels.length") == 1
    # Whichever choice is made, it shows whole.
    assert phone.evaluate(MEASURE, True)["cut"] == []
    # The PIN to show again has a label a person reads, not only one for screen readers.
    expect()(phone.locator("label[for=show-pin-again]")).to_have_text("Code à afficher")


def test_every_choice_of_the_set_up_page_shows_whole(table: dict[str, Any],
                                                     phone: Any) -> None:
    """Every choice of every list on /setup (the longest penalty for a renonce
    among them) fits a phone's list box once chosen."""
    phone.goto(table["server"].url + "/setup")
    phone.wait_for_load_state("load")
    found = phone.evaluate(MEASURE, True)
    assert found["cut"] == [] and found["width"] <= PHONE["width"], found


def test_the_download_button_leaves_its_caption_readable(table: dict[str, Any],
                                                        phone: Any) -> None:
    phone.goto(table["server"].url + "/history")
    button = phone.locator("#download-evening").bounding_box()
    caption = phone.locator("#download-caption")
    expect()(caption).to_contain_text("en un seul fichier")
    for rect in caption.evaluate("el => [...el.getClientRects()].map(r => "
                                 "({x: r.x, y: r.y, width: r.width, height: r.height}))"):
        apart = (rect["x"] >= button["x"] + button["width"] or rect["y"]
                 >= button["y"] + button["height"] or rect["x"] + rect["width"] <= button["x"]
                 or rect["y"] + rect["height"] <= button["y"])
        assert apart, (rect, button)


def test_the_statistics_read_on_a_phone(table: dict[str, Any], phone: Any) -> None:
    phone.goto(table["server"].url + "/stats")
    charts = phone.locator("svg.chart")
    assert charts.count() >= 4
    sizes = phone.evaluate("""() => [...document.querySelectorAll('svg.chart text')].map(
        t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
    assert sizes and min(sizes) >= 11, min(sizes)
    # Each chart fits the screen and shows the whole of the long team's name.
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    name = phone.locator("svg.chart text", has_text=LONG_TEAM).first
    box, chart = name.bounding_box(), name.locator("xpath=..").bounding_box()
    assert box["x"] + box["width"] <= chart["x"] + chart["width"]
    # The unnamed team is EO, and its figures sit beside their names in one card a team.
    teams = phone.locator("#stats-teams")
    expect()(teams).to_contain_text("EO")
    assert "EW" not in teams.inner_text()
    # Averages as French writes them: "143,3", never "143.3" nor "25.0".
    averages = phone.locator("td.avg").all_inner_texts()
    assert all(re.fullmatch(r"-?\d[\d\u202f\u00a0]*(,\d)?", a) for a in averages), averages
    assert any("," in a for a in averages), averages
    cell = teams.locator("td[data-label='Donnes']").first
    assert cell.evaluate("el => getComputedStyle(el, '::before').content") == '"Donnes"'


def test_the_auction_line_the_phase_and_the_camera_dot_speak_french(
        table: dict[str, Any], phone: Any) -> None:
    service = table["service"]
    phone.goto(table["server"].url + "/")
    seat = {"N": "N", "E": "E", "S": "S", "W": "O"}[table["first_bidder"]]
    # French puts a (narrow, no-break) space before the colon.
    expect()(phone.locator("#bids")).to_contain_text(f"{seat}\u202f: 90♦")
    expect()(phone.locator("#phase")).to_have_text("annonces en cours")
    # The history's auction and headings too.
    phone.goto(table["server"].url + f"/history/{table['game']}/hands/1")
    auction = phone.locator("#auction").inner_text()
    assert auction and not re.search(r"\w:", auction), auction
    phone.goto(table["server"].url + f"/history/{table['game']}")
    assert not re.search(r"\w:", phone.locator("h1").inner_text())
    phone.goto(table["server"].url + "/")
    # The demo's camera works: its dot is green; a camera opened but giving no
    # frame yet is amber; a camera lost is red.
    for status, dot in (("virtual table", "dot ok"), ("connecting", "dot wait"),
                        ("ok", "dot ok"), ("lost", "dot error")):
        service.set_status(camera=status)
        expect()(phone.locator("#camera-status .dot")).to_have_class(dot)
    service.set_status(camera="ok")
