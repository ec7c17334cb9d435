"""Export a stored game: its hands as hand records (docs/design.md's exchange
format, what ``belote-table score`` reads back) and a CSV of the scores, one
row per finished hand, for the club's spreadsheet.

Both are derived from the events by the rules engine's fold, so they always
agree with what the web page shows, corrections included.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from common import spreadsheet
from companion.store import Store, StoreError
from scorer.game import replay
from scorer.view import Contract, GameView, HandView

CSV_COLUMNS = ("hand_no", "dealer", "taker", "contract", "trump", "double", "made",
               "points_NS", "points_EW", "belote", "renonces", "score_NS", "score_EW",
               "total_NS", "total_EW")


def game_json(store: Store, game_id: int) -> dict[str, Any]:
    """The game's state (``GameState.to_json()``), replayed from the store."""
    return replay(e.event for e in store.events(game_id)).to_json()


def game_view(store: Store, game_id: int) -> GameView:
    """The game's view (``GameState.view()``), replayed from the store."""
    return replay(e.event for e in store.events(game_id)).view()


def hand_records(view: GameView) -> list[dict[str, Any]]:
    """The finished hands of a game as hand records, in order."""
    return [dict(hand.record) for hand in view.hands]


def scored_hands(view: GameView) -> Iterator[tuple[HandView, Mapping[str, int]]]:
    """Each finished hand with the running totals after it, in order."""
    totals = {"NS": 0, "EW": 0}
    for hand in view.hands:
        for team in totals:
            totals[team] += hand.result.score[team]
        yield hand, dict(totals)


def _contract(contract: Contract | None) -> tuple[Any, Any, Any, Any]:
    """Taker, value, trump and double as the CSV writes them (blank without a contract)."""
    if contract is None:
        return "", "", "", ""
    return contract.taker, contract.value, contract.trump, contract.double


def scores_csv(view: GameView) -> str:
    """One CSV row per finished hand: contract, outcome, what each team scored
    and the running totals."""
    buf = io.StringIO()
    writer = spreadsheet.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for hand, totals in scored_hands(view):
        result = hand.result
        made = result.made
        writer.writerow([
            hand.hand_no, hand.dealer, *_contract(result.contract),
            "" if made is None else ("yes" if made else "no"),
            result.points["NS"], result.points["EW"], result.belote or "",
            len(result.renonces), result.score["NS"], result.score["EW"],
            totals["NS"], totals["EW"],
        ])
    return buf.getvalue()


def export_game(store: Store, game_id: int, folder: str | Path) -> list[Path]:
    """Write ``game-N-hands.jsonl`` (one hand record a line) and ``game-N-scores.csv``
    into ``folder``; return their paths."""
    state = game_view(store, game_id)
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


def club_csv(view: GameView, game: dict[str, Any],
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
    writer = spreadsheet.writer(buf, delimiter=";", lineterminator="\r\n")
    writer.writerow(w["headers"])
    teams, players = view.teams, view.players

    def team(t: str) -> str:
        name = teams.get(t) or t
        return str(w["teams"].get(t, t)) if name == t else str(name)

    def pair(a: str, b: str) -> str:
        return str(w["and"]).join(p for p in (players.get(a), players.get(b)) if p)

    for hand, totals in scored_hands(view):
        result, contract = hand.result, hand.result.contract
        ts = (hand_times or {}).get(hand.hand_no) or game.get("created") or 0
        moment = datetime.fromtimestamp(float(ts))
        value = "" if contract is None else contract.value
        belote = result.belote
        writer.writerow([
            moment.strftime(w["date"]), moment.strftime(w["time"]), table, game.get("id"),
            hand.hand_no, w["seats"].get(hand.dealer, hand.dealer),
            team("NS"), pair("N", "S"), team("EW"), pair("E", "W"),
            w["seats"].get(contract.taker, "") if contract else "",
            w["capot"] if value == "capot" else value,
            w["trumps"].get(contract.trump, "") if contract else "",
            w["double"].get(contract.double, "") if contract else "",
            w["made"].get(result.made), team(belote) if belote else "",
            len(result.renonces), result.points["NS"], result.points["EW"],
            result.score["NS"], result.score["EW"], totals["NS"], totals["EW"],
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
    view = replay(s.event for s in stored).view()
    return {
        "format": "belote-table game 1",
        "game": {"id": game_id, "table": table, "created": row["created"],
                 "ended": row["ended"], "author": row["author"]},
        "teams": dict(view.teams), "players": dict(view.players),
        "preset": view.preset, "rules": view.rules.to_json(),
        "scores": dict(view.scores), "winner": view.winner,
        "ended": view.ended, "phase": view.phase,
        "hands": [h.to_json() for h in view.hands],
        "events": [s.to_json() for s in stored],
    }
