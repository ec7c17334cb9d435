"""The score of one hand: FFB 10.2 (both methods, contré, surcontré, capot),
10.3 rounding, 11.3 Tout Atout conversion; classic belote's chute, litige and
capot; and what a proven renonce does.

Points given here include the dix de der (100 on a capot, FFB 9) and leave the
belote out; ``belote`` counts the belotes credited to each team (20 each).

>>> r = Rules()
>>> score_hand(r, "S", 80, "H", 1, {"NS": 97, "EW": 65}, {"NS": 5, "EW": 3}, {"NS": 0, "EW": 0})
{'made': True, 'score': {'NS': 100, 'EW': 70}}
"""

from __future__ import annotations

from fractions import Fraction

from scorer.cards import other_team, team_of
from scorer.rules import Rules

Scores = dict[str, int]


def round_ten(points: int | Fraction) -> int:
    """FFB 10.3: to the nearest ten, a five going up.

    >>> round_ten(85), round_ten(84), round_ten(Fraction(1240, 10))
    (90, 80, 120)
    """
    return int((points + 5) // 10 * 10)


def tout_atout_points(points: int) -> Fraction:
    """FFB 11.3: Tout Atout card points brought back to the 162 scale.

    >>> float(tout_atout_points(198))
    124.32558139534883
    """
    return Fraction(points * 162, 258)


def contract_made(rules: Rules, taker_team: str, value: int | str | None, trump: str,
                  points: Scores, tricks: Scores, belote: Scores) -> bool:
    """FFB 10.1: total (points + belote) at least the contract, or all eight
    tricks on a capot; classic: more than the defence.

    >>> contract_made(Rules(), "NS", 140, "AT", {"NS": 198, "EW": 60},
    ...               {"NS": 6, "EW": 2}, {"NS": 1, "EW": 0})
    True
    """
    defence = other_team(taker_team)
    if rules.game == "classic":
        total = points[taker_team] + 20 * belote[taker_team]
        if rules.classic_taker_wins == "half":
            return total >= 82
        return total > points[defence] + 20 * belote[defence]
    if value == "capot":
        return tricks[taker_team] == 8
    assert isinstance(value, int)
    pts: int | Fraction = points[taker_team]
    if trump == "AT" and rules.tout_atout_convert:
        pts = tout_atout_points(points[taker_team])
    if rules.made_needs_more and (points[taker_team] + 20 * belote[taker_team]
                                  <= points[defence] + 20 * belote[defence]):
        return False
    return pts + 20 * belote[taker_team] >= value


def score_hand(rules: Rules, taker: str, value: int | str | None, trump: str, double: int,
               points: Scores, tricks: Scores, belote: Scores,
               renonce_team: str | None = None, held_over: int = 0) -> dict[str, object]:
    """What each team adds to its total for this hand, and whether the contract
    was made (None when a renonce cancels the hand).

    A classic litige (81-81) adds ``"held_over"``: the takers' points put back
    in play for the winners of the next hand; ``held_over`` is what earlier
    litiges left, given to this hand's winners.
    """
    taker_team = team_of(taker)
    defence = other_team(taker_team)
    bel = {"NS": 20 * belote["NS"], "EW": 20 * belote["EW"]}
    pfd = rules.scoring == "points-faits-demandes"
    int_value = value if isinstance(value, int) else 0
    if renonce_team is not None:
        return _renonce_score(rules, renonce_team, taker_team, value, bel, pfd, held_over)
    if rules.game == "classic":
        return _classic_score(rules, taker_team, defence, points, tricks, bel, held_over)
    made = contract_made(rules, taker_team, value, trump, points, tricks, belote)
    score = {"NS": 0, "EW": 0}
    both = bel["NS"] + bel["EW"]
    if value == "capot":
        base = 500 * double
        if made:
            score[taker_team] = base + bel[taker_team] + (bel[defence] if double > 1 else 0)
            score[defence] = bel[defence] if double == 1 else 0
        else:
            score[defence] = base + both
        return {"made": made, "score": score}
    scoring = rules.scoring
    if double == 1:
        if made:
            if tricks[taker_team] == 8 and rules.unannounced_capot:
                # Club rule: a capot made without being bid scores a flat amount.
                taker_points = rules.unannounced_capot
            elif scoring in ("contract", "contract-only"):
                taker_points = int_value
            else:
                taker_points = _hand_points(rules, trump, points[taker_team])
            score[taker_team] = taker_points + bel[taker_team] + (int_value if pfd else 0)
            score[defence] = bel[defence]
            if scoring != "contract-only":
                score[defence] += _hand_points(rules, trump, points[defence])
        else:
            score[defence] = 160 + (int_value if pfd else 0) + both
        return {"made": made, "score": score}
    if rules.contre_scoring == "multiply":
        base, extra = int_value * double, 0
    else:
        base = 160 * double
        if pfd and rules.contre_160:
            base = 160  # FFB 10.2 note 1
        extra = int_value * double if pfd else 0
        if made and scoring == "points-faits" and tricks[taker_team] == 8:
            base += 100  # FFB 10.2 note 2: a capot made by the contré team, 320 + 100
    score[taker_team if made else defence] = base + extra + both
    return {"made": made, "score": score}


def _hand_points(rules: Rules, trump: str, points: int) -> int:
    pts: int | Fraction = points
    if trump == "AT" and rules.tout_atout_convert:
        pts = tout_atout_points(points)
    if rules.rounding:
        return round_ten(pts)
    return int(pts)


def _classic_score(rules: Rules, taker_team: str, defence: str, points: Scores,
                   tricks: Scores, bel: Scores, held_over: int) -> dict[str, object]:
    score = {"NS": 0, "EW": 0}
    out: dict[str, object] = {"score": score}
    total_t = points[taker_team] + bel[taker_team]
    total_d = points[defence] + bel[defence]
    winner: str | None
    if tricks[taker_team] == 8 or tricks[defence] == 8:
        # Capot: the other side keeps only its belote, which cannot be taken.
        winner = taker_team if tricks[taker_team] == 8 else defence
        score[winner] = rules.capot_points + bel[winner]
        score[other_team(winner)] = bel[other_team(winner)]
        out["made"] = winner == taker_team
    elif (total_t >= 82 if rules.classic_taker_wins == "half" else total_t > total_d):
        winner = taker_team
        score[taker_team], score[defence] = total_t, total_d
        out["made"] = True
    elif total_t == total_d and rules.litige_held_over and rules.classic_taker_wins == "more":
        # Litige: the defence scores, the takers' points wait for the next hand's winners.
        winner = None
        score[defence] = total_d
        score[taker_team] = bel[taker_team]
        out["made"] = None
        out["held_over"] = held_over + points[taker_team]
    else:
        # Dedans: the defence takes the whole deal; the belote stays with its holder.
        winner = defence
        score[defence] = (rules.dedans_points or points[defence]) + bel[defence]
        score[taker_team] = bel[taker_team]
        out["made"] = False
    if winner is not None and held_over:
        score[winner] += held_over
    return out


def _renonce_score(rules: Rules, offender: str, taker_team: str, value: int | str | None,
                   bel: Scores, pfd: bool, held_over: int) -> dict[str, object]:
    other = other_team(offender)
    score = {"NS": 0, "EW": 0}
    made: bool | None = offender != taker_team
    penalty = rules.renonce_penalty
    int_value = value if isinstance(value, int) else 0
    if penalty == "cancel":
        out: dict[str, object] = {"made": None, "score": score, "cancelled": True}
        if held_over:
            # Nobody won this hand: a classic litige's points still wait for a winner.
            out["held_over"] = held_over
        return out
    if penalty == "flat-162" or rules.game == "classic" and penalty == "hand-lost":
        score[other] = 162
    elif penalty == "contract":
        # The points of the contract in play (the club's text): a capot is worth 500;
        # classic belote has no contract value, its whole deal (162) is given instead.
        score[other] = 500 if value == "capot" else int_value or 162
    else:
        score[other] = 160 + (int_value if pfd else 0)
    # The belote stays with the team that announced it.
    score[other] += bel[other] + held_over
    score[offender] = bel[offender]
    return {"made": made, "score": score}
