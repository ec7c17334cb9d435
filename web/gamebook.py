"""The history as the pages and the API show it: games, hands, corrections.

Everything here is read from the stored events through the rules engine's
fold (``companion.export``), so the history always agrees with the live page,
corrections included. A hand's score is shown step by step from the scorer's
own result: this module explains the numbers, it never scores anything itself
(the breakdown of each team's score is read back from the rule settings and
shown only when it adds up to the scorer's figure).
"""

from __future__ import annotations

from typing import Any

from companion import export
from scorer.cards import TEAMS, other_team, team_of
from scorer.events import BidMade, CardCorrected, EntryUndone
from scorer.scoring import round_ten, tout_atout_points
from web.entries import describe


def _game_state(service: Any, game_id: int) -> dict[str, Any]:
    if game_id == service.game_id:
        return dict(service.state_json())
    return export.game_json(service.store, game_id)


def list_games(service: Any) -> list[dict[str, Any]]:
    """Every stored game with its teams, scores and winner, newest first."""
    out = []
    for row in reversed(service.store.games()):
        state = _game_state(service, row["id"])
        out.append({**row, "teams": state.get("teams"), "scores": state.get("scores"),
                    "winner": state.get("winner"), "target": state.get("target"),
                    "finished_hands": len(state.get("hands") or []),
                    "current": row["id"] == service.game_id})
    return out


def game(service: Any, game_id: int) -> dict[str, Any]:
    """One game: its settings and every finished hand's score with running totals."""
    row = next((g for g in service.store.games() if g["id"] == game_id), None)
    if row is None:
        raise LookupError(f"no game {game_id}")
    state = _game_state(service, game_id)
    totals = {"NS": 0, "EW": 0}
    hands = []
    for h in state.get("hands") or []:
        result = h.get("result") or {}
        score = result.get("score") or {"NS": 0, "EW": 0}
        for team in totals:
            totals[team] += int(score.get(team, 0))
        hands.append({"hand_no": h["hand_no"], "dealer": h["dealer"],
                      "contract": result.get("contract"), "made": result.get("made"),
                      "points": result.get("points"), "belote": result.get("belote"),
                      "renonces": len(result.get("renonces") or []),
                      "score": score, "totals": dict(totals)})
    return {**row, "teams": state.get("teams"), "players": state.get("players"),
            "preset": state.get("preset"), "rules": state.get("rules"),
            "target": state.get("target"), "scores": state.get("scores"),
            "winner": state.get("winner"), "phase": state.get("phase"),
            "current": game_id == service.game_id, "hands": hands}


