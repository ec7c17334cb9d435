"""The club's ``export.csv`` writes no formula (issue 74): teams and players
named ``=HYPERLINK(...)``, ``+...``, ``-...`` or ``@...`` go out as text (with
the apostrophe spreadsheets read as "text"); ranks and points stay numbers.
Through the club's real pages on a real SQLite club store.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from club import evening
from club.server import ClubServer
from club.store import ClubStore

LINK = '=HYPERLINK("http://x.io";"Gagné")'


def test_export_csv_writes_names_as_text(tmp_path: Path) -> None:
    from club.app import create_app

    store = ClubStore(tmp_path / "club.db")
    server = ClubServer(store, "club")
    server.add_tables([1, 2])
    players = [store.add_player(n) for n in ("@SOMME(A1:A9)", "-1+2", "Zoé Hamon", "+33 6")]
    cid = evening.new_concours(store, "Soirée", 1, hands=2)
    store.add_team(cid, LINK, players[0], players[1])
    store.add_team(cid, "-Les Pies", players[2], players[3])
    evening.next_games(store, cid)
    client = create_app(server, {"ORGANISER_PIN": "24681357"}).test_client()
    r = client.get(f"/concours/{cid}/export.csv")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.data.decode("utf-8-sig")), delimiter=";"))
    ranking = {row[1]: row for row in rows[2:4]}
    assert set(ranking) == {"'" + LINK, "'-Les Pies"}
    assert ranking["'" + LINK][2:4] == ["'@SOMME(A1:A9)", "'-1+2"]
    assert ranking["'-Les Pies"][2:4] == ["Zoé Hamon", "'+33 6"]
    assert all(row[0].isdigit() for row in ranking.values())  # ranks stay numbers
    match = rows[rows.index(list(evening.CSV_HEADERS)) + 1]
    assert {match[2], match[4]} == {"'" + LINK, "'-Les Pies"}
    assert "'@SOMME(A1:A9) et -1+2" in match
    assert not [c for row in rows for c in row if c[:1] in ("=", "+", "-", "@")]
    store.close()
