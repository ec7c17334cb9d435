"""The pages in a real browser (Playwright driving Debian's chromium) against
a real waitress server, table service and SQLite file: live updates without
reload, a game set up and a whole hand entered by hand, a correction from the
card picker, the history's score steps, a change without the PIN refused.
Screenshots go to tests/artifacts/ for a person to look at."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorer.cards import team_of
from scorer.events import BeloteAnnounced, BidMade, CardCorrected, CardPlayed, ContractSet
from scorer.game import replay
from scorer.simulate import simulate_game
from tests.web.conftest import PIN, api_body, one_hand, start_body

pytestmark = pytest.mark.browser
AUTH = {"X-Table-PIN": PIN}
RANK_FR = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "V", "Q": "D", "K": "R", "A": "A"}
SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def CARD_FR(code: str) -> str:  # noqa: N802 - reads as the card's French name
    return RANK_FR[code[0]] + SUIT[code[1]]


POINTS = {"7": 0, "8": 0, "9": 0, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 11}


def expect() -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect


def wait_connected(page: Any) -> None:
    expect()(page.locator("#conn")).to_have_class("dot-label ok")



def enter_hand_until(client: Any, cards: int) -> list[Any]:
    """Start seed 5's game through the API and enter its events up to its ``cards``-th card."""
    events = one_hand(5)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    client.post("/api/games", json=start_body(events[0]))
    for event in events[1:plays[cards - 1] + 1]:
        path, body = api_body(event)
        assert client.post(path, json=body, headers=AUTH).status_code == 200
    return events

def test_live_page_follows_published_events_without_reload(page: Any, server: Any,
                                                           service: Any, client: Any,
                                                           artifacts: Any) -> None:
    page.goto(server.url + "/")
    wait_connected(page)
    page.evaluate("window.__sameDocument = 'yes'")
    # A hand with a renonce slipped in, entered straight into the service as
    # the camera would: the page must follow each published state.
    events = simulate_game(11, hands=1, inject_renonce=True)
    cut = next(i for i in range(1, len(events) + 1) if replay(events[:i]).renonces)
    client.post("/api/games", json=start_body(events[0]))
    expect()(page.locator("#team-NS")).to_have_text(events[0].teams["NS"])
    for event in events[1:cut]:
        service.submit(event, source="camera")
    shown = replay(events[:cut]).to_json()
    expect()(page.locator("#renonce-banner")).to_be_visible()
    renonce = shown["renonces"][0]
    expect()(page.locator("#renonce-banner")).to_contain_text(str(renonce["proof"]["trick"]))
    for seat_card in shown["current_trick"]["cards"]:
        expect()(page.locator(f"#seat-{seat_card['seat']} .card")).to_have_attribute(
            "data-card", seat_card["card"])
    for team in ("NS", "EW"):
        expect()(page.locator(f"#points-{team}")).to_have_text(str(shown["card_points"][team]))
    # The camera could not read the next card: the page asks for it.
    to_play = service.to_play()
    service.submit(CardPlayed(seat=to_play, card=None), source="camera")
    expect()(page.locator("#unknown-prompt")).to_be_visible()
    expect()(page.locator(f"#seat-{to_play} .card")).to_have_attribute("data-card", "?")
    service.alert("out_of_turn", seat="E", card="TH", to_play="W")
    expect()(page.locator("#alert-line")).to_contain_text("10♥")
    service.set_status(camera="ok", display="ok")
    expect()(page.locator("#camera-status .dot")).to_have_class("dot ok")
    assert page.evaluate("window.__sameDocument") == "yes"
    page.screenshot(path=str(artifacts / "web-live-renonce.png"), full_page=True)


