"""The club's screens in a real browser (Playwright driving Debian's chromium)
against a real waitress server and club server: the wall screen shows 20
tables, the ranking, the round and the time left on one 1920x1080 screen in
type read from across a room, and follows the play without a reload; no club
page scrolls sideways on a 390-pixel phone.

The tables' events reach the club server here by its receiving end
(``ClubServer.receive``, the same checks as from the broker): what is tested
is what the pages draw. The broker's part is tested in test_club_night.py."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from club import evening
from club.server import ClubServer
from club.store import ClubStore
from scorer.events import Event, GameStarted
from scorer.game import replay
from scorer.simulate import simulate_game

PIN = "97531864"
TABLES = 20


def payload(table: int, seq: int, game_seq: int, event: Event, author: str | None = None,
            origin: str = "store1", hand_no: int | None = None) -> bytes:
    return json.dumps({"table": table, "seq": seq, "game_id": 1, "game_seq": game_seq,
                       "event": event.to_json(), "source": "simulator", "ts": 1000.0 + seq,
                       "confidence": None, "author": author, "hand_no": hand_no,
                       "origin": f"{origin}t{table}"}).encode()


def play(server: ClubServer, table: int, game: dict[str, Any], hands: int, upto: int | None,
         seed: int) -> list[Event]:
    """Table ``table`` plays the club's ``game`` (a simulated one), its first
    ``upto`` events (all when None); returns the whole game's events."""
    events = simulate_game(seed, hands=hands, dealer="N")
    events[0] = GameStarted(rules="ffb", settings={}, dealer="N", teams=game["teams"],
                            players=game["players"])
    for i, e in enumerate(events[:upto]):
        author = f"club:match:{game['match']}" if i == 0 else None
        assert server.receive(table, payload(table, i + 1, i, e, author)) == "stored"
    return events


