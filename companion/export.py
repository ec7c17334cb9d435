"""Export a stored game: its hands as hand records (DESIGN.md's exchange
format, what ``belote-table score`` reads back) and a CSV of the scores, one
row per finished hand, for the club's spreadsheet.

Both are derived from the events by the rules engine's fold, so they always
agree with what the web page shows, corrections included.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from companion.store import Store
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


def scores_csv(state_json: dict[str, Any]) -> str:
    """One CSV row per finished hand: contract, outcome, what each team scored
    and the running totals."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    totals = {"NS": 0, "EW": 0}
    for hand in state_json.get("hands") or []:
        result = hand.get("result") or {}
        contract = result.get("contract") or {}
        score = result.get("score") or {"NS": 0, "EW": 0}
        points = result.get("points") or {}
        for team in totals:
            totals[team] += int(score.get(team, 0))
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
