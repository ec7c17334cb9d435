"""The history as the pages and the API show it: games, hands, corrections.

Everything here is read from the stored events through the rules engine's
fold (``companion.export``), so the history always agrees with the live page,
corrections included. A hand's score is shown step by step by the scorer's
own breakdown (``scorer.scoring.breakdown``): this module never scores
anything itself.
"""

from __future__ import annotations

from typing import Any

from companion import export
from scorer import scoring
from scorer.events import BidMade, CardCorrected, CardPlayed, EntryUndone
from scorer.view import GameView
from web.i18n import card_label, entry_sentence


def _sentence(stored: Any) -> str:
    """A stored entry as the pages say it ("South plays the 10♠, camera 0.98")."""
    return entry_sentence(stored.event, stored.source, stored.confidence)


def _game_view(service: Any, game_id: int) -> GameView:
    if game_id == service.game_id:
        view: GameView = service.view()
        return view
    return export.game_view(service.store, game_id)


def list_games(service: Any) -> list[dict[str, Any]]:
    """Every stored game with its teams, scores and winner, newest first."""
    out = []
    for row in reversed(service.store.games()):
        view = _game_view(service, row["id"])
        out.append({**row, "teams": dict(view.teams), "scores": dict(view.scores),
                    "winner": view.winner, "target": view.target,
                    "finished_hands": len(view.hands),
                    "current": row["id"] == service.game_id})
    return out


def game(service: Any, game_id: int) -> dict[str, Any]:
    """One game: its settings and every finished hand's score with running totals."""
    row = next((g for g in service.store.games() if g["id"] == game_id), None)
    if row is None:
        raise LookupError(f"no game {game_id}")
    view = _game_view(service, game_id)
    hands = []
    for h, totals in export.scored_hands(view):
        result = h.result
        hands.append({"hand_no": h.hand_no, "dealer": h.dealer,
                      "contract": result.contract.to_json() if result.contract else None,
                      "made": result.made, "points": dict(result.points),
                      "belote": result.belote, "renonces": len(result.renonces),
                      "score": dict(result.score), "totals": dict(totals)})
    return {**row, "teams": dict(view.teams), "players": dict(view.players),
            "preset": view.preset, "rules": view.rules.to_json(),
            "target": view.target, "scores": dict(view.scores),
            "winner": view.winner, "phase": view.phase,
            "current": game_id == service.game_id, "hands": hands}


