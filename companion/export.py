"""Export a stored game: its hands as hand records (docs/design.md's exchange
format, what ``belote-table score`` reads back) and a CSV of the scores, one
row per finished hand, for the club's spreadsheet.

Both are derived from the events by the rules engine's fold, so they always
agree with what the web page shows, corrections included.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.store import Store, StoreError
from scorer.game import replay

CSV_COLUMNS = ("hand_no", "dealer", "taker", "contract", "trump", "double", "made",
               "points_NS", "points_EW", "belote", "renonces", "score_NS", "score_EW",
               "total_NS", "total_EW")


def game_json(store: Store, game_id: int) -> dict[str, Any]:
    """The game's state (``GameState.to_json()``), replayed from the store."""
    return replay(e.event for e in store.events(game_id)).to_json()


def hand_records(state_json: dict[str, Any]) -> list[dict[str, Any]]:
    """The finished hands of a game as hand records, in order."""
    return [dict(hand["record"]) for hand in state_json.get("hands") or []]


def scored_hands(state_json: dict[str, Any]) -> Iterator[
        tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any],
              dict[str, Any], dict[str, int]]]:
    """Each finished hand with its result, contract, card points, score and the
    running totals after it (empty dicts where a hand has none), in order."""
    totals = {"NS": 0, "EW": 0}
    for hand in state_json.get("hands") or []:
        result = hand.get("result") or {}
        score = result.get("score") or {"NS": 0, "EW": 0}
        for team in totals:
            totals[team] += int(score.get(team, 0))
        yield (hand, result, result.get("contract") or {}, result.get("points") or {},
               score, dict(totals))


def scores_csv(state_json: dict[str, Any]) -> str:
    """One CSV row per finished hand: contract, outcome, what each team scored
    and the running totals."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for hand, result, contract, points, score, totals in scored_hands(state_json):
        made = result.get("made")
        writer.writerow([
            hand.get("hand_no"), hand.get("dealer"), contract.get("taker", ""),
            contract.get("value", ""), contract.get("trump", ""), contract.get("double", ""),
            "" if made is None else ("yes" if made else "no"),
            points.get("NS", ""), points.get("EW", ""), result.get("belote") or "",
            len(result.get("renonces") or []), score.get("NS", 0), score.get("EW", 0),
            totals["NS"], totals["EW"],
        ])
    return buf.getvalue()


def export_game(store: Store, game_id: int, folder: str | Path) -> list[Path]:
    """Write ``game-N-hands.jsonl`` (one hand record a line) and ``game-N-scores.csv``
    into ``folder``; return their paths."""
    state = game_json(store, game_id)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    records = folder / f"game-{game_id}-hands.jsonl"
    records.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                               for r in hand_records(state)), encoding="utf-8")
    scores = folder / f"game-{game_id}-scores.csv"
    scores.write_text(scores_csv(state), encoding="utf-8")
    return [records, scores]


# The club's spreadsheet (French Excel): one row per hand with the date, the
# table, the teams and players, the contract and the scores. Semicolons and a
# UTF-8 byte order mark, so that Excel in French opens it in columns with its
# accents; headers and values in French unless the caller gives other words.
FRENCH = {
    "headers": ("Date", "Heure", "Table", "Partie", "Donne", "Donneur", "Équipe NS",
                "Joueurs NS", "Équipe EO", "Joueurs EO", "Preneur", "Contrat", "Atout",
                "Contre", "Résultat", "Belote", "Renonces", "Points NS", "Points EO",
                "Score NS", "Score EO", "Total NS", "Total EO"),
    "seats": {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"},
    "teams": {"NS": "NS", "EW": "EO"},
    "trumps": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle", "NT": "sans atout",
               "AT": "tout atout"},
    "double": {1: "", 2: "contré", 4: "surcontré"},
    "made": {True: "fait", False: "chuté", None: "passe"},
    "capot": "capot",
    "and": " et ",
    "date": "%d/%m/%Y",
    "time": "%H:%M",
}


def club_csv(state_json: dict[str, Any], game: dict[str, Any],
             hand_times: dict[int, float] | None = None, table: str = "",
             words: dict[str, Any] | None = None) -> str:
    """The game's hands for the club's spreadsheet (see ``FRENCH``).

    ``game`` is the store's row (``id``, ``created``); ``hand_times`` the time
    each hand ended (its last event), by hand number; ``table`` the table's name.
    """
    from datetime import datetime

    w = {**FRENCH, **(words or {})}
    buf = io.StringIO()
    buf.write("\ufeff")
    writer = csv.writer(buf, delimiter=";", lineterminator="\r\n")
    writer.writerow(w["headers"])
    teams = state_json.get("teams") or {}
    players = state_json.get("players") or {}

    def team(t: str) -> str:
        name = teams.get(t) or t
        return str(w["teams"].get(t, t)) if name == t else str(name)

    def pair(a: str, b: str) -> str:
        return str(w["and"]).join(p for p in (players.get(a), players.get(b)) if p)

    for hand, result, contract, points, score, totals in scored_hands(state_json):
        ts = (hand_times or {}).get(int(hand["hand_no"])) or game.get("created") or 0
        moment = datetime.fromtimestamp(float(ts))
        value = contract.get("value", "")
        belote = result.get("belote")
        writer.writerow([
            moment.strftime(w["date"]), moment.strftime(w["time"]), table, game.get("id"),
            hand.get("hand_no"), w["seats"].get(hand.get("dealer"), hand.get("dealer")),
            team("NS"), pair("N", "S"), team("EW"), pair("E", "W"),
            w["seats"].get(contract.get("taker"), "") if contract else "",
            w["capot"] if value == "capot" else value,
            w["trumps"].get(contract.get("trump"), "") if contract else "",
            w["double"].get(int(contract.get("double") or 1), "") if contract else "",
            w["made"].get(result.get("made")), team(belote) if belote else "",
            len(result.get("renonces") or []), points.get("NS", ""), points.get("EW", ""),
            score.get("NS", 0), score.get("EW", 0), totals["NS"], totals["EW"],
        ])
    return buf.getvalue()


def game_document(store: Store, game_id: int, table: str = "") -> dict[str, Any]:
    """The whole game as one JSON document: who played where and when, the
    rules, every stored event (source, time, confidence, author), each hand's
    record and result, and the final scores. ``belote-table score`` reads the
    records; the events replay the game exactly."""
    row = next((g for g in store.games() if g["id"] == game_id), None)
    if row is None:
        raise StoreError(f"no game {game_id}")
    stored = store.events(game_id)
    state = replay(s.event for s in stored).to_json()
    return {
        "format": "belote-table game 1",
        "game": {"id": game_id, "table": table, "created": row["created"],
                 "ended": row["ended"], "author": row["author"]},
        "teams": state.get("teams"), "players": state.get("players"),
        "preset": state.get("preset"), "rules": state.get("rules"),
        "scores": state.get("scores"), "winner": state.get("winner"),
        "ended": state.get("ended"), "phase": state.get("phase"),
        "hands": [{"hand_no": h["hand_no"], "dealer": h["dealer"], "record": h["record"],
                   "result": h["result"]} for h in state.get("hands") or []],
        "events": [s.to_json() for s in stored],
    }