@pytest.fixture
def night(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A club of 20 tables and 41 teams (one exempt each round), round 1 under
    way: every table has played part of its game."""
    from club.app import create_app
    from web import serve

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables(list(range(1, TABLES + 1)))
    players = [store.add_player(f"Joueur {i:02d}") for i in range(82)]
    cid = evening.new_concours(store, "Grand concours de la Saint-Nicolas", 3, minutes=45)
    for i in range(41):
        store.add_team(cid, f"Équipe {i + 1} des Cheminots", players[2 * i],
                       players[2 * i + 1])
    games = evening.next_games(store, cid, server.clock())
    events = {}
    for table, game in games:
        events[table] = play(server, table, game, 3, 60 + table, seed=table)
    web = serve(create_app(server, {"ORGANISER_PIN": PIN}), port=0)
    yield {"server": server, "store": store, "web": web, "cid": cid, "games": dict(games),
           "events": events}
    web.close()
    store.close()


def _context(browser: Any, width: int, height: int) -> Any:
    return browser.new_context(viewport={"width": width, "height": height})


@pytest.mark.browser
@pytest.mark.slow
def test_the_wall_shows_20_tables_ranking_round_and_time_left_on_one_screen(
        browser: Any, night: dict[str, Any], artifacts: Path) -> None:
    from playwright.sync_api import expect

    context = _context(browser, 1920, 1080)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        page.goto(night["web"].url + "/mur")
        cards = page.locator(".wall-card")
        expect(cards).to_have_count(TABLES)
        size = page.evaluate("[document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")
        assert size[0] <= 1920 and size[1] <= 1080, size  # nothing to scroll
        for i in range(TABLES):
            box = cards.nth(i).bounding_box()
            assert box is not None
            # Every card whole on the screen, none smaller than a twentieth of it.
            assert box["x"] >= 0 and box["y"] >= 0, box
            assert box["x"] + box["width"] <= 1920 and box["y"] + box["height"] <= 1080, box
            assert box["width"] >= 250 and box["height"] >= 180, box
        fonts = page.evaluate(
            "sel => [...document.querySelectorAll(sel)].map(e =>"
            " parseFloat(getComputedStyle(e).fontSize))", ".wall-card .wscore")
        assert len(fonts) == 2 * TABLES and min(fonts) >= 48, fonts
        names = page.evaluate(
            "sel => [...document.querySelectorAll(sel)].map(e =>"
            " parseFloat(getComputedStyle(e).fontSize))", ".wall-card .wname, .wall-card .wno")
        assert min(names) >= 24, names
        expect(page.locator("#wall-round")).to_have_text("Manche 1 sur 3")
        expect(page.locator("#wall-left")).to_contain_text("Temps restant")
        assert 44 * 60 <= int(page.locator("#wall-left").get_attribute("data-left") or 0) \
            <= 45 * 60
        ranking = page.locator("#wall-ranking li")
        assert ranking.count() >= 10
        rank_font = page.evaluate("parseFloat(getComputedStyle("
                                  "document.querySelector('#wall-ranking li')).fontSize)")
        assert rank_font >= 32, rank_font
        box = page.locator("#wall-ranking").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 1080
        expect(page.locator("#wall-bye")).to_contain_text("Exempte cette manche")
        # Table 7's score on the wall is its game's.
        server, games = night["server"], night["games"]
        state = server.current_state(7)[1]
        assert state is not None
        score7 = page.locator("#wall-table-7 .wscore")
        expect(score7.nth(0)).to_have_text(str(state.scores["NS"]))
        expect(page.locator("#wall-table-7")).to_contain_text(games[7]["teams"]["NS"])
        page.screenshot(path=str(artifacts / "club-wall-20-tables.png"))
        # It follows the play without a reload: table 7 finishes its game.
        page.evaluate("window.__same = 'yes'")
        events = night["events"][7]
        for i in range(67, len(events)):
            assert server.receive(7, payload(7, i + 1, i, events[i])) == "stored"
        state = server.current_state(7)[1]
        assert state is not None
        expect(score7.nth(0)).to_have_text(str(state.scores["NS"]), timeout=15000)
        expect(score7.nth(1)).to_have_text(str(state.scores["EW"]))
        assert page.evaluate("window.__same") == "yes"
        # A mix-up: the wall says it at once, and still fits the screen.
        started = GameStarted(rules="ffb", settings={}, dealer="N")
        assert server.receive(3, payload(3, 1, 0, started, origin="other")) == "apart"
        expect(page.locator("#wall .mixup")).to_contain_text("Table 3 : mélange.",
                                                             timeout=15000)
        assert page.evaluate("window.__same") == "yes"
        size = page.evaluate("[document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")
        assert size[0] <= 1920 and size[1] <= 1080, size
        fonts = page.evaluate(
            "sel => [...document.querySelectorAll(sel)].map(e =>"
            " parseFloat(getComputedStyle(e).fontSize))", ".wall-card .wscore")
        assert min(fonts) >= 48, fonts
        last = cards.nth(TABLES - 1).bounding_box()
        assert last is not None and last["y"] + last["height"] <= 1080
        page.screenshot(path=str(artifacts / "club-wall-mixup.png"))
    finally:
        context.close()
    assert not problems, problems


def test_the_wall_without_scripts_refreshes_itself(night: dict[str, Any]) -> None:
    import urllib.request

    with urllib.request.urlopen(night["web"].url + "/mur") as r:
        html = r.read().decode()
    assert '<noscript><meta http-equiv="refresh" content="10"></noscript>' in html
    assert html.count('<section class="wall-card') == TABLES


@pytest.mark.browser
@pytest.mark.slow
def test_no_club_page_scrolls_sideways_on_a_phone(browser: Any, night: dict[str, Any],
                                                  artifacts: Path) -> None:
    server, store, cid = night["server"], night["store"], night["cid"]
    match = next(m for m in store.matches(cid) if m["team_ew"] is not None)
    store.add_manual_result(match["id"], 250, 162, server.clock())
    # A mix-up to show: another store on table 3's topic.
    started = GameStarted(rules="ffb", settings={}, dealer="N")
    assert server.receive(3, payload(3, 1, 0, started, origin="other")) == "apart"
    context = _context(browser, 390, 844)
    page = context.new_page()
    try:
        url = night["web"].url
        page.goto(url + "/login")
        page.fill("#pin", PIN)
        page.click("#login")
        wide = {}
        for path in ("/", "/mur", "/concours", f"/concours/{cid}", f"/concours/{cid}/ranking",
                     f"/concours/{cid}/feuille", "/tables/5/parties/1", "/stats",
                     "/melanges/1", "/login"):
            page.goto(url + path)
            page.wait_for_load_state("load")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wide[path] = width
            page.screenshot(path=str(artifacts / f"club-phone{path.replace('/', '-')}.png"),
                            full_page=True)
        assert wide == {}
    finally:
        context.close()


def test_the_wall_screen_keeps_its_type_with_a_few_tables(tmp_path: Path) -> None:
    """Four tables: four large cards, two by two (the type follows the card)."""
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1, 2, 3, 4])
    html = create_app(server).test_client().get("/mur").get_data(as_text=True)
    assert "wall-cols-2 wall-rows-2" in html and html.count('<section class="wall-card') == 4
    store.close()


def test_a_mix_up_set_aside_stays_kept_and_a_taken_number_is_refused_in_french(
        tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1, 2])
    game = simulate_game(1)
    started = game[0]
    assert server.receive(1, payload(1, 1, 0, started, origin="first")) == "stored"
    assert server.receive(1, payload(1, 1, 0, started, origin="second")) == "apart"
    assert server.receive(1, payload(1, 3, 2, game[2], origin="second")) == "apart"
    # The ack tells each store where the club is with it (the second lacks seq 2).
    assert server.ack_body(1) == {"seq": 1, "origin": "firstt1",
                                  "others": {"secondt1": {"seq": 1, "missing": True}}}
    client = create_app(server, {"ORGANISER_PIN": PIN, "WTF_CSRF_ENABLED": False}
                        ).test_client()
    assert "Table 1 : mélange." in client.get("/").get_data(as_text=True)
    # Only the organiser decides.
    assert client.post("/melanges/1", data={"decision": "set-aside"}).status_code == 302
    assert server.mixups()[0]["decision"] is None
    client.post("/login", data={"pin": PIN})
    page = client.post("/melanges/1", data={"decision": "keep", "table": "2"},
                       follow_redirects=True).get_data(as_text=True)
    assert "la table 2 existe déjà : choisissez un numéro libre" in page
    assert server.mixups()[0]["decision"] is None and server.tables == [1, 2]
    client.post("/melanges/1", data={"decision": "set-aside"})
    assert server.mixups()[0]["decision"] == "set-aside"
    live = client.get("/").get_data(as_text=True)
    assert "Table 1 : mélange." not in live
    assert "Table 1 : 2 événements d'un autre registre mis de côté" in live
    # Still kept: more of it goes on being kept, and it can still be kept later.
    assert server.receive(1, payload(1, 2, 1, game[1], origin="second")) == "apart"
    assert store.stray_count(1, "secondt1") == (3, 3)
    assert server.last_seq(1) == 1
    store.close()


def test_the_club_s_statistics_say_eo_and_write_decimals_with_a_comma(tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1])
    game = simulate_game(4, hands=3)  # teams left unnamed: NS and EW
    for i, e in enumerate(game):
        assert server.receive(1, payload(1, i + 1, i, e)) == "stored"
    page = create_app(server).test_client().get("/stats").get_data(as_text=True)
    rows = page.split('id="stats-teams"')[1].split("</table>")[0]
    names = re.findall(r"<td[^>]*>(EO|NS|EW)</td>", rows)
    assert sorted(names) == ["EO", "NS"] and "EW" not in rows
    averages = re.findall(r'<td class="avg"[^>]*>([^<]*)</td>', page)
    assert averages and all("." not in a for a in averages)
    assert any("," in a for a in averages), averages  # 3 hands: some average has decimals
    assert "EW" not in page.split("<main>")[1]
    store.close()


def test_a_club_file_from_before_stores_were_named_tells_its_store_from_another(
        tmp_path: Path) -> None:
    """Events stored unnamed (an older table or club file): a store that names
    itself is asked to send from seq 1, adopted if that is the club's seq 1, kept
    apart if not; nothing of the club's copy changes."""
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1])
    game = simulate_game(2, hands=1)

    def unnamed(seq: int) -> bytes:
        data = json.loads(payload(1, seq, seq - 1, game[seq - 1]))
        del data["origin"]
        return json.dumps(data).encode()

    for seq in (1, 2, 3):
        assert server.receive(1, unnamed(seq)) == "stored"
    assert server.ack_body(1) == {"seq": 3}
    # Another store (its events differ) names itself past the club's last seq.
    other = simulate_game(9, hands=1)
    stranger = json.loads(payload(1, 4, 3, other[3], origin="new"))
    assert server.receive(1, json.dumps(stranger).encode()) == "unverified"
    assert server.ack_body(1) == {"seq": 3, "others": {"newt1": {"seq": 0, "missing": True}}}
    first = json.loads(payload(1, 1, 0, other[0], origin="new"))
    first["ts"] = 5.0
    assert server.receive(1, json.dumps(first).encode()) == "apart"
    assert server.last_seq(1) == 3 and store.origins()[1] is None
    # The table's own store, now naming itself: its seq 1 is the club's.
    assert server.receive(1, payload(1, 4, 3, game[3], origin="own")) == "unverified"
    assert server.receive(1, payload(1, 1, 0, game[0], origin="own")) == "duplicate"
    assert store.origins()[1] == "ownt1"
    assert server.receive(1, payload(1, 4, 3, game[3], origin="own")) == "stored"
    assert server.ack_body(1)["seq"] == 4 and server.ack_body(1)["origin"] == "ownt1"
    store.close()