def steps(result: dict[str, Any], rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The hand's score in the order a scorer writes it on the sheet: card
    points, dix de der, belote, made or fallen, contré, rounding, the score.

    Each step is ``{"step": name, ...figures}``; figures come from the result.
    """
    contract = result.get("contract") or None
    points = result.get("points") or {"NS": 0, "EW": 0}
    tricks = result.get("tricks") or []
    out: list[dict[str, Any]] = []
    if tricks:
        in_tricks = {"NS": 0, "EW": 0}
        for t in tricks:
            if t.get("winner") and t.get("points") is not None:
                in_tricks[team_of(t["winner"])] += int(t["points"])
        out.append({"step": "card_points", **in_tricks})
        last = tricks[-1].get("winner")
        if last:
            team = team_of(last)
            # What the fold added beyond the tricks' card points: 10, or 100 on a capot.
            out.append({"step": "dix_de_der", "team": team,
                        "points": points.get(team, 0) - in_tricks[team],
                        "capot": len(tricks) == 8 and all(
                            team_of(t["winner"]) == team for t in tricks if t.get("winner"))})
    out.append({"step": "points", **{t: points.get(t, 0) for t in ("NS", "EW")}})
    belotes = result.get("belotes") or {}
    if result.get("belote"):
        team = result["belote"]
        out.append({"step": "belote", "team": team, "points": 20 * int(belotes.get(team, 1))})
    if contract is None:
        out.append({"step": "passed"})
    else:
        taker_team = team_of(contract["taker"])
        with_belote = points.get(taker_team, 0) + (
            20 * int(belotes.get(taker_team, 1)) if result.get("belote") == taker_team else 0)
        out.append({"step": "contract", "team": taker_team, "value": contract["value"],
                    "trump": contract["trump"], "total": with_belote,
                    "made": result.get("made")})
        if int(contract.get("double") or 1) > 1:
            out.append({"step": "double", "multiplier": int(contract["double"])})
    if result.get("renonces"):
        out.append({"step": "renonce", "count": len(result["renonces"]),
                    "penalty": rules.get("renonce_penalty")})
    out.append({"step": "rounding", "on": bool(rules.get("rounding", True))})
    parts = award(result, rules)
    if parts is not None:
        out.append({"step": "award", **parts})
    out.append({"step": "score", **(result.get("score") or {})})
    return out


def _hand_points(rules: dict[str, Any], trump: str, points: int) -> dict[str, Any]:
    """A team's card points as they enter the score (FFB 11.3 Tout Atout
    conversion, 10.3 rounding), with the raw figure when they differ."""
    pts: Any = points
    if trump == "AT" and rules.get("tout_atout_convert", True):
        pts = tout_atout_points(points)
    scored = round_ten(pts) if rules.get("rounding", True) else int(pts)
    part: dict[str, Any] = {"points": scored}
    if scored != points:
        part["from"] = points
    return part


def award(result: dict[str, Any], rules: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | None:
    """What each team's score for the hand is made of: ``{"NS": [part...], "EW": [...]}``,
    each part ``{"what", "points"}`` (what: points, contract, fallen, contre, capot,
    capot_bonus, renonce, belote). The parts are read back from the rule
    settings and always add up to the scorer's own score; when they would not
    (a case this explanation does not know, such as points held over from an
    earlier litige), there is no breakdown (None) rather than a wrong one."""
    contract = result.get("contract")
    score = result.get("score") or {}
    if not contract or result.get("cancelled") or set(score) != set(TEAMS):
        return None
    taker = team_of(contract["taker"])
    defence = other_team(taker)
    value = contract.get("value")
    int_value = value if isinstance(value, int) else 0
    double = int(contract.get("double") or 1)
    trump = str(contract.get("trump"))
    points = result.get("points") or {"NS": 0, "EW": 0}
    won = result.get("tricks_won") or {"NS": 0, "EW": 0}
    belotes = result.get("belotes") or {"NS": 0, "EW": 0}
    bel = {t: 20 * int(belotes.get(t, 0)) for t in TEAMS}
    both = bel["NS"] + bel["EW"]
    made = result.get("made")
    scoring = rules.get("scoring", "points-faits")
    pfd = scoring == "points-faits-demandes"
    classic = rules.get("game") == "classic"
    parts: dict[str, list[dict[str, Any]]] = {"NS": [], "EW": []}

    def add(team: str, what: str, amount: int, **extra: Any) -> None:
        if amount:
            parts[team].append({"what": what, "points": amount, **extra})

    renonces = result.get("renonces") or []
    if renonces:
        offender = team_of(renonces[0]["seat"])
        other = other_team(offender)
        penalty = rules.get("renonce_penalty", "hand-lost")
        if penalty == "flat-162" or (classic and penalty == "hand-lost"):
            add(other, "renonce", 162)
        elif penalty == "contract":
            add(other, "renonce", int_value or 162)
        else:
            add(other, "renonce", 160)
            if pfd:
                add(other, "contract", int_value)
        add(other, "belote", bel[other])
        add(offender, "belote", bel[offender])
    elif classic:
        capot = next((t for t in TEAMS if int(won.get(t, 0)) == 8), None)
        if capot is not None:
            add(capot, "capot", int(rules.get("capot_points", 252)))
            add(capot, "belote", bel[capot])
            add(other_team(capot), "belote", bel[other_team(capot)])
        elif made is False:
            add(defence, "fallen", int(rules.get("dedans_points") or points[defence]))
            add(defence, "belote", bel[defence])
            add(taker, "belote", bel[taker])
        else:
            # Made: each side its points; a litige (made None): the takers' wait.
            for team in TEAMS:
                if made or team == defence:
                    add(team, "points", int(points[team]))
                add(team, "belote", bel[team])
    elif value == "capot":
        base = 500 * double
        if made:
            add(taker, "capot", base)
            add(taker, "belote", bel[taker] + (bel[defence] if double > 1 else 0))
            if double == 1:
                add(defence, "belote", bel[defence])
        else:
            add(defence, "capot", base)
            add(defence, "belote", both)
    elif double == 1:
        if made:
            if int(won.get(taker, 0)) == 8 and rules.get("unannounced_capot"):
                add(taker, "capot", int(rules["unannounced_capot"]))
            elif scoring in ("contract", "contract-only"):
                add(taker, "contract", int_value)
            else:
                part = _hand_points(rules, trump, int(points[taker]))
                add(taker, "points", part.pop("points"), **part)
            if pfd:
                add(taker, "contract", int_value)
            add(taker, "belote", bel[taker])
            if scoring != "contract-only":
                part = _hand_points(rules, trump, int(points[defence]))
                add(defence, "points", part.pop("points"), **part)
            add(defence, "belote", bel[defence])
        else:
            add(defence, "fallen", 160)
            if pfd:
                add(defence, "contract", int_value)
            add(defence, "belote", both)
    else:
        winner = taker if made else defence
        if rules.get("contre_scoring") == "multiply":
            add(winner, "contre", int_value * double, base=int_value, multiplier=double)
        else:
            base = 160 if pfd and rules.get("contre_160") else 160 * double
            add(winner, "contre", base, base=160, multiplier=base // 160)
            if pfd:
                add(winner, "contract", int_value * double, base=int_value,
                    multiplier=double)
            if made and scoring == "points-faits" and int(won.get(taker, 0)) == 8:
                add(winner, "capot_bonus", 100)
        add(winner, "belote", both)
    if any(sum(p["points"] for p in parts[t]) != int(score[t]) for t in TEAMS):
        return None
    return parts


def hand(service: Any, game_id: int, hand_no: int) -> dict[str, Any]:
    """One finished hand in full: auction, tricks, score steps, renonces, the
    hand's entries and its corrections (who, when, from where)."""
    state = _game_state(service, game_id)
    found = next((h for h in state.get("hands") or [] if h["hand_no"] == hand_no), None)
    if found is None:
        raise LookupError(f"game {game_id} has no finished hand {hand_no}")
    stored = service.store.events(game_id)
    entries = [s for s in stored if s.hand_no == hand_no
               or (isinstance(s.event, CardCorrected) and s.event.hand == hand_no)]
    corrections = []
    for s in stored:
        e = s.event
        if isinstance(e, CardCorrected) and (e.hand == hand_no or
                                             (e.hand is None and s.hand_no == hand_no)):
            corrections.append({"seq": s.seq, "kind": "correction", "seat": e.seat,
                                "trick": e.trick, "card": e.new, "author": s.author,
                                "source": s.source, "ts": s.ts})
        elif isinstance(e, EntryUndone) and s.hand_no == hand_no:
            corrections.append({"seq": s.seq, "kind": "undo", "index": e.index,
                                "undone": describe(stored[e.index].event)
                                if 0 <= e.index < len(stored) else None,
                                "author": s.author, "source": s.source, "ts": s.ts})
    undone = {s.event.index for s in stored if isinstance(s.event, EntryUndone)}
    # Who said what, from the stored bids (after a contre the order skips a
    # seat, FFB 4.2.3, so the seats cannot be guessed from the list alone).
    spoken = [{"seat": s.event.seat, "bid": s.event.bid} for s in stored
              if s.hand_no == hand_no and isinstance(s.event, BidMade) and s.seq not in undone]
    result = found.get("result") or {}
    record = found.get("record") or {}
    dealer = found["dealer"]
    return {
        "game_id": game_id, "hand_no": hand_no, "dealer": dealer,
        "teams": state.get("teams"), "players": state.get("players"),
        "bids": spoken,
        "record": record, "result": result,
        "tricks": result.get("tricks") or [],
        "steps": steps(result, state.get("rules") or {}),
        "renonces": result.get("renonces") or [],
        "corrections": corrections,
        "entries": [{"seq": s.seq, "entry": describe(s.event), "source": s.source,
                     "author": s.author, "ts": s.ts, "confidence": s.confidence}
                    for s in entries],
    }


def scores_csv(service: Any, game_id: int) -> str:
    if not any(g["id"] == game_id for g in service.store.games()):
        raise LookupError(f"no game {game_id}")
    return export.scores_csv(_game_state(service, game_id))
