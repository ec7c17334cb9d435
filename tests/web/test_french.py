"""French everywhere: every page, status word, entry, rule set and refusal a
French visitor sees is French. A game with a camera card, a correction, an
undo, a tally, a renonce and the camera and display states is rendered page by
page, and every word of it is looked up in the pages' own English vocabulary
(tests/web/french.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from scorer.events import CardPlayed, GameStarted
from tests.web.conftest import PIN, api_body, one_hand
from tests.web.french import english_vocabulary, english_words, visible_text

AUTH = {"X-Table-PIN": PIN}
# The people and teams of the game below: names, not English.
NAMES = ("Mado", "Lucien", "Josette", "René", "Arbitre")
# Each page's text is left here for a person to read.
ARTIFACTS: Path | None = Path(__file__).resolve().parents[1] / "artifacts"


def _token(client: Any, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def test_the_detector_finds_english_and_lets_french_through() -> None:
    assert {"trick", "wins", "searching"} <= english_vocabulary()
    assert english_words("Les Rois gagne la partie, Sud joue le 10♠") == []
    assert english_words("caméra : virtual table") == ["virtual"]
    assert english_words("CardPlayed seat=S card=TS") == ["seat", "card"]
    assert english_words("pénalité hand-lost") == ["hand", "lost"]


@pytest.fixture
def evening(client: Any, service: Any) -> dict[str, Any]:
    """A game with one hand played (cards from the camera, with confidence, one
    corrected), a second hand scored by a tally, an undo, a renonce and the
    camera and display states; the organiser logged in on ``client``."""
    events = one_hand(3)
    started: GameStarted = events[0]
    form = {"team_NS": "Les Rois", "team_EW": "", "player_N": "Mado", "player_S": "Lucien",
            "player_E": "Josette", "player_W": "René", "rules": "club", "pin": PIN,
            "author": "Arbitre", "set_must_undertrump": "true", "dealer": started.dealer,
            "csrf_token": _token(client, "/setup")}
    assert client.post("/setup", data=form).status_code == 302
    for event in events[1:]:
        if isinstance(event, CardPlayed):
            service.submit(event, source="camera", confidence=0.62)
        else:
            path, body = api_body(event)
            assert client.post(path, json=body, headers=AUTH).status_code == 200
    first = service.state_json()["hands"][0]["result"]["tricks"][0]
    r = client.post("/api/correct", json={"seat": first["seats"][0], "trick": 1, "hand": 1,
                                          "card": first["cards"][0]}, headers=AUTH)
    assert r.status_code == 200, r.json
    seat = service.state_json()["to_speak"]
    assert client.post("/api/bid", json={"seat": seat, "bid": "pass"},
                       headers=AUTH).status_code == 200
    assert client.post("/api/undo", json={}, headers=AUTH).status_code == 200
    assert client.post("/api/contract", json={"taker": "N", "value": 80, "trump": "H",
                                              "double": 2}, headers=AUTH).status_code == 200
    assert client.post("/api/tally", json={"points": {"NS": 100, "EW": 62}, "tricks": {
        "NS": 5, "EW": 3}, "belote": "EW"}, headers=AUTH).status_code == 200, "tally"
    service.set_status(camera="virtual table", display="searching")
    return {"game_id": service.game_id}


def _check(page: str, where: str) -> None:
    if ARTIFACTS is not None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"\W+", "-", where).strip("-") or "live"
        (ARTIFACTS / f"french-{name}.txt").write_text(visible_text(page), encoding="utf-8")
    found = english_words(visible_text(page), NAMES)
    assert not found, f"{where}: English words {found}"


def test_every_page_of_an_evening_is_french(client: Any, service: Any,
                                            evening: dict[str, Any]) -> None:
    game_id = evening["game_id"]
    for path in ("/", "/control", "/setup", "/history", f"/history/{game_id}",
                 f"/history/{game_id}/hands/1", f"/history/{game_id}/hands/2",
                 f"/history/{game_id}/sheet", "/history/999", "/nowhere"):
        page = client.get(path).get_data(as_text=True)
        _check(page, path)
        # The same page in English is full of English: the detector sees it.
        english = client.get(path + "?lang=en").get_data(as_text=True)
        assert len(english_words(visible_text(english), NAMES)) > 3, path
    # The words the pages draw with, and the hand's entries said in sentences.
    hand = client.get(f"/history/{game_id}/hands/1").get_data(as_text=True)
    assert "caméra 0,62" in hand
    assert "EO" in client.get(f"/history/{game_id}").get_data(as_text=True)
    assert "Contrée du club" in client.get(f"/history/{game_id}").get_data(as_text=True)


def test_every_refusal_is_french(client: Any, service: Any, evening: dict[str, Any]) -> None:
    bad = [
        ("/api/bid", {"bid": "80S", "seat": "X"}),
        ("/api/bid", {"bid": "zz"}),
        ("/api/bid", {"bid": "80S", "seat": "N"}),
        ("/api/bid", {}),
        ("/api/contract", {"taker": "N", "value": 85, "trump": "H"}),
        ("/api/contract", {"taker": "N", "value": 80, "trump": "Z"}),
        ("/api/contract", {"taker": "N", "value": 80, "trump": "H", "double": 3}),
        ("/api/play", {"seat": "W", "card": "5H"}),
        ("/api/play", {"card": "7H"}),
        ("/api/correct", {"seat": "W", "trick": 9, "card": "7H"}),
        ("/api/correct", {"seat": "W", "trick": 1, "card": "7H"}),
        ("/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 2}}),
        ("/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 3},
                        "belote": "XY"}),
        ("/api/belote", {"seat": "N"}),
        ("/api/turned", {"card": "9H"}),
        ("/api/games", {"pin": "12"}),
        ("/api/games", {"pin": "123456", "rules": "nope"}),
        ("/api/games", {"pin": "123456", "settings": {"target": "x"}}),
        ("/api/games", {"pin": "123456", "settings": {"targget": 1}}),
        ("/api/games", {"pin": "123456", "teams": {"NS": "x" * 41}}),
        ("/api/games/999", None),
        ("/api/games/1/hands/99", None),
    ]
    seen = 0
    for path, body in bad:
        r = (client.get(path) if body is None else client.post(path, json=body, headers=AUTH))
        assert r.status_code >= 400, (path, body, r.json)
        found = english_words(r.json["error"], NAMES)
        assert not found, f"{path} {body}: {r.json['error']!r} has English words {found}"
        seen += 1
    assert seen == len(bad)
    # Without the PIN, with a wrong PIN (a visitor who is not logged in).
    visitor = client.application.test_client()
    for headers in ({}, {"X-Table-PIN": "0000"}):
        r = visitor.post("/api/bid", json={"bid": "pass"}, headers=headers)
        assert r.status_code == 403 and not english_words(r.json["error"])


def test_setup_refusal_and_form_are_french(client: Any, service: Any) -> None:
    r = client.post("/setup", data={"pin": "12", "csrf_token": _token(client, "/setup")})
    assert r.status_code == 400
    page = r.get_data(as_text=True)
    assert "le code de la table doit avoir de 6 à 8 chiffres" in page
    _check(page, "/setup refused")
    r = client.post("/setup", data={"pin": "1234", "target": "abc",
                                    "csrf_token": _token(client, "/setup")})
    assert r.status_code == 400
    _check(r.get_data(as_text=True), "/setup refused setting")


def test_english_stays_on_request(client: Any, evening: dict[str, Any]) -> None:
    page = client.get(f"/history/{evening['game_id']}/hands/1?lang=en").get_data(as_text=True)
    assert "camera 0.62" in page and "plays" in page
    r = client.post("/api/bid?lang=en", json={"bid": "80S", "seat": "X"}, headers=AUTH)
    assert r.json["error"].startswith("Seat: X is not a seat")
