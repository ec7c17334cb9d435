"""A correction says what it changes before it is made (issue 72):
``POST /api/corrections/preview`` takes the body of ``POST /api/correct`` and
answers the tricks whose winner would change, the renonces that would appear
or go and the scores, in data and in French words, storing nothing; ``GET
/api/undo?changes=1`` says the same of an undo. Real service, SQLite file and
Flask app."""

from __future__ import annotations

from typing import Any

from scorer.events import CardCorrected, CardPlayed, Event
from scorer.game import replay
from scorer.simulate import simulate_game
from tests.web.conftest import PIN, api_body

AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}
DECK = [r + s for s in "SHDC" for r in "789TJQKA"]


def _winners(state: Any) -> list[Any]:
    return [t[3] for t in state.tricks]


def _renonces(state: Any) -> list[tuple[Any, ...]]:
    return sorted((r["seat"], r["trick"], r["rule"], r["proof"]["card"]) for r in state.renonces)


def _case() -> tuple[list[Event], CardCorrected]:
    """A hand three tricks in, and a correction of trick 1 that changes its winner and
    the renonces the cards prove."""
    for seed in range(1, 80):
        events = simulate_game(seed, hands=1)
        plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
        cut = events[:plays[12]]
        state = replay(cut)
        if not state.contract or state.hand_no != 1:
            continue
        played = set(state.to_json()["played"])
        for seat in state.tricks[0][1]:
            for card in DECK:
                if card in played:
                    continue
                fix = CardCorrected(seat=seat, trick=1, new=card)
                after = replay([*cut, fix])
                if (_winners(after)[0] != _winners(state)[0]
                        and _renonces(after) != _renonces(state)):
                    return cut, fix
    raise AssertionError("no correction that changes a winner and a renonce")


def _enter(client: Any, events: list[Event]) -> None:
    started = events[0]
    body = {"teams": started.teams, "players": started.players, "rules": started.rules,
            "settings": started.settings, "dealer": started.dealer, "pin": PIN}
    assert client.post("/api/games", json=body, headers=AUTH).status_code == 201
    for event in events[1:]:
        path, data = api_body(event)
        r = client.post(path, json=data, headers=AUTH)
        assert r.status_code == 200, r.json


def test_the_preview_names_the_changed_winners_and_renonces_and_stores_nothing(
        client: Any, service: Any) -> None:
    events, fix = _case()
    _enter(client, events)
    before_state, before_events = service.state_json(), len(service.events())
    body = {"seat": fix.seat, "trick": 1, "card": fix.new}
    r = client.post("/api/corrections/preview", json=body, headers=AUTH)
    assert r.status_code == 200, r.json
    found = r.json
    # Nothing stored, nothing changed.
    assert len(service.events()) == before_events and service.state_json() == before_state
    # The changes, as the scorer folds them with and without the correction.
    old, new = replay(events), replay([*events, fix])
    want = [(k + 1, a, b) for k, (a, b) in enumerate(zip(_winners(old), _winners(new),
                                                         strict=True)) if a != b]
    assert [(w["trick"], w["before"], w["after"]) for w in found["winners"]] == want
    assert want and want[0][0] == 1
    appear = sorted((r["seat"], r["trick"], r["rule"], r["proof"]["card"])
                    for r in found["renonces"]["appear"])
    go = sorted((r["seat"], r["trick"], r["rule"], r["proof"]["card"])
                for r in found["renonces"]["go"])
    assert appear == sorted(set(_renonces(new)) - set(_renonces(old)))
    assert go == sorted(set(_renonces(old)) - set(_renonces(new)))
    assert appear or go
    assert found["points"] == {"before": old.card_points, "after": new.card_points}
    assert found["changes"] is True
    # Said in French: the trick and the winners by name.
    seats = {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"}
    trick, was, now = want[0]
    assert (f"Pli {trick} : gagné par {seats[now] if now else 'personne de connu'} "
            f"au lieu de {seats[was] if was else 'personne de connu'}") in found["lines"]
    assert any(line.startswith(("Renonce qui apparaîtrait", "Renonce qui disparaîtrait"))
               for line in found["lines"])
    # In English on request.
    english = client.post("/api/corrections/preview?lang=en", json=body, headers=AUTH).json
    assert any(line.startswith(f"Trick {trick}: won by") for line in english["lines"])
    # Confirmed: the state is what the preview said.
    assert client.post("/api/correct", json=body, headers=AUTH).status_code == 200
    got = service.state_json()
    assert [t["winner"] for t in got["tricks"]] == _winners(new)
    # And the undo says it gives the winner back.
    undo = client.get("/api/undo?changes=1", headers=AUTH).json
    assert [(w["trick"], w["before"], w["after"]) for w in undo["changes"]["winners"]] == [
        (t, b, a) for t, a, b in want]


def test_a_bad_or_refused_correction_preview_changes_nothing(client: Any, service: Any) -> None:
    events, fix = _case()
    _enter(client, events)
    n = len(service.events())
    r = client.post("/api/corrections/preview", json={"seat": "N", "trick": 1, "card": "5H"},
                    headers=AUTH)
    assert r.status_code == 400 and r.json["field"] == "card"
    played = service.state_json()["played"][5]
    r = client.post("/api/corrections/preview", json={"seat": fix.seat, "trick": 1,
                                                      "card": played}, headers=AUTH)
    assert r.status_code == 409 and r.json["error"]
    r = client.post("/api/corrections/preview", json={"seat": fix.seat, "trick": 1,
                                                      "card": fix.new})
    assert r.status_code == 403
    assert len(service.events()) == n
