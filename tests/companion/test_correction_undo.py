"""Issue 72, the organiser's case, end to end: the virtual table films a hand
through the real ONNX card reader, the play tracker and the table service on a
real SQLite file, while the organiser works through the real HTTP API of a
real waitress server. A card of trick 1 is corrected to another card that
changes who won the trick; the camera goes on (its next cards are put down out
of the game's idea of the turn); the correction is undone ("Oui, l'annuler").

Then the game is exactly as the camera saw it, as it was before the
correction and went on: the same cards in the same tricks, no false renonce,
the same score; no camera card was lost, not even the card the correction
had named, which the camera saw played later."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.pipeline import TablePipeline, compare
from companion.service import TableService
from companion.store import Store
from scorer.events import CardCorrected, CardPlayed, EntryUndone
from scorer.game import replay
from vision.lab.virtual_table import VirtualTable

pytestmark = pytest.mark.slow

PIN = "135792"
HEADERS = {"X-Table-PIN": PIN, "X-Author": "Mado", "Content-Type": "application/json"}
SEED = 6
DECK = [r + s for s in "SHDC" for r in "789TJQKA"]
# What must be the same before the correction and after its undo.
SAME = ("tricks", "current_trick", "renonces", "scores", "card_points", "tricks_won",
        "played", "pending", "unplaced", "to_play", "hand_no", "hands")


def _call(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=HEADERS)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture
def table(tmp_path: Path) -> Iterator[dict[str, Any]]:
    from vision.reader import CardReader
    from vision.tracker import PlayTracker
    from web import create_app, serve

    film = VirtualTable(seed=SEED, hands=1)
    store = Store(tmp_path / "table.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(tmp_path / "pins.json")})
    server = serve(app, port=0)
    pipeline = TablePipeline(service, CardReader(), PlayTracker(film.calibration))
    yield {"film": film, "store": store, "service": service, "url": server.url,
           "pipeline": pipeline}
    server.close()
    store.close()


def _wrong_correction(service: TableService, truth: list[Any]) -> CardCorrected:
    """A correction of a trick-1 card that changes the trick's winner: to a card
    the camera will see played soon, when one does."""
    events = [s.event for s in service.events()]
    state = replay(events)
    winner = state.tricks[0][3]
    played = set(state.to_json()["played"])
    soon = [e.card for e in truth if isinstance(e, CardPlayed)][4:12]
    candidates = sorted((c for c in DECK if c not in played),
                        key=lambda c: (c not in soon, DECK.index(c)))
    for card in candidates:
        for seat in state.tricks[0][1]:
            fix = CardCorrected(seat=seat, trick=1, new=card)
            if replay([*events, fix]).tricks[0][3] != winner:
                return fix
    raise AssertionError("no correction changes trick 1's winner")


def test_a_correction_then_its_undo_gives_back_the_game_and_loses_no_camera_card(
        table: dict[str, Any]) -> None:
    film, service, pipeline, url = table["film"], table["service"], table["pipeline"], table["url"]
    started = film.events[0]
    _call(url + "/api/games", "POST", {"rules": started.rules, "settings": started.settings,
                                       "dealer": started.dealer, "pin": PIN})
    spoken = list(film.spoken)
    frames = iter(film)

    def film_until(done: Any) -> None:
        for ts, frame in frames:
            pipeline.speak(spoken, author="test")
            pipeline.feed(ts, frame)
            if done():
                return
        raise AssertionError("the film ended first")

    # Trick 1 is played and read by the camera.
    film_until(lambda: len(service.state_json()["tricks"]) == 1)
    before = service.state_json()
    assert before["renonces"] == [] and before["pending"] == []
    fix = _wrong_correction(service, film.events)
    body = {"seat": fix.seat, "trick": 1, "card": fix.new}
    # The page says what the correction changes before it is made; nothing is stored.
    n = len(service.events())
    preview = _call(url + "/api/corrections/preview", "POST", body)
    assert [w["trick"] for w in preview["winners"]][:1] == [1]
    assert preview["winners"][0]["before"] == before["tricks"][0]["winner"]
    assert len(service.events()) == n
    corrected = _call(url + "/api/correct", "POST", body)
    assert corrected["state"]["tricks"][0]["winner"] != before["tricks"][0]["winner"]

    # The camera goes on: two more tricks put down, in an order the game now finds
    # out of turn. Each card is stored all the same (none is refused or dropped).
    waited = []

    def two_tricks_more() -> bool:
        waited.append(len(service.state_json()["pending"]))
        return pipeline.camera_plays >= 12

    film_until(two_tricks_more)
    assert max(waited) >= 1, "the camera's cards never came out of the game's turn"
    assert any(a["kind"] == "out_of_turn" for a in pipeline.log.alerts)
    assert pipeline.log.refused == []

    # "Oui, l'annuler": the page names the correction and says what the undo gives back.
    asked = _call(url + "/api/undo?changes=1")
    assert asked["event"]["type"] == "CardCorrected"
    assert any(w["trick"] == 1 and w["after"] == before["tricks"][0]["winner"]
               for w in asked["changes"]["winners"])
    undone = _call(url + "/api/undo", "POST", {"index": asked["index"]})["state"]

    # Exactly the game before the correction, gone on with what the camera saw since.
    stored = service.events()
    kept = [s.event for s in stored if not isinstance(s.event, CardCorrected | EntryUndone)]
    camera_alone = replay(kept).to_json()
    for key in SAME[:-1]:
        if key in camera_alone:
            assert undone[key] == camera_alone[key], key
    assert undone["pending"] == [] and undone["unplaced"] == []
    assert undone["tricks"][:1] == before["tricks"]
    assert undone["renonces"] == [] and undone["scores"] == before["scores"]
    truth = [(e.seat, e.card) for e in film.events if isinstance(e, CardPlayed)]
    now = [(t["seats"][k], t["cards"][k]) for t in undone["tricks"] for k in range(4)]
    now += [(c["seat"], c["card"]) for c in undone["current_trick"]["cards"]]
    assert now == truth[:len(now)] and len(now) >= 12
    # The card the correction had named was put down meanwhile: the camera kept it.
    assert fix.new in [c for _, c in truth[4:len(now)]]

    # The camera plays the hand out: every card and the score as the simulator played them.
    for ts, frame in frames:
        pipeline.speak(spoken, author="test")
        pipeline.feed(ts, frame)
    stored = service.events()
    kept = [s.event for s in stored if not isinstance(s.event, CardCorrected | EntryUndone)]
    assert compare(film.events, kept) == []
    final = service.state_json()
    assert {k: final[k] for k in SAME} == {k: replay(film.events).to_json().get(k, final[k])
                                           for k in SAME}
    # No camera card lost: all 32, each seat's in the order it played them, the card
    # the correction had named among them.
    cards = [(s.event.seat, s.event.card) for s in stored
             if isinstance(s.event, CardPlayed) and s.source == "camera"]
    assert sorted(cards) == sorted(truth) and len(cards) == 32
    for seat in "NESW":
        assert [c for s, c in cards if s == seat] == [c for s, c in truth if s == seat]
    assert (fix.new in [c for _, c in cards])
    # Each camera card keeps what the camera saw of it, frame by frame.
    reads = service.camera_cards(1)
    assert len(reads) == 32 and all(r["trick"] is not None for r in reads)
    assert sum(1 for r in reads if r["reads"] and r["reads"][0]["card"] == r["card"]) >= 30