def test_setup_contract_and_whole_hand_by_hand_entry(page: Any, server: Any, service: Any,
                                                     artifacts: Any) -> None:
    events = one_hand(7)
    started = events[0]
    contract = replay(events).hands[0]["result"]["contract"]
    # Enter the final contract instead of the auction, then every card.
    entries = [e for e in events[1:] if not isinstance(e, BidMade)]
    expected = replay([started, ContractSet(**contract), *entries]).to_json()

    page.goto(server.url + "/setup")
    page.fill("#team_NS", "Les Pieds")
    page.fill("#team_EW", "Les Mains")
    page.fill("#player_N", "Mado")
    page.fill("#target", "1000")
    page.select_option("#dealer", started.dealer)
    page.fill("#newpin", PIN)
    page.fill("#author", "Mado")
    page.click("#start")
    page.wait_for_url("**/control")
    wait_connected(page)
    page.select_option("#k-taker", contract["taker"])
    page.select_option("#k-value", str(contract["value"]))
    page.select_option("#k-trump", contract["trump"])
    page.select_option("#k-double", str(contract["double"]))
    page.click("#set-contract")
    expect()(page.locator("#contract")).to_contain_text(str(contract["value"]))
    for n, event in enumerate(entries):
        if isinstance(event, BeloteAnnounced):
            page.click(f"button[data-belote='{event.seat}']")
            page.wait_for_function(
                f"() => window.beloteState.belote.includes('{event.seat}')")
            continue
        assert isinstance(event, CardPlayed)
        page.click(f"#picker button[data-card='{event.card}']")
        page.click("#play-card")
        page.wait_for_function(f"() => window.beloteState.played.includes('{event.card}')"
                               " || window.beloteState.hand_no > 1")
        if n == 13:
            page.screenshot(path=str(artifacts / "web-control.png"), full_page=True)
    # The hand is over: its last trick stays on the table, with the hand's score.
    final = expected["hands"][0]["result"]
    last = entries[-1]
    assert isinstance(last, CardPlayed)
    expect()(page.locator(f"#seat-{last.seat} .card")).to_have_attribute("data-card", last.card)
    expect()(page.locator("#last-hand")).to_contain_text(str(final["score"]["NS"]))
    expect()(page.locator("#score-NS")).to_have_text(str(expected["scores"]["NS"]))
    expect()(page.locator("#score-EW")).to_have_text(str(expected["scores"]["EW"]))
    state = service.state_json()
    assert state["scores"] == expected["scores"]
    assert state["hands"][0]["result"] == expected["hands"][0]["result"]
    assert {s.author for s in service.events()[1:]} == {"Mado"}


def test_auction_bid_by_bid_from_the_buttons(page: Any, server: Any, service: Any,
                                             client: Any) -> None:
    events = one_hand(9)
    bids = [e for e in events if isinstance(e, BidMade)]
    assert any(b.bid[0].isdigit() for b in bids)
    client.post("/api/games", json=start_body(events[0]))
    page.goto(server.url + "/control")
    page.fill("#pin", PIN)
    page.click("#login")
    wait_connected(page)
    for n, b in enumerate(bids, start=1):
        if b.bid in ("pass", "contre", "surcontre"):
            page.click(f"button.bid[data-bid='{b.bid}']")
        else:
            value, trump = (b.bid[:5], b.bid[5:]) if b.bid.startswith("capot") else (
                b.bid[:-1], b.bid[-1])
            page.select_option("#bid-value", value)
            page.click(f"button.bid-trump[data-trump='{trump}']")
        page.wait_for_function(f"() => window.beloteState.bids.length === {n}"
                               " || window.beloteState.phase !== 'bidding'")
    expected = replay(events[:1] + bids).to_json()
    expect()(page.locator("#contract")).to_contain_text(str(expected["contract"]["value"]))
    assert service.state_json()["contract"] == expected["contract"]
    assert service.state_json()["bids"] == expected["bids"]


def test_correction_from_the_picker_changes_trick_and_score(page: Any, server: Any,
                                                           service: Any, client: Any,
                                                           artifacts: Any) -> None:
    events = enter_hand_until(client, 5)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    before = service.state_json()
    first = before["tricks"][0]
    # Swap trick 1's richest card for an unplayed card worth a different number of points.
    j = max(range(4), key=lambda k: POINTS[first["cards"][k][0]])
    worth = POINTS[first["cards"][j][0]]
    seat = first["seats"][j]
    # (trick 1 keeps its winner, so that trick 2's cards stay where they are)
    new = next(c for c in ("7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "AS", "AH", "AD",
                           "AC") if c not in before["played"] and POINTS[c[0]] != worth
               and c[1] != before["contract"]["trump"]
               and replay([*events[:plays[4] + 1], CardCorrected(seat=seat, trick=1, new=c)]
                          ).tricks[0][3] == first["winner"])
    expected = replay([*events[:plays[4] + 1], CardCorrected(seat=seat, trick=1, new=new)]
                      ).to_json()
    assert expected["card_points"] != before["card_points"]

    page.goto(server.url + "/control")
    page.fill("#pin", PIN)
    page.fill("#author", "Arbitre")
    page.click("#login")
    wait_connected(page)
    page.click(f"#played-list button[data-trick='1'][data-seat='{seat}']")
    page.click(f"#picker button[data-card='{new}']")
    page.click("#correct-card")
    page.click("#correct-yes")  # after the page said what the correction changes
    for team in ("NS", "EW"):
        expect()(page.locator(f"#points-{team}")).to_have_text(
            str(expected["card_points"][team]))
    # The card of the trick in progress, corrected the same way, changes its picture.
    lead = before["current_trick"]["cards"][0]
    other = next(c for c in ("9S", "9H", "9D", "9C", "TS", "TH", "TD", "TC")
                 if c not in expected["played"])
    page.click(f"#played-list button[data-trick='2'][data-seat='{lead['seat']}']")
    page.click(f"#picker button[data-card='{other}']")
    page.click("#correct-card")
    page.click("#correct-yes")  # after the page said what the correction changes
    expect()(page.locator(f"#seat-{lead['seat']} .card")).to_have_attribute("data-card", other)
    page.screenshot(path=str(artifacts / "web-correction.png"), full_page=True)
    state = service.state_json()
    assert state["tricks"][0]["cards"][j] == new
    assert state["card_points"] == expected["card_points"]
    assert [s.author for s in service.events()[-2:]] == ["Arbitre", "Arbitre"]


