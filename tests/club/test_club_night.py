"""A club night as clubs run it, against a real Mosquitto broker, the real club
server and its pages in Debian's chromium (scripts off: every organiser's
action is a plain form): an odd number of teams with a bye, teams renamed and
removed, rules picked from the presets' French names, a result entered by
hand for a table whose Pi failed, the printed ranking sheet and the links to
each table's hands. Timed rounds go by the club server's clock, whatever a
table's says. Mix-ups (a table's store replaced, two Pis set as the same
table) are shown at once and kept, never dropped, until the organiser
decides."""

from __future__ import annotations

import csv
import io
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from club import evening
from club.concours import match_result
from club.server import ClubServer
from club.simtable import SimTable
from club.store import ClubStore
from companion.bus import Bus
from companion.club_link import ClubLink, apply_next_game, event_payload, read_events
from companion.service import TableService
from companion.store import Store
from scorer.events import Event, GameStarted
from scorer.game import replay
from scorer.simulate import simulate_game
from tests.club.conftest import wait_for

PIN = "86420975"


class Box:
    """One Pi: its own store (``clock``: its own clock), service and club link."""

    def __init__(self, db: Path, table: int, broker: Any,
                 clock: Any = time.time, on_next: Any = None) -> None:
        self.table = table
        self.db = db
        self.store = Store(db, clock=clock)
        self.service = TableService(self.store, Bus())
        self.link = ClubLink(db, broker.url, table, broker.passwords[f"table{table}"],
                             club=broker.club, on_next=on_next, resend_after=1.5, poll=0.1)

    def start(self) -> Box:
        self.link.start()
        return self

    def play(self, events: list[Event], pace: float = 0.0) -> None:
        """Store ``events`` (a whole game, GameStarted first) as the table would."""
        started = events[0]
        assert isinstance(started, GameStarted)
        self.service.start_game(started, source="simulator")
        self.submit(events[1:], pace)

    def submit(self, events: list[Event], pace: float = 0.0) -> None:
        for e in events:
            self.service.submit(e, source="simulator")
            self.link.notify()
            if pace:
                time.sleep(pace)

    def record(self) -> list[dict[str, Any]]:
        import sqlite3

        db = sqlite3.connect(self.db)
        try:
            return [event_payload(self.table, r) for r in read_events(db, 0, 10**9)]
        finally:
            db.close()

    def close(self) -> None:
        self.link.stop()
        self.store.close()


@pytest.fixture
def club(tmp_path: Path, broker_factory: Any) -> Iterator[dict[str, Any]]:
    """A club of two tables: table 1's Pi plays what the club sends, table 2's
    has failed (nothing answers as table 2)."""
    from club.app import create_app
    from web import serve

    broker = broker_factory("club", [1, 2])
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", broker.url, broker.passwords["club"])
    server.add_tables([1, 2])
    server.connect()
    web = serve(create_app(server, {"ORGANISER_PIN": PIN}), port=0)
    sim = SimTable(tmp_path, 1, broker.url, broker.passwords["table1"], "club", seed=3,
                   pace=0.002).start()
    yield {"server": server, "store": store, "web": web, "sim": sim, "broker": broker}
    sim.stop()
    web.close()
    server.close()
    store.close()