def test_the_club_screen_lists_refused_messages_in_french(tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1])
    game = simulate_game(3)
    assert server.receive(1, payload(1, 1, 0, game[0])) == "stored"
    changed = json.loads(payload(1, 1, 0, game[0]))
    changed["ts"] = 1.0
    del changed["origin"]
    for body in (b"\xff{nope", json.dumps(changed).encode(),
                 payload(1, 2, 1, game[0])):
        assert server.receive(1, body) == "refused"
    app = create_app(server)
    page = app.test_client().get("/").get_data(as_text=True)
    refused = html.unescape(page.split('class="refused"')[1].split("</details>")[0])
    assert "table 1 : pas du JSON" in refused
    assert "table 1 : l'événement 1 diffère de celui que le club a enregistré" in refused
    assert "table 1 : une partie commence par son début, et là seulement" in refused
    english = app.test_client().get("/?lang=en").get_data(as_text=True)
    assert "table 1: not JSON" in english
    store.close()


def test_a_match_a_replaced_store_plays_again_counts_from_the_store_kept(
        tmp_path: Path) -> None:
    """Table 1's store is replaced in the middle of its match; the new store
    starts the club's game again and plays it out. Kept as table 101, its
    game is the match's."""
    now = [1000.0]
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", clock=lambda: now[0])
    server.add_tables([1])
    players = [store.add_player(n) for n in ("Ana", "Bob", "Cyr", "Dan")]
    cid = evening.new_concours(store, "Samedi", 1, hands=2)
    store.add_team(cid, "Les Nord", players[0], players[1])
    store.add_team(cid, "Les Est", players[2], players[3])
    [(table, game)] = evening.next_games(store, cid, now[0])
    old = play(server, table, game, 2, 20, seed=5)  # 20 events, then the card dies
    new = simulate_game(6, hands=2, dealer="N")
    new[0] = old[0]
    now[0] = 1100.0
    for i, e in enumerate(new):
        body = payload(1, i + 1, i, e, f"club:match:{game['match']}" if i == 0 else None,
                       origin="replaced")
        assert server.receive(1, body) == "apart"
    [m] = server.mixups()
    server.decide(m["id"], "keep", 101)
    assert server.last_seq(101) == len(new) and server.last_seq(1) == 20
    data = evening.standings(store, cid, evening.club_games(server), now=now[0])
    res = data["matches"][0]["result"]
    final = replay(new)
    assert res["over"] and res["hands"] == 2
    assert res["points"] == {t: sum(h["result"]["score"][t] for h in final.hands[:2])
                             for t in ("NS", "EW")}
    assert evening.club_game_ids(server)[(1, game["match"])] == (101, 1)
    store.close()


def test_the_wall_shows_a_new_round_s_match_at_0_until_its_table_starts_it(
        tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1])
    players = [store.add_player(n) for n in ("Ana", "Bob", "Cyr", "Dan")]
    cid = evening.new_concours(store, "Samedi", 2, hands=1)
    store.add_team(cid, "Les Nord", players[0], players[1])
    store.add_team(cid, "Les Est", players[2], players[3])
    [(_t, game)] = evening.next_games(store, cid, server.clock())
    events = play(server, 1, game, 1, None, seed=8)
    state = replay(events)
    assert sum(state.scores.values()) > 0
    client = create_app(server).test_client()

    def card() -> str:
        page = client.get("/mur").get_data(as_text=True)
        return page.split('id="wall-table-1"')[1].split("</section>")[0]

    assert f'<span class="wscore">{state.scores["NS"]}</span>' in card()
    assert "terminée" in card()
    evening.next_games(store, cid, server.clock())  # round 2, not started at the table yet
    shown = card()
    assert shown.count('<span class="wscore">0</span>') == 2
    assert "en attente de la table" in shown
    store.close()