def test_history_shows_the_score_worked_out(page: Any, server: Any, service: Any,
                                            client: Any, artifacts: Any) -> None:
    events = one_hand(4)
    client.post("/api/games", json=start_body(events[0]))
    for event in events[1:]:
        path, body = api_body(event)
        assert client.post(path, json=body, headers=AUTH).status_code == 200
    result = service.state_json()["hands"][0]["result"]
    page.goto(server.url + "/history")
    page.click(f"a[href='/history/{service.game_id}']")
    page.click("a[href$='/hands/1']")
    steps = page.locator("#steps li")
    expect()(steps.first).to_contain_text("Points des cartes")
    text = page.locator("#steps").inner_text()
    assert "Dix de der" in text and "Score de la donne" in text
    assert f"{result['score']['NS']}" in steps.last.inner_text()
    assert page.locator("#tricks tr").count() == 9  # a header and the eight tricks
    taker_team = team_of(result["contract"]["taker"])
    assert service.state_json()["teams"][taker_team] in text
    page.screenshot(path=str(artifacts / "web-history-hand.png"), full_page=True)


def test_change_without_pin_is_refused(page: Any, server: Any, service: Any,
                                       client: Any) -> None:
    client.post("/api/games", json={"pin": PIN, "teams": {"NS": "A", "EW": "B"}})
    before = len(service.events())
    page.goto(server.url + "/control")
    expect()(page.locator("#login-form")).to_be_visible()
    status = page.evaluate("""async () => (await fetch('/api/bid', {
        method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({bid: '80H'})})).status""")
    assert status == 403
    page.fill("#pin", "0000")
    page.click("#login")
    expect()(page.locator("#error")).to_contain_text("code faux")
    assert len(service.events()) == before


