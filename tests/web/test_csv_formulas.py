"""No formula goes out in a CSV (issue 74): a team or player named
``=HYPERLINK(...)`` (or starting with ``+``, ``-``, ``@``) is written as text,
with the apostrophe spreadsheets read as "text"; numbers stay numbers, a
negative score included. Through the table's real app and SQLite store:
``scores.csv`` of the page and API, and the spreadsheets of the evening's zip.
"""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from common import spreadsheet
from scorer.events import GameStarted
from tests.web.conftest import PIN, api_body, one_hand, start_body

AUTH = {"X-Table-PIN": PIN}
LINK = '=HYPERLINK("http://x.io";"Gagné")'
TEAMS = {"NS": LINK, "EW": "+33 Les Voisins"}
PLAYERS = {"N": "@SOMME(A1:A9)", "E": "-1+2", "S": "Léa", "W": "=1+1"}


def _play_a_hand(client: Any) -> None:
    events = one_hand(4)
    assert isinstance(events[0], GameStarted)
    r = client.post("/api/games", json={**start_body(events[0]), "teams": TEAMS,
                                        "players": PLAYERS})
    assert r.status_code == 201, r.json
    for event in events[1:]:
        path, body = api_body(event)
        assert client.post(path, json=body, headers=AUTH).status_code == 200, event


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))


def _check(rows: list[list[str]]) -> None:
    header, first = rows[0], rows[1]
    cells = dict(zip(header, first, strict=True))
    assert cells["Équipe NS"] == "'" + LINK
    assert cells["Équipe EO"] == "'+33 Les Voisins"
    assert cells["Joueurs NS"] == "'@SOMME(A1:A9) et Léa"
    assert cells["Joueurs EO"] == "'-1+2 et =1+1"  # only a cell's start counts
    # No cell at all starts a formula; the numbers are numbers.
    assert not [c for row in rows for c in row if c[:1] in ("=", "+", "-", "@")]
    for name in ("Points NS", "Points EO", "Total NS", "Total EO"):
        assert cells[name].isdigit()


def test_scores_csv_writes_names_as_text(client: Any, service: Any) -> None:
    _play_a_hand(client)
    r = client.get(f"/api/games/{service.game_id}/scores.csv")
    assert r.status_code == 200
    _check(_rows(r.get_data(as_text=True)))


def test_the_evenings_zip_writes_names_as_text(client: Any) -> None:
    _play_a_hand(client)
    r = client.get("/api/evening.zip")
    assert r.status_code == 200
    with zipfile.ZipFile(io.BytesIO(r.data)) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".csv"))
        _check(_rows(archive.read(name).decode("utf-8")))


def test_a_negative_number_stays_a_number_and_negative_text_is_text() -> None:
    out = io.StringIO()
    spreadsheet.writer(out, delimiter=";").writerow([-20, -2.5, "-20", "=A1", "\t=A1", "A=1"])
    assert out.getvalue() == "-20;-2.5;'-20;'=A1;'\t=A1;A=1\r\n"
