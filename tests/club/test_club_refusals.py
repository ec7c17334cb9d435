"""The club's pages say the club's refusals (players, teams, concours: the club's
file and the concours' rules) in French, in English when the visitor chose it,
through the real club app on a real SQLite file; nothing refused is stored."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from club import evening
from club.server import ClubServer
from club.store import ClubStore

PIN = "4321"


@pytest.fixture
def club(tmp_path: Path) -> Iterator[dict[str, Any]]:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1])
    app = create_app(server, {"ORGANISER_PIN": PIN, "WTF_CSRF_ENABLED": False})
    players = [store.add_player(n) for n in ("Léa Martin", "Marc Simon", "Zoé Durand",
                                                 "Dan Roux")]
    cid = evening.new_concours(store, "Soirée", 2, hands=3)
    store.add_team(cid, "Les As", players[0], players[1])
    yield {"app": app, "store": store, "cid": cid, "players": players}
    store.close()


def _flashes(answer: Any) -> list[str]:
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    return [html.unescape(m) for m in re.findall(r'<p class="flash">(.*?)</p>', page, re.S)]


def _organiser(club: dict[str, Any], lang: str | None) -> Any:
    client = club["app"].test_client()
    if lang:
        client.get(f"/lang/{lang}")
    assert client.post("/login", data={"pin": PIN}).status_code == 302
    return client


def _refusals(club: dict[str, Any], lang: str | None) -> list[str]:
    """Each of the organiser's refused changes, as the page then says it."""
    client = _organiser(club, lang)
    cid, (lea, _marc, zoe, dan) = club["cid"], club["players"]
    said = []
    for path, data in [
        (f"/concours/{cid}/teams", {"player1": zoe, "player2": zoe, "name": "Solo"}),
        (f"/concours/{cid}/teams", {"player1": lea, "player2": zoe, "name": "L'autre"}),
        (f"/concours/{cid}/teams", {"player1": zoe, "player2": dan, "name": "Les As"}),
        (f"/concours/{cid}/teams", {"player1": zoe, "player2": dan, "name": "x" * 70}),
        (f"/concours/{cid}/round", {}),
        ("/concours", {"name": "Mardi", "rounds": "0", "end": "hands", "amount": "4"}),
        ("/concours", {"name": "Mardi", "rounds": "2", "end": "hands", "amount": ""}),
        ("/concours", {"name": "Mardi", "rounds": "2", "end": "target", "amount": "-5"}),
        ("/concours", {"name": "Mardi", "rounds": "2", "end": "hands", "amount": "4",
                       "ranking": "best"}),
        ("/concours", {"name": "Mardi", "rounds": "2", "end": "hands", "amount": "4",
                       "draw": "hat"}),
        ("/concours", {"name": " ", "rounds": "2", "end": "hands", "amount": "4"}),
        ("/concours", {"name": "Mardi", "rounds": "deux", "end": "hands", "amount": "4"}),
    ]:
        said += _flashes(client.post(path, data=data, follow_redirects=True))
    return said


def test_the_club_s_refusals_are_french_by_default(club: dict[str, Any]) -> None:
    assert _refusals(club, None) == [
        "équipe « Solo » : deux joueurs différents, s'il vous plaît",
        "équipe « L'autre » : un des joueurs joue déjà dans « Les As »",
        "équipe « Les As » : ce concours a déjà une équipe de ce nom",
        "nom d'équipe « xxxxxxxxxxxxxxxxxxxx… » : 60 caractères au plus",
        "équipes inscrites : 1 ; un concours en demande 2 ou plus",
        "nombre de manches 0 : un nombre entier à partir de 1",
        "une manche se termine après un nombre de donnes, à un objectif ou après un temps : "
        "choisissez-en un",
        "objectif -5 : un nombre entier à partir de 1",
        "ordre de classement « best » inconnu",
        "les tables sont tirées au sort ou tournent, pas « hat »",
        "un concours doit avoir un nom",
        "Manches : un nombre entier, s'il vous plaît",
    ]
    store = club["store"]
    assert [t["name"] for t in store.teams(club["cid"])] == ["Les As"]
    assert [c["name"] for c in store.all_concours()] == ["Soirée"]
    assert store.concours(club["cid"])["current"] == 0


def test_the_club_s_refusals_are_english_on_request(club: dict[str, Any]) -> None:
    assert _refusals(club, "en") == [
        "team 'Solo': two different players, please",
        "team 'L'autre': a player already plays in 'Les As'",
        "team 'Les As': this concours already has a team of that name",
        "team name 'xxxxxxxxxxxxxxxxxxxx...': 60 characters at most",
        "teams entered: 1; a concours needs 2 or more",
        "number of rounds 0: a whole number from 1",
        "a round ends after a number of hands, at a target or after a time: choose one",
        "target -5: a whole number from 1",
        "unknown ranking order 'best'",
        "the tables are drawn or rotated, not 'hat'",
        "a concours needs a name",
        "Rounds: a whole number, please",
    ]


def test_a_started_concours_takes_no_team_in_french(club: dict[str, Any]) -> None:
    store, cid, (_lea, _marc, zoe, dan) = club["store"], club["cid"], club["players"]
    store.add_team(cid, "Les Rois", zoe, dan)
    evening.next_games(store, cid)
    client = _organiser(club, None)
    other = store.add_player("Ève Petit")
    said = _flashes(client.post(f"/concours/{cid}/teams",
                                data={"player1": other, "player2": store.add_player("Yann")},
                                follow_redirects=True))
    assert said == [f"concours {cid} : aucune équipe ne peut s'inscrire une fois qu'il a "
                    "commencé (ou ce concours n'existe pas)"]
    assert len(store.teams(cid)) == 2
