"""The club's pages in a real browser (Playwright driving Debian's chromium)
against a real waitress server, club server, Mosquitto broker and a simulated
table: the organiser sets up a concours by picking players, starts a round,
the table plays the game the club sent, the club screen shows it live and the
ranking follows. Also: ``belote-table club demo`` end to end, and the
exports French Excel opens."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from club import evening
from club.server import ClubServer
from club.simtable import SimTable
from club.store import ClubStore
from tests.club.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]
PIN = "43218765"


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


@pytest.fixture
def club(tmp_path: Path, broker_factory: Any) -> Iterator[dict[str, Any]]:
    from club.app import create_app
    from web import serve

    broker = broker_factory("club", [1, 2])
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", broker.url, broker.passwords["club"])
    server.add_tables([1, 2])
    server.connect()
    web = serve(create_app(server, {"ORGANISER_PIN": PIN}), port=0)
    tables = [SimTable(tmp_path, n, broker.url, broker.passwords[f"table{n}"], "club",
                       seed=5, pace=0.01).start() for n in (1, 2)]
    yield {"server": server, "store": store, "web": web, "tables": tables}
    for t in tables:
        t.stop()
    web.close()
    server.close()
    store.close()


@pytest.mark.browser
@pytest.mark.slow
def test_concours_set_up_in_the_browser_is_played_at_the_tables_and_ranked_live(
        page: Any, club: dict[str, Any], artifacts: Path) -> None:
    url, store = club["web"].url, club["store"]
    page.goto(url + "/concours")
    expect()(page.locator("nav.top")).to_contain_text("Statistiques")
    # Changes need the organiser's PIN.
    page.click("#organiser-login")
    page.fill("#pin", "0000")
    page.click("#login")
    expect()(page.locator(".flash")).to_have_text("code faux")
    page.fill("#pin", PIN)
    page.click("#login")
    names = ["Amélie Roux", "Bernard Petit", "Chantal Blanc", "Didier Fabre",
             "Élise Marchand", "Fabrice Noël", "Gisèle Perrin", "Hervé Colin"]
    page.fill("#new-players", "\n".join(names))
    page.click("#add-players")
    for name in names:
        expect()(page.locator("#players")).to_contain_text(name)
    page.fill("#c-name", "Concours du vendredi")
    page.fill("#c-rounds", "2")
    page.fill("#c-amount", "1")
    page.click("#c-create")
    expect()(page.locator("h1")).to_have_text("Concours du vendredi")
    expect()(page.locator("main")).to_contain_text("1 donne par manche")
    # Four teams picked from the list, never typed.
    for i in range(4):
        page.select_option("#t-p1", label=names[2 * i])
        page.select_option("#t-p2", label=names[2 * i + 1])
        page.click("#t-add")
    expect()(page.locator("#teams li")).to_have_count(4)
    expect()(page.locator("#teams")).to_contain_text("Amélie Roux – Bernard Petit")
    page.click("#start-round")
    expect()(page.locator(".flash")).to_contain_text("Manche 1")
    expect()(page.locator("#round-1 tr")).to_have_count(3)
    page.screenshot(path=str(artifacts / "club-concours.png"), full_page=True)
    cid = store.all_concours()[0]["id"]
    # The club screen follows the tables' play without a reload.
    page.goto(url + "/")
    page.evaluate("window.__sameDocument = 'yes'")
    # The tables start the game the club sent them and play it.
    wait_for(lambda: all(t.played for t in club["tables"]), 60, "both tables' games")
    server = club["server"]
    wait_for(lambda: evening.round_over(evening.standings(store, cid,
                                                          evening.club_games(server))),
             60, "the round at the club")
    for t in club["tables"]:
        js = t.service.state.to_json()
        box = page.locator(f"#table-{t.table}")
        expect()(box).to_contain_text(js["teams"]["NS"])
        expect()(page.locator(f"#score-{t.table}-NS")).to_have_text(str(js["scores"]["NS"]))
        expect()(page.locator(f"#score-{t.table}-EW")).to_have_text(str(js["scores"]["EW"]))
        assert js["players"]["N"] in names
    assert page.evaluate("window.__sameDocument") == "yes"
    expect()(page.locator("#live-status")).to_have_class("dot ok")
    page.screenshot(path=str(artifacts / "club-live.png"), full_page=True)
    # The ranking: games won, then points; each team's games listed.
    page.goto(url + f"/concours/{cid}/ranking")
    data = evening.standings(store, cid, evening.club_games(server))
    rows = page.locator("#ranking tr")
    expect()(rows).to_have_count(5)
    for i, r in enumerate(data["ranking"], start=1):
        expect()(rows.nth(i).locator(".team-name")).to_have_text(r["team"]["name"])
        expect()(rows.nth(i).locator(".points")).to_have_text(str(r["points"]))
    won = [int(rows.nth(i).locator(".won").inner_text()) for i in range(1, 5)]
    points = [int(rows.nth(i).locator(".points").inner_text()) for i in range(1, 5)]
    assert list(zip(won, points, strict=True)) == sorted(zip(won, points, strict=True),
                                                         reverse=True)
    assert sum(won) == sum(1 for m in data["matches"] if m["result"]["winner"])
    page.click("#order-points")
    first = max(data["ranking"], key=lambda r: r["points"])
    expect()(rows.nth(1).locator(".points")).to_have_text(str(first["points"]))
    page.click("#keep-order-button")
    expect()(page.locator("#keep-order")).to_have_count(0)
    assert store.concours(cid)["ranking"] == "points"
    page.emulate_media(media="print")
    expect()(page.locator("nav.top")).to_be_hidden()
    page.screenshot(path=str(artifacts / "club-ranking-print.png"), full_page=True)
    page.emulate_media(media="screen")
    # The season's charts are drawn on the server.
    page.goto(url + "/stats")
    expect()(page.locator("svg.chart").first).to_be_visible()
    expect()(page.locator("#stats-players")).to_contain_text("Amélie Roux")
    page.screenshot(path=str(artifacts / "club-stats.png"), full_page=True)


def test_exports_open_in_french_excel_and_hold_the_whole_evening(tmp_path: Path) -> None:
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1, 2])
    players = [store.add_player(n) for n in ("Léa Dupré", "Marc Aubert", "Zoé Hamon",
                                             "Yann Le Gall")]
    cid = evening.new_concours(store, "Soirée", 1, hands=2)
    store.add_team(cid, "Les Pies", players[0], players[1])
    store.add_team(cid, "Équipe « Ouest »", players[2], players[3])
    data = evening.standings(store, cid, evening.club_games(server))
    evening.next_games(store, cid)
    data = evening.standings(store, cid, evening.club_games(server))
    body = evening.export_csv(data)
    assert body.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=";"))
    assert rows[1][:4] == ["Rang", "Équipe", "Joueur 1", "Joueur 2"]
    assert {rows[2][1], rows[3][1]} == {"Les Pies", "Équipe « Ouest »"}
    games = rows[rows.index(list(evening.CSV_HEADERS)) + 1:]
    assert len(games) == 1 and games[0][0] == "1" and games[0][1] in ("1", "2")
    assert "Léa Dupré et Marc Aubert" in games[0]
    exported = json.loads(json.dumps(evening.export_json(data)))
    assert [r["team"] for r in exported["ranking"]] == [r["team"]["name"]
                                                       for r in data["ranking"]]
    assert exported["matches"][0]["round"] == 1
    store.close()


@pytest.mark.slow
def test_club_demo_ends_with_the_club_equal_to_every_table(broker_factory: Any) -> None:
    out = subprocess.run([sys.executable, "-m", "cli.main", "club", "demo", "--tables", "3",
                          "--hands", "2", "--seed", "4", "--port", "0"],
                         capture_output=True, text=True, cwd=ROOT, timeout=200)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "courtier arrêté net" in out.stdout and "courtier redémarré" in out.stdout
    assert "coupée du club" in out.stdout and "de retour sur le réseau" in out.stdout
    assert "les données du club sont celles de chaque table : OK" in out.stdout
    # Its organiser PIN is printed beside the pages' address.
    shown = r"pages du club : http://\S+ +\(code PIN de l'organisateur 000000\)"
    assert re.search(shown, out.stdout), out.stdout[:800]
    ranking = re.findall(r"^\s+\d+\. Équipe \d+ .*: \d+ gagnée\(s\), -?\d+ points$",
                         out.stdout, re.M)
    assert len(ranking) == 6


def test_a_table_shows_its_own_season_statistics_in_french(tmp_path: Path) -> None:
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.events import GameStarted
    from scorer.simulate import simulate_game
    from web import create_app

    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    events = simulate_game(9, hands=3)
    service.start_game(GameStarted(teams={"NS": "Les Pies", "EW": "Les Geais"},
                                   players={"N": "Léa", "S": "Marc", "E": "Zoé", "W": "Yann"}))
    service.submit_many(events[1:], source="simulator")
    client = create_app(service, {"TESTING": True,
                         "PIN_FILE": str(tmp_path / "pins.json")}).test_client()
    html = client.get("/stats").get_data(as_text=True)
    assert "Statistiques de la saison" in html and "<svg" in html
    assert "points moyens par donne" in html
    row = re.search(r"<tr><td[^>]*>Léa</td><td[^>]*>(\d+)</td>", html)
    assert row and int(row.group(1)) == 3
    # Contracts by trump and by value, taken/made, for each player and team.
    assert "Par atout (pris/réussis)" in html
    state = service.state
    taken = [h["result"]["contract"] for h in state.hands if h["result"]["contract"]]
    by_trump = re.findall(r'class="by-trump">([^<]*)<', html)
    assert len(by_trump) == 6  # four players, two teams
    counted = sum(int(n) for cell in by_trump[:4] for n in re.findall(r" (\d+)/", cell))
    assert counted == len(taken)
    assert "Season statistics" in client.get("/stats?lang=en").get_data(as_text=True)
    store.close()


def test_organiser_changes_need_the_pin_and_wrong_pins_are_limited(tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    app = create_app(ClubServer(store, "club"), {"ORGANISER_PIN": PIN,
                      "WTF_CSRF_ENABLED": False, "PIN_RATE_LIMIT": "3 per minute"})
    client = app.test_client()
    answer = client.post("/players", data={"names": "Intrus"})
    assert answer.status_code == 302 and "/login" in answer.headers["Location"]
    assert client.post("/concours", data={"name": "X", "rounds": "1",
                                          "amount": "1"}).status_code == 302
    assert store.players() == [] and store.all_concours() == []
    assert [client.post("/login", data={"pin": "0"}).status_code for _ in range(4)] == [
        403, 403, 403, 429]
    assert "trop d&#39;essais" in client.post("/login", data={"pin": PIN}).get_data(as_text=True)
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert other.post("/login", data={"pin": PIN}).status_code == 302
    assert other.post("/players", data={"names": "Léa\nMarc\n"}).status_code == 302
    assert [p["name"] for p in store.players()] == ["Léa", "Marc"]
    # A concours that makes no sense is refused with the reason, nothing stored.
    answer = other.post("/concours", data={"name": "Soirée", "rounds": "0", "end": "hands",
                                         "amount": "4"}, follow_redirects=True)
    assert "nombre de manches 0 : un nombre entier" in answer.get_data(as_text=True)
    assert store.all_concours() == []
    store.close()


def test_the_club_server_command_serves_the_tables_from_its_broker(
        tmp_path: Path, broker_factory: Any) -> None:
    import signal
    import urllib.request

    broker = broker_factory("club", [1, 2, 3])
    secret = tmp_path / "club.pw"
    secret.write_text(broker.passwords["club"] + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "club", "--tables", "3", "--db",
         str(tmp_path / "club.db"), "--broker", broker.url, "--password-file", str(secret),
         "--port", "0", "--host", "127.0.0.1", "--pin", PIN],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any("pages du club :" in line for line in lines) and len(lines) < 10:
            lines.append(proc.stdout.readline())
        url = re.search(r"pages du club : (http://\S+)", "".join(lines))
        assert url, lines
        assert f"code PIN de l'organisateur {PIN}" in lines[-1]
        html = urllib.request.urlopen(url.group(1) + "/", timeout=10).read().decode()
        assert html.count('class="club-table') == 3 and "Toutes les tables" in html
    finally:
        proc.send_signal(signal.SIGTERM)  # as systemd stops it
        proc.wait(timeout=20)
        if proc.stdout:
            proc.stdout.close()
    assert proc.returncode == 0
    kept = ClubStore(tmp_path / "club.db")
    assert kept.tables() == {1: 0, 2: 0, 3: 0}
    kept.close()


@pytest.mark.browser
def test_the_table_s_statistics_page_in_the_browser(page: Any, tmp_path: Path,
                                                    artifacts: Path) -> None:
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.events import GameStarted
    from scorer.simulate import simulate_game
    from web import create_app, serve

    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    service.start_game(GameStarted(teams={"NS": "Les Pies", "EW": "Les Geais"},
                                   players={"N": "Léa", "S": "Marc", "E": "Zoé", "W": "Yann"}))
    service.submit_many(simulate_game(9, hands=4)[1:], source="simulator")
    server = serve(create_app(service, {"PIN_FILE": str(tmp_path / "pins.json")}), port=0)
    try:
        page.goto(server.url + "/")
        page.click("nav.top >> text=Statistiques")
        expect()(page.locator("h1")).to_have_text("Statistiques de la saison")
        expect()(page.locator("svg.chart")).to_have_count(6)
        expect()(page.locator("#stats-teams")).to_contain_text("Les Geais")
        # The charts' styles came with the page (a rounded dark panel behind each).
        radius = page.locator("svg.chart").first.evaluate(
            "e => getComputedStyle(e).borderTopLeftRadius")
        assert radius not in ("", "0px")
        page.screenshot(path=str(artifacts / "table-stats.png"), full_page=True)
    finally:
        server.close()
        store.close()