SEAT_FR = {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"}


def test_live_page_shows_target_dealer_contract_turn_and_tricks(page: Any, server: Any,
                                                                client: Any) -> None:
    events = one_hand(3)
    started = events[0]
    contract = replay(events).hands[0]["result"]["contract"]
    entries = [e for e in events[1:] if not isinstance(e, BidMade)]
    page.goto(server.url + "/")
    wait_connected(page)
    page.evaluate("window.__sameDocument = 'yes'")
    assert client.post("/api/games", json={**start_body(started), "target": 1500,
                                           "players": {"N": "Mado", "E": "Jo"}}
                       ).status_code == 201
    expect()(page.locator("#target")).to_have_text("1500")
    expect()(page.locator("#dealer")).to_have_text(SEAT_FR[started.dealer])
    expect()(page.locator("#seat-N .who")).to_contain_text("Mado")
    first = replay([started]).to_speak
    assert first is not None
    expect()(page.locator(f"#seat-{first}")).to_have_class(re.compile(r"\bturn\b"))
    expect()(page.locator("#to-play")).to_have_text(f"{SEAT_FR[first]} à parler")
    # Surcontré, taken back, then contré: the page follows each.
    for double, word in ((4, "surcontré"), (2, "contré")):
        r = client.post("/api/contract", json={**contract, "double": double}, headers=AUTH)
        assert r.status_code == 200, r.json
        shown = page.locator("#contract")
        expect()(shown).to_contain_text(f"{SEAT_FR[contract['taker']]} {contract['value']} ")
        expect()(shown).to_contain_text(word)
        if double == 4:
            assert client.post("/api/undo", headers=AUTH).status_code == 200
            expect()(shown).to_have_text("pas encore de contrat")
    assert "surcontré" not in page.locator("#contract").inner_text()
    # The first trick, card by card: whose turn moves, then tricks and points are counted.
    n = 0
    for event in entries:
        path, body = api_body(event)
        assert client.post(path, json=body, headers=AUTH).status_code == 200
        n += isinstance(event, CardPlayed)
        if n == 4:
            break
    state = replay([started, ContractSet(**{**contract, "double": 2}),
                    *entries[:entries.index(event) + 1]]).to_json()
    winner = state["tricks"][0]["winner"]
    expect()(page.locator("#trick-no")).to_have_text("2")
    expect()(page.locator(f"#tricks-{team_of(winner)}")).to_have_text("1")
    for team in ("NS", "EW"):
        expect()(page.locator(f"#points-{team}")).to_have_text(str(state["card_points"][team]))
    expect()(page.locator(f"#seat-{state['to_play']}")).to_have_class(re.compile(r"\bturn\b"))
    assert page.locator(".seat.turn").count() == 1
    assert page.evaluate("window.__sameDocument") == "yes"


def test_organiser_sees_played_cards_marked_confirms_and_undoes(page: Any, server: Any,
                                                                service: Any,
                                                                client: Any) -> None:
    events = enter_hand_until(client, 6)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    state = service.state_json()
    page.goto(server.url + "/control")
    page.fill("#pin", PIN)
    page.fill("#author", "Arbitre")
    page.click("#login")
    wait_connected(page)
    # The picker has the 32 cards; those played this hand are marked.
    assert page.locator("#picker button").count() == 32
    marked = set(page.eval_on_selector_all("#picker button.played",
                                           "bs => bs.map(b => b.dataset.card)"))
    assert marked == set(state["played"]) and len(marked) == 6
    # Confirm a card as read: stored with who vouched for it, nothing else changes.
    seat, card = state["tricks"][0]["seats"][1], state["tricks"][0]["cards"][1]
    n = len(service.events())
    page.click(f"#played-list button[data-trick='1'][data-seat='{seat}']")
    page.click("#confirm-card")
    # What was done is said where the organiser looks, in a sentence.
    expect()(page.locator("#message")).to_contain_text("✓")
    expect()(page.locator("#message")).to_contain_text("pli 1")
    stored = service.events()
    assert len(stored) == n + 1 and stored[-1].author == "Arbitre"
    assert isinstance(stored[-1].event, CardCorrected) and stored[-1].event.new == card
    assert service.state_json()["card_points"] == state["card_points"]
    # Play one more card from the picker; it is marked at once; undo takes it back.
    nxt = events[plays[6]]
    assert isinstance(nxt, CardPlayed) and nxt.card is not None
    page.click(f"#picker button[data-card='{nxt.card}']")
    page.click("#play-card")
    expect()(page.locator(f"#picker button[data-card='{nxt.card}']")).to_have_class(
        re.compile(r"\bplayed\b"))
    expect()(page.locator(f"#seat-{nxt.seat} .card")).to_have_attribute("data-card", nxt.card)
    # Undo names the entry first, and takes it back only once confirmed.
    expect()(page.locator("#undo-what")).to_contain_text(CARD_FR(nxt.card))
    page.click("#undo")
    expect()(page.locator("#undo-question")).to_contain_text(CARD_FR(nxt.card))
    page.click("#undo-yes")
    expect()(page.locator(f"#picker button[data-card='{nxt.card}']")).not_to_have_class(
        re.compile(r"\bplayed\b"))
    expect()(page.locator(f"#seat-{nxt.seat} .card")).to_have_class(re.compile(r"\bempty\b"))
    assert service.state_json()["played"] == state["played"]
    assert service.events()[-1].author == "Arbitre"


def test_live_page_resumes_after_the_connection_drops(page: Any, app: Any,
                                                      client: Any) -> None:
    from web import serve

    srv = serve(app, port=0)
    port = srv.port
    try:
        page.goto(srv.url + "/")
        wait_connected(page)
        page.evaluate("window.__sameDocument = 'yes'")
    finally:
        srv.close()
    # The server goes away: the page says so.
    expect()(page.locator("#conn")).to_have_class("dot-label error")
    # While it is away, a game starts; then the server is back on the same address.
    assert client.post("/api/games", json={"pin": PIN, "teams": {"NS": "Les Retours",
                                                                 "EW": "B"}}
                       ).status_code == 201
    srv = serve(app, port=port)
    try:
        expect()(page.locator("#conn")).to_have_class("dot-label ok", timeout=10000)
        expect()(page.locator("#team-NS")).to_have_text("Les Retours")
        # And it goes on following what is published after the reconnection.
        app.config["SERVICE"].set_status(camera="ok")
        expect()(page.locator("#camera-status .dot")).to_have_class("dot ok")
        assert page.evaluate("window.__sameDocument") == "yes"
    finally:
        srv.close()