def steps(result: dict[str, Any], rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand's score in the order a scorer writes it on the sheet: the scorer's
    own breakdown (``scorer.scoring.breakdown``) of the hand's result."""
    return scoring.breakdown(result, rules)


def award(result: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | None:
    """What each team's score is made of, the scorer's own parts
    (``scorer.scoring.awarded_parts``); None when all passed or a renonce
    cancelled the hand."""
    return scoring.awarded_parts(result)


def hand(service: Any, game_id: int, hand_no: int) -> dict[str, Any]:
    """One finished hand in full: auction, tricks, score steps, renonces, the
    hand's entries and its corrections (who, when, from where)."""
    view = _game_view(service, game_id)
    found = next((h for h in view.hands if h.hand_no == hand_no), None)
    if found is None:
        raise LookupError(f"game {game_id} has no finished hand {hand_no}")
    stored = service.store.events(game_id)
    plays = evidence(service, game_id, hand_no)
    entries = [s for s in stored if s.hand_no == hand_no
               or (isinstance(s.event, CardCorrected) and s.event.hand == hand_no)]
    corrections = []
    for s in stored:
        e = s.event
        if isinstance(e, CardCorrected) and (e.hand == hand_no or
                                             (e.hand is None and s.hand_no == hand_no)):
            # What the camera had read there, and its picture: "lu X, corrigé en Y".
            read = next((p for p in plays if p["trick"] == e.trick and p["seat"] == e.seat),
                        None)
            corrections.append({"seq": s.seq, "kind": "correction", "seat": e.seat,
                                "trick": e.trick, "card": e.new, "author": s.author,
                                "source": s.source, "ts": s.ts,
                                "read": read["read"] if read and read["camera"] else None,
                                "camera": bool(read and read["camera"]),
                                "confidence": read["confidence"] if read else None,
                                "crop": read["crop"] if read else None})
        elif isinstance(e, EntryUndone) and s.hand_no == hand_no:
            corrections.append({"seq": s.seq, "kind": "undo", "index": e.index,
                                "undone": _sentence(stored[e.index])
                                if 0 <= e.index < len(stored) else None,
                                "author": s.author, "source": s.source, "ts": s.ts})
    # The unread cards the deal and the camera's reads filled (companion.fill): shown
    # as filled, and the hand's score is the one with them in place.
    filled, hands = _filled(service, game_id, stored)
    filled_at = {f"{f['trick']}{f['seat']}": dict(f, labels=", ".join(
        card_label(c["card"]) for c in f["candidates"])) for f in filled if f["hand_no"] == hand_no}
    undone = {s.event.index for s in stored if isinstance(s.event, EntryUndone)}
    # Who said what, from the stored bids (after a contre the order skips a
    # seat, FFB 4.2.3, so the seats cannot be guessed from the list alone).
    spoken = [{"seat": s.event.seat, "bid": s.event.bid} for s in stored
              if s.hand_no == hand_no and isinstance(s.event, BidMade) and s.seq not in undone]
    result = found.result.to_json()
    if filled_at and hand_no in hands:
        result = hands[hand_no]
    return {
        "game_id": game_id, "hand_no": hand_no, "dealer": found.dealer,
        "teams": dict(view.teams), "players": dict(view.players),
        "bids": spoken,
        "record": dict(found.record), "result": result,
        "tricks": result["tricks"],
        "steps": steps(result, view.rules.to_json()),
        "renonces": result["renonces"],
        "corrections": corrections,
        "evidence": plays,
        "evidence_at": {f"{p['trick']}{p['seat']}": p for p in plays},
        "filled_at": filled_at,
        "unsure": UNSURE,
        "entries": [{"seq": s.seq, "entry": _sentence(s), "source": s.source,
                     "author": s.author, "ts": s.ts, "confidence": s.confidence}
                    for s in entries],
    }


def _filled(service: Any, game_id: int, stored: list[Any]
            ) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """The game's filled cards and, by hand number, the results with them in place:
    the service's for the open game, worked out from the store for another."""
    from companion.fill import game_fill

    if game_id == service.game_id:
        state = service.state_json()
        return list(state.get("filled") or []), {h["hand_no"]: h["result"]
                                                 for h in state.get("hands") or []}
    fill, folded = game_fill(stored, service.store.evidence(game_id))
    if folded is None:
        return [], {}
    return fill.to_json()["filled"], {h["hand_no"]: h["result"] for h in folded.hands}


def scores_csv(service: Any, game_id: int) -> str:
    if not any(g["id"] == game_id for g in service.store.games()):
        raise LookupError(f"no game {game_id}")
    return export.scores_csv(_game_view(service, game_id))


def table_name(app: Any) -> str:
    """The table's name in exports: ``TABLE_NAME`` in the app's config, else the
    computer's name (each Pi of a club is named after its table)."""
    import socket

    return str(app.config.get("TABLE_NAME") or socket.gethostname())


def hand_times(service: Any, game_id: int) -> dict[int, float]:
    """When each hand ended: the time of its last stored event."""
    out: dict[int, float] = {}
    for s in service.store.events(game_id):
        if s.hand_no is not None:
            out[s.hand_no] = max(out.get(s.hand_no, 0.0), s.ts)
    return out


def club_csv(service: Any, game_id: int, table: str, words: dict[str, Any]) -> str:
    """The game for the club's spreadsheet (French Excel), one row per hand."""
    row = next((g for g in service.store.games() if g["id"] == game_id), None)
    if row is None:
        raise LookupError(f"no game {game_id}")
    return export.club_csv(_game_view(service, game_id), row, hand_times(service, game_id),
                           table, words)


# A camera read below this confidence is shown as unsure (it stands out on the
# organiser's page and in the history, to be looked at).
UNSURE = 0.9


def evidence(service: Any, game_id: int, hand_no: int) -> list[dict[str, Any]]:
    """Each card played in a hand with the camera's evidence, in play order:
    ``trick``, ``seat``, ``seq``, ``card`` (as it stands, corrections
    included), ``read`` (what the camera read; None for a card entered by
    hand), ``confidence``, ``crop`` (the picture's address, or None),
    ``unsure``, ``corrected_by`` (the correction's seq, or None)."""
    stored = service.store.events(game_id)
    kept = service.store.evidence(game_id)
    undone = {s.event.index for s in stored if isinstance(s.event, EntryUndone)}
    plays = [s for s in stored if s.hand_no == hand_no and isinstance(s.event, CardPlayed)
             and s.seq not in undone]
    out = []
    for k, s in enumerate(plays):
        ev = kept.get(s.seq)
        card = s.event.card
        out.append({"trick": k // 4 + 1, "seat": s.event.seat, "seq": s.seq, "card": card,
                    "read": ev["card"] if ev else None,
                    "confidence": ev["confidence"] if ev else None,
                    "crop": crop_url(game_id, s.seq) if ev and ev["crop"] else None,
                    "camera": s.source == "camera",
                    "unsure": bool(ev) and (ev["card"] is None or ev["confidence"] is None
                                            or ev["confidence"] < UNSURE),
                    "corrected_by": None})
    by_place = {(p["trick"], p["seat"]): p for p in out}
    for s in stored:
        e = s.event
        if (isinstance(e, CardCorrected) and s.seq not in undone
                and (e.hand == hand_no or (e.hand is None and s.hand_no == hand_no))):
            place = by_place.get((e.trick, e.seat))
            if place is not None:
                place["card"] = e.new
                place["corrected_by"] = s.seq
    return out


def crop_url(game_id: int, seq: int) -> str:
    return f"/api/games/{game_id}/crops/{seq}.jpg"


def chart(service: Any, game_id: int, title: str, hand_word: str) -> str:
    """The game's score hand by hand as an SVG chart (``common.chart``)."""
    from common.chart import score_svg
    from web.i18n import team_names

    data = game(service, game_id)
    totals = [h["totals"] for h in data["hands"]]
    return score_svg(totals, team_names(data.get("teams")), data.get("target"), title,
                     hand_word)