def _no_script_page(browser: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(10000)
    return context, page


@pytest.mark.browser
@pytest.mark.slow
def test_an_odd_concours_with_a_bye_a_result_by_hand_and_a_printed_sheet(
        browser: Any, club: dict[str, Any], artifacts: Path) -> None:
    from playwright.sync_api import expect

    url, store, server = club["web"].url, club["store"], club["server"]
    context, page = _no_script_page(browser)
    try:
        page.goto(url + "/concours")
        page.click("#organiser-login")
        page.fill("#pin", PIN)
        page.click("#login")
        names = [f"{first} {last}" for first, last in zip(
            ("Amélie", "Bernard", "Chantal", "Didier", "Élise", "Fabrice", "Gisèle", "Hervé",
             "Irène", "Jacques", "Karine", "Lucien"),
            ("Roux", "Petit", "Blanc", "Fabre", "Marchand", "Noël", "Perrin", "Colin",
             "Bertin", "Morel", "Giraud", "Lemoine"), strict=True)]
        page.fill("#new-players", "\n".join(names))
        page.click("#add-players")
        # The rules are picked from the presets, by their French names.
        assert page.locator("input[name=rules]").count() == 0
        options = page.locator("#c-rules option").all_inner_texts()
        assert "Contrée FFB" in options and "Contrée du club" in options
        assert "Belote classique (carte retournée)" in options
        expect(page.locator("#bye-rule")).to_contain_text("une partie gagnée")
        page.fill("#c-name", "Concours du samedi")
        page.fill("#c-rounds", "2")
        page.fill("#c-amount", "1")
        page.select_option("#c-rules", label="Contrée du club")
        page.click("#c-create")
        expect(page.locator("h1")).to_have_text("Concours du samedi")
        expect(page.locator("#rules-line")).to_have_text("Règles : Contrée du club")
        for i in range(6):
            page.select_option("#t-p1", label=names[2 * i])
            page.select_option("#t-p2", label=names[2 * i + 1])
            page.click("#t-add")
        expect(page.locator("#teams > li")).to_have_count(6)
        cid = store.all_concours()[0]["id"]
        assert store.concours(cid)["rules"] == "club"
        assert store.concours(cid)["bye_points"] == 81  # 1 hand: 81 a hand
        teams = store.teams(cid)
        # Renamed, and one removed, before their first round.
        page.fill(f"#rename-{teams[0]['id']}", "Les Pies")
        page.click(f"#rename-{teams[0]['id']}-go")
        page.click(f"#remove-{teams[5]['id']}")
        expect(page.locator("#teams > li")).to_have_count(5)
        assert [t["name"] for t in store.teams(cid)][0] == "Les Pies"
        expect(page.locator("#bye-note")).to_have_text(
            "une équipe exempte à chaque manche : une partie gagnée et 81 points")
        # Five teams: two tables play, one team is exempt.
        page.click("#start-round")
        expect(page.locator(".flash")).to_contain_text("Manche 1")
        matches = store.matches(cid)
        bye1 = next(m for m in matches if m["team_ew"] is None)
        played = {m["table"]: m for m in matches if m["team_ew"] is not None}
        assert sorted(played) == [1, 2]
        expect(page.locator(f"#match-{bye1['id']}")).to_contain_text(
            "exempte : partie gagnée, 81 points")
        # Table 2's Pi failed: its result is entered on the club server.
        m2 = played[2]
        page.fill(f"#manual-{m2['id']}-ns", "250")
        page.fill(f"#manual-{m2['id']}-ew", "102")
        page.click(f"#manual-{m2['id']}-go")
        expect(page.locator(".flash")).to_have_text("Résultat de la table 2 saisi à la main.")
        expect(page.locator(f"#match-{m2['id']}")).to_contain_text("saisi à la main")
        # Table 1 plays its game; the round is over at the club.
        wait_for(lambda: club["sim"].played, 60, "table 1's game")
        wait_for(lambda: evening.round_over(evening.standings(
            store, cid, evening.club_games(server))), 60, "the round at the club")
        data = evening.standings(store, cid, evening.club_games(server))
        page.goto(url + f"/concours/{cid}/ranking")
        rows = page.locator("#ranking tr")
        expect(rows).to_have_count(6)
        by_team = {r["team"]["id"]: r for r in data["ranking"]}
        bye_row = by_team[bye1["team_ns"]]
        assert (bye_row["won"], bye_row["points"], bye_row["against"]) == (1, 81, 0)
        manual_ns = by_team[m2["team_ns"]]
        assert (manual_ns["won"], manual_ns["points"], manual_ns["against"]) == (1, 250, 102)
        expect(page.locator("#ranking")).to_contain_text("M1 exempte 81")
        expect(page.locator("#ranking")).to_contain_text("(saisi à la main)")
        # From the ranking to table 1's hands, a plain link.
        links = page.locator("#ranking a.hands-link")
        assert links.count() == 2  # both of table 1's teams
        links.first.click()
        expect(page.locator("h1")).to_contain_text("Table 1")
        state = club["sim"].service.state
        expect(page.locator("#hands tr")).to_have_count(1 + len(state.hands))
        expect(page.locator("h1")).to_contain_text(
            f"{state.scores['NS']} – {state.scores['EW']}")
        # The printed ranking: one A4 sheet, in French, no menu.
        page.goto(url + f"/concours/{cid}/feuille")
        page.emulate_media(media="print")
        expect(page.locator("#sheet-title")).to_have_text("Classement — Concours du samedi")
        assert page.locator("nav").count() == 0
        expect(page.locator(".noprint").first).to_be_hidden()
        expect(page.locator("#sheet-ranking tbody tr")).to_have_count(5)
        expect(page.locator("#sheet-byes")).to_contain_text("81 points")
        expect(page.locator("#sheet-manual")).to_contain_text("manche 1, table 2")
        pdf = page.pdf(format="A4", print_background=True)
        (artifacts / "club-ranking-sheet.pdf").write_bytes(pdf)
        assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1
        # The export says how each result came.
        rows_csv = list(csv.reader(io.StringIO(
            evening.export_csv(data).decode("utf-8-sig")), delimiter=";"))
        how = {r[1]: r[-1] for r in rows_csv[rows_csv.index(list(evening.CSV_HEADERS)) + 1:]}
        assert how == {"": "exempt", "1": "joué à la table", "2": "saisi à la main"}
        # Round 2: another team is exempt.
        page.emulate_media(media="screen")
        page.goto(url + f"/concours/{cid}")
        page.click("#start-round")
        expect(page.locator(".flash")).to_contain_text("Manche 2")
        bye2 = next(m for m in store.matches(cid) if m["team_ew"] is None and m["round"] == 2)
        assert bye2["team_ns"] != bye1["team_ns"]
        # A team that has played stays as it is.
        assert page.locator(f"#rename-{teams[0]['id']}").count() == 0
    finally:
        context.close()


def _hand_ends(events: list[Event]) -> list[int]:
    """The index of each hand's last event."""
    state = replay(events[:1])
    ends = []
    for i, e in enumerate(events[1:], start=1):
        after = state.apply(e)
        if after.hand_no > state.hand_no or (after.phase == "over" != state.phase):
            ends.append(i)
        state = after
    return ends


def _skewed_game() -> tuple[list[Event], list[int]]:
    """A simulated game of four hands, each with a contract, whose first hand's
    winner differs from its first three hands' (so which hands count changes
    the winner); and the index of each hand's last event."""
    for seed in range(1, 300):
        events = simulate_game(seed, hands=4)
        hands = replay(events).hands
        if len(hands) < 4 or any(h["result"].get("contract") is None for h in hands[:4]):
            continue
        if len(_hand_ends(events)) < 4:
            continue
        one = {t: hands[0]["result"]["score"][t] for t in ("NS", "EW")}
        three = {t: sum(h["result"]["score"][t] for h in hands[:3]) for t in ("NS", "EW")}
        if (one["NS"] > one["EW"]) != (three["NS"] > three["EW"]) and \
                one["NS"] != one["EW"] and three["NS"] != three["EW"]:
            return events, _hand_ends(events)
    raise AssertionError("no such game")


@pytest.mark.slow
def test_a_table_whose_clock_is_4_minutes_fast_does_not_change_a_timed_round(
        tmp_path: Path, broker_factory: Any) -> None:
    broker = broker_factory("club", [1])
    offset = [0.0]
    base = time.time()
    store = ClubStore(tmp_path / "club.db")
    # The club server's clock: the test moves it on (a round of 1 minute).
    server = ClubServer(store, "club", broker.url, broker.passwords["club"],
                        clock=lambda: base + offset[0])
    server.add_tables([1])
    server.connect()
    games: list[dict[str, Any]] = []
    # Table 1's clock is 4 minutes fast (a Pi has no clock battery).
    box = Box(tmp_path / "t1.db", 1, broker, clock=lambda: time.time() + 240,
              on_next=games.append).start()
    try:
        players = [store.add_player(n) for n in ("Ana", "Bob", "Cyr", "Dan")]
        cid = evening.new_concours(store, "Au temps", 1, minutes=1)
        store.add_team(cid, "Les Nord", players[0], players[1])
        store.add_team(cid, "Les Est", players[2], players[3])
        evening.start_round(server, cid)
        wait_for(lambda: bool(games), 20, "the club's game at the table")
        events, ends = _skewed_game()
        assert apply_next_game(box.service, games[0]) is not None
        hands = replay(events).hands
        # Hands 1 and 2 within the minute (club's clock: 10 s after the start)...
        offset[0] = 10
        box.submit(events[1:ends[1] + 1])
        wait_for(lambda: server.last_seq(1) == ends[1] + 1, 30, "hands 1-2 at the club")
        # ...then time is called: hand 3 began before (played out), hand 4 after.
        offset[0] = 70
        box.submit(events[ends[1] + 1:ends[3] + 1])
        wait_for(lambda: server.last_seq(1) == ends[3] + 1, 30, "hands 3-4 at the club")
        data = evening.standings(store, cid, evening.club_games(server), now=server.clock())
        res = data["matches"][0]["result"]
        three = {t: sum(h["result"]["score"][t] for h in hands[:3]) for t in ("NS", "EW")}
        assert res["hands"] == 3 and res["over"] and res["points"] == three
        # By the table's own clock every hand ended after the minute: one hand
        # would have counted, and the other team would have won.
        started = data["matches"][0]["sent"]
        table_ends: list[tuple[int | None, float]] = [
            (e.hand_no, e.ts) for e in box.store.events(box.store.games()[-1]["id"])]
        state = server.current_state(1)[1]
        assert state is not None
        by_table = match_result(state, None, None, 1, started,
                                evening._hand_ends(state, table_ends), server.clock())
        assert by_table["hands"] == 1
        assert by_table["winner"] is not None and by_table["winner"] != res["winner"]
    finally:
        box.close()
        server.close()
        store.close()


def _game(seed: int, hands: int) -> list[Event]:
    events = simulate_game(seed, hands=hands)
    started = events[0]
    assert isinstance(started, GameStarted)
    return events


@pytest.mark.browser
@pytest.mark.slow
def test_a_replaced_store_is_shown_at_once_kept_apart_and_kept_as_the_organiser_decides(
        tmp_path: Path, broker_factory: Any, browser: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    from club.app import create_app
    from web import serve

    broker = broker_factory("club", [3])
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", broker.url, broker.passwords["club"])
    server.add_tables([3])
    server.connect()
    web = serve(create_app(server, {"ORGANISER_PIN": PIN}), port=0)
    old = Box(tmp_path / "old.db", 3, broker).start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    new = None
    try:
        first = _game(11, 3)
        old.play(first)
        wait_for(lambda: server.last_seq(3) == len(first), 60, "the old store at the club")
        old.close()
        page.goto(web.url + "/")
        page.evaluate("window.__same = 'yes'")
        assert page.locator(".mixup").count() == 0
        # The Pi's card is replaced: a new store, its events numbered from 1 again.
        new = Box(tmp_path / "new.db", 3, broker).start()
        second = _game(12, 2)
        new.play(second)
        origin = new.link.origin
        assert origin is not None
        wait_for(lambda: store.stray_count(3, origin) == (len(second), len(second)), 60,
                 "every event of the new store kept apart")
        # On the club screen at once, in French, naming the table; no reload.
        banner = page.locator(".mixup")
        expect(banner).to_contain_text("Table 3 : mélange.", timeout=15000)
        expect(banner).to_contain_text(f"{len(second)} événements reçus, gardés à part")
        expect(banner).to_contain_text("autre registre que celui que le club connaît")
        assert page.evaluate("window.__same") == "yes"
        page.screenshot(path=str(artifacts / "club-mixup-banner.png"))
        # Nothing mixed in: the club's table 3 is still the old store's, whole.
        assert server.last_seq(3) == len(first)
        assert [e.to_json() for e in store.table_events(3)] == old.record()
        assert server.refused_count == 0
        # The organiser keeps both games: the new store becomes table 101.
        page.click(".mixup a")
        page.click("#mixup-login")
        page.fill("#pin", PIN)
        page.click("#login")
        expect(page.locator("#mixup-table")).to_have_value("101")
        page.click("#mixup-keep")
        expect(page.locator("#mixup-decided")).to_have_text("Décidé : gardés comme table 101.")
        wait_for(lambda: server.last_seq(101) == len(second), 30, "the new store as table 101")
        kept = [{**e.to_json(), "table": 3} for e in store.table_events(101)]
        assert kept == new.record()
        # What the new store plays next goes there directly.
        third = _game(13, 1)
        new.play(third)
        wait_for(lambda: server.last_seq(101) == len(second) + len(third), 30,
                 "the new store's next game")
        assert server.last_seq(3) == len(first)
        page.goto(web.url + "/")
        assert page.locator(".mixup").count() == 0
        expect(page.locator("#table-101")).to_contain_text("second registre de la table 3")
    finally:
        context.close()
        if new is not None:
            new.close()
        web.close()
        server.close()
        store.close()


@pytest.mark.slow
def test_two_pis_set_as_the_same_table_lose_nothing(tmp_path: Path,
                                                   broker_factory: Any) -> None:
    broker = broker_factory("club", [2])
    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club", broker.url, broker.passwords["club"])
    server.add_tables([2])
    server.connect()
    boxes = [Box(tmp_path / f"pi{i}.db", 2, broker).start() for i in (1, 2)]
    games = [_game(21, 3), _game(22, 3)]
    try:
        threads = [threading.Thread(target=b.play, args=(g, 0.003))
                   for b, g in zip(boxes, games, strict=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        origins = [b.link.origin for b in boxes]
        assert None not in origins and origins[0] != origins[1]

        def settled() -> bool:
            first = next((i for i in (0, 1) if store.origins().get(2) == origins[i]), None)
            if first is None:
                return False
            other = 1 - first
            whole = store.stray_count(2, str(origins[other]))
            return server.last_seq(2) == len(games[first]) and whole == (
                len(games[other]), len(games[other]))

        wait_for(settled, 60, "both Pis' events at the club")
        first = 0 if store.origins()[2] == origins[0] else 1
        other = 1 - first
        assert [e.to_json() for e in store.table_events(2)] == boxes[first].record()
        [m] = server.mixups()
        assert m["topic"] == 2 and m["decision"] is None and m["kept"] == len(games[other])
        assert m["both"]  # both sent at once: two Pis, not a replaced store
        server.decide(m["id"], "keep", 102)
        wait_for(lambda: server.last_seq(102) == len(games[other]), 30, "the second Pi kept")
        assert [{**e.to_json(), "table": 2} for e in store.table_events(102)] == \
            boxes[other].record()
        assert server.refused_count == 0
    finally:
        for b in boxes:
            b.close()
        server.close()
        store.close()
