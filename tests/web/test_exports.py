"""What a club takes home: the spreadsheet for French Excel (semicolons, a
UTF-8 byte order mark, French headers, teams, players, date and table), the
whole game as one JSON document that replays to the same scores, and the
printable score sheet with players, contre and belote columns and signatures."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from typing import Any

from scorer.events import CardPlayed, event_from_json
from scorer.game import replay
from scorer.simulate import simulate_game
from tests.web.conftest import PIN, api_body, start_body

AUTH = {"X-Table-PIN": PIN, "X-Author": "Mado"}


def _play_game(client: Any, service: Any, hands: int = 3) -> list[Any]:
    events = simulate_game(21, hands=hands)
    started = events[0]
    body = start_body(started)
    body["teams"] = {"NS": "Les Rois", "EW": "EW"}
    body["players"] = {"N": "Mado", "S": "Lucien", "E": "Josette", "W": "René"}
    assert client.post("/api/games", json=body).status_code == 201
    for e in events[1:]:
        if isinstance(e, CardPlayed):
            service.submit(e, source="camera", confidence=0.9)
        else:
            path, data = api_body(e)
            assert client.post(path, json=data, headers=AUTH).status_code == 200
    return events


def test_csv_opens_in_french_excel_with_teams_players_date_and_table(
        client: Any, service: Any, app: Any) -> None:
    app.config["TABLE_NAME"] = "Table 3"
    events = _play_game(client, service)
    state = replay(events).to_json()
    r = client.get(f"/api/games/{service.game_id}/scores.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    raw = r.get_data()
    assert raw.startswith(b"\xef\xbb\xbf")  # the BOM French Excel needs for UTF-8
    text = raw.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    head = rows[0]
    assert head[:6] == ["Date", "Heure", "Table", "Partie", "Donne", "Donneur"]
    assert "Équipe NS" in head and "Joueurs EO" in head and "Total EO" in head
    body = [dict(zip(head, row, strict=True)) for row in rows[1:]]
    assert len(body) == len(state["hands"])
    first = body[0]
    assert first["Table"] == "Table 3" and first["Équipe NS"] == "Les Rois"
    assert first["Équipe EO"] == "EO" and first["Joueurs NS"] == "Mado et Lucien"
    assert first["Donneur"] in ("Nord", "Est", "Sud", "Ouest")
    assert first["Date"].count("/") == 2 and ":" in first["Heure"]
    assert (int(body[-1]["Total NS"]), int(body[-1]["Total EO"])) == (
        state["scores"]["NS"], state["scores"]["EW"])
    results = {row["Résultat"] for row in body}
    assert results <= {"fait", "chuté", "passe"}
    # English on request.
    english = client.get(f"/api/games/{service.game_id}/scores.csv?lang=en")
    head_en = english.get_data().decode("utf-8-sig").splitlines()[0].split(";")
    assert head_en[:3] == ["Date", "Time", "Table"] and "Total EW" in head_en
    assert client.get("/api/games/99/scores.csv").status_code == 404


def test_whole_game_json_replays_to_the_same_scores(client: Any, service: Any) -> None:
    events = _play_game(client, service)
    r = client.get(f"/api/games/{service.game_id}/game.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    doc = json.loads(r.get_data())
    assert doc["teams"]["NS"] == "Les Rois" and doc["players"]["W"] == "René"
    replayed = replay(event_from_json(e["event"]) for e in doc["events"])
    assert replayed.scores == doc["scores"] == replay(events).scores
    assert len(doc["hands"]) == len(replay(events).hands)
    assert all(e["source"] == "camera" and e["confidence"] == 0.9
               for e in doc["events"] if e["event"]["type"] == "CardPlayed")
    assert doc["game"]["created"] > 0


def test_printable_sheet_has_players_table_contre_belote_and_signatures(
        client: Any, service: Any, app: Any) -> None:
    app.config["TABLE_NAME"] = "Table 3"
    _play_game(client, service)
    page = client.get(f"/history/{service.game_id}/sheet").get_data(as_text=True)
    for text in ("Table <b>Table 3</b>", "Mado", "Lucien", "Josette", "René", "<th>Contre</th>",
                 "<th>Belote</th>", "<th>Preneur</th>", 'id="signatures"', "Signature Les Rois",
                 "Arbitre"):
        assert text in page, text
    game = client.get(f"/history/{service.game_id}").get_data(as_text=True)
    assert 'id="export-csv"' in game and 'id="export-json"' in game


def test_the_evening_downloads_as_one_zip(client: Any, service: Any) -> None:
    from tests.web.conftest import PIN

    auth = {"X-Table-PIN": PIN}
    for _ in range(2):
        assert client.post("/api/games", json={"pin": PIN}, headers=auth).status_code == 201
        client.post("/api/contract", json={"taker": "N", "value": 80, "trump": "H"},
                    headers=auth)
        assert client.post("/api/tally", json={"points": {"NS": 100, "EW": 62}, "tricks": {
            "NS": 5, "EW": 3}}, headers=auth).status_code == 200
    r = client.get("/api/evening.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert "soiree-" in r.headers["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(r.get_data()))
    names = sorted(archive.namelist())
    folder = names[0].split("/")[0]
    assert names == sorted(f"{folder}/{n}" for n in (
        "belote-table.db", "partie-1.csv", "partie-1.json", "partie-2.csv", "partie-2.json"))
    assert archive.read(f"{folder}/partie-2.csv").startswith(b"\xef\xbb\xbf")
    page = client.get("/history").get_data(as_text=True)
    assert 'id="download-evening"' in page and "Télécharger la soirée" in page
