"""The score of one hand: FFB 10.2 (both methods, contré, surcontré, capot),
10.3 rounding, 11.3 Tout Atout conversion; classic belote's chute, litige and
capot; and what a proven renonce does.

Points given here include the dix de der (100 on a capot, FFB 9) and leave the
belote out; ``belote`` counts the belotes credited to each team (20 each).

>>> r = Rules()
>>> out = score_hand(r, "S", 80, "H", 1, {"NS": 97, "EW": 65}, {"NS": 5, "EW": 3},
...                  {"NS": 0, "EW": 0})
>>> out["made"], out["score"]
(True, {'NS': 100, 'EW': 70})
>>> out["parts"]["NS"]
[{'what': 'points', 'points': 100, 'from': 97}]
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from scorer.cards import other_team, team_of
from scorer.rules import Rules

Scores = dict[str, int]

Part = dict[str, int | str]
"""One line of a team's score for a hand: ``{"what": str, "points": int}``,
and for some the figures it comes from: ``"from"`` (card points before the
Tout Atout conversion and the rounding), ``"base"`` and ``"multiplier"``
(a contre or a doubled contract value)."""

Parts = dict[str, list[Part]]

# A belote/rebelote announced and played (FFB 7).
BELOTE_POINTS = 20

# What a part can be, in the words of the score sheet.
PART_KINDS = ("points", "contract", "fallen", "contre", "capot", "capot_bonus", "renonce",
              "belote", "held_over")


class Sheet:
    """A hand's score as it is written on the score sheet: each team's parts in
    order. A team's score is the sum of its parts, so the score and its
    explanation come from the same lines and cannot disagree.

    >>> s = Sheet()
    >>> s.add("NS", "contre", 320, base=160, multiplier=2)
    >>> s.add("NS", "belote", 20)
    >>> s.add("EW", "belote", 0)      # nothing scored: no line
    >>> s.result(True)["score"]
    {'NS': 340, 'EW': 0}
    >>> s.parts["NS"][0], s.parts["EW"]
    ({'what': 'contre', 'points': 320, 'base': 160, 'multiplier': 2}, [])
    """

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: Parts = {"NS": [], "EW": []}

    def add(self, team: str, what: str, points: int, **figures: int) -> None:
        """Write ``points`` for ``team``; a part worth nothing is left out."""
        if points:
            part: Part = {"what": what, "points": points}
            part.update(figures)
            self.parts[team].append(part)

    def result(self, made: bool | None, **more: object) -> dict[str, object]:
        score = {team: sum(int(p["points"]) for p in parts) for team, parts in self.parts.items()}
        return {"made": made, "score": score, "parts": self.parts, **more}


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
    """What each team adds to its total for this hand (``"score"``), what that
    is made of (``"parts"``, see :class:`Sheet`), and whether the contract was
    made (None when a renonce cancels the hand).

    A classic litige (81-81) adds ``"held_over"``: the takers' points put back
    in play for the winners of the next hand; ``held_over`` is what earlier
    litiges left, given to this hand's winners (their part ``"held_over"``).
    """
    taker_team = team_of(taker)
    defence = other_team(taker_team)
    bel = {"NS": 20 * belote["NS"], "EW": 20 * belote["EW"]}
    pfd = rules.scoring == "points-faits-demandes"
    int_value = value if isinstance(value, int) else 0
    sheet = Sheet()
    if renonce_team is not None:
        return _renonce_score(rules, sheet, renonce_team, taker_team, value, double, bel, pfd,
                              held_over)
    if rules.game == "classic":
        return _classic_score(rules, sheet, taker_team, defence, points, tricks, bel, held_over)
    made = contract_made(rules, taker_team, value, trump, points, tricks, belote)
    both = bel["NS"] + bel["EW"]
    if value == "capot":
        base = 500 * double
        if made:
            sheet.add(taker_team, "capot", base)
            # Contré or surcontré, the takers take the defence's belote too.
            sheet.add(taker_team, "belote", bel[taker_team] + (bel[defence] if double > 1 else 0))
            if double == 1:
                sheet.add(defence, "belote", bel[defence])
        else:
            sheet.add(defence, "capot", base)
            sheet.add(defence, "belote", both)
        return sheet.result(made)
    scoring = rules.scoring
    if double == 1:
        if made:
            if tricks[taker_team] == 8 and rules.unannounced_capot:
                # Club rule: a capot made without being bid scores a flat amount.
                sheet.add(taker_team, "capot", rules.unannounced_capot)
            elif scoring in ("contract", "contract-only"):
                sheet.add(taker_team, "contract", int_value)
            else:
                _add_hand_points(sheet, rules, trump, taker_team, points[taker_team])
            if pfd:
                sheet.add(taker_team, "contract", int_value)
            sheet.add(taker_team, "belote", bel[taker_team])
            if scoring != "contract-only":
                _add_hand_points(sheet, rules, trump, defence, points[defence])
            sheet.add(defence, "belote", bel[defence])
        elif tricks[defence] == 8 and rules.unannounced_capot:
            # The club's text gives its flat capot to "une équipe" that makes one
            # unbid and uncontré: the defence too, in place of the 160 of a fall.
            sheet.add(defence, "capot", rules.unannounced_capot)
            if pfd:
                sheet.add(defence, "contract", int_value)
            sheet.add(defence, "belote", both)
        else:
            sheet.add(defence, "fallen", 160)
            if pfd:
                sheet.add(defence, "contract", int_value)
            sheet.add(defence, "belote", both)
        return sheet.result(made)
    winner = taker_team if made else defence
    if rules.contre_scoring == "multiply":
        sheet.add(winner, "contre", int_value * double, base=int_value, multiplier=double)
    else:
        base = 160 * double
        if pfd and rules.contre_160:
            base = 160  # FFB 10.2 note 1
        sheet.add(winner, "contre", base, base=160, multiplier=base // 160)
        if pfd:
            sheet.add(winner, "contract", int_value * double, base=int_value, multiplier=double)
        if made and scoring == "points-faits" and tricks[taker_team] == 8:
            sheet.add(winner, "capot_bonus", 100)  # FFB 10.2 note 2: 320 + 100
    sheet.add(winner, "belote", both)
    return sheet.result(made)


def _hand_points(rules: Rules, trump: str, points: int) -> int:
    pts: int | Fraction = points
    if trump == "AT" and rules.tout_atout_convert:
        pts = tout_atout_points(points)
    if rules.rounding:
        return round_ten(pts)
    return int(pts)


def _add_hand_points(sheet: Sheet, rules: Rules, trump: str, team: str, points: int) -> None:
    """A team's card points as they enter the score (FFB 11.3, 10.3), with the
    raw figure beside them when the conversion or the rounding changed it."""
    scored = _hand_points(rules, trump, points)
    if scored != points:
        sheet.add(team, "points", scored, **{"from": points})
    else:
        sheet.add(team, "points", scored)


def _classic_score(rules: Rules, sheet: Sheet, taker_team: str, defence: str, points: Scores,
                   tricks: Scores, bel: Scores, held_over: int) -> dict[str, object]:
    total_t = points[taker_team] + bel[taker_team]
    total_d = points[defence] + bel[defence]
    winner: str | None
    more: dict[str, object] = {}
    if tricks[taker_team] == 8 or tricks[defence] == 8:
        # Capot: the other side keeps only its belote, which cannot be taken.
        winner = taker_team if tricks[taker_team] == 8 else defence
        sheet.add(winner, "capot", rules.capot_points)
        sheet.add(winner, "belote", bel[winner])
        sheet.add(other_team(winner), "belote", bel[other_team(winner)])
        made: bool | None = winner == taker_team
    elif (total_t >= 82 if rules.classic_taker_wins == "half" else total_t > total_d):
        winner = taker_team
        for team in (taker_team, defence):
            sheet.add(team, "points", points[team])
            sheet.add(team, "belote", bel[team])
        made = True
    elif total_t == total_d and rules.litige_held_over and rules.classic_taker_wins == "more":
        # Litige: the defence scores, the takers' points wait for the next hand's winners.
        winner = None
        sheet.add(defence, "points", points[defence])
        sheet.add(defence, "belote", bel[defence])
        sheet.add(taker_team, "belote", bel[taker_team])
        made = None
        more["held_over"] = held_over + points[taker_team]
    else:
        # Dedans: the defence takes the whole deal; the belote stays with its holder.
        winner = defence
        sheet.add(defence, "fallen", rules.dedans_points or points[defence])
        sheet.add(defence, "belote", bel[defence])
        sheet.add(taker_team, "belote", bel[taker_team])
        made = False
    if winner is not None:
        sheet.add(winner, "held_over", held_over)
    return sheet.result(made, **more)


# -- where the rule texts are silent or several: decided here, once -------------------
#
# The FFB text of 2016 says nothing of a renonce; the club's text ("Irrégularités
# de jeu") says the hand is cancelled and "les points du contrat en cours sont
# marqués par l'équipe adverse". The decisions below follow the FFB's own
# table wherever it can be read across, and say where they go beyond the texts.

def belotes_allowed(trump: str | None) -> int:
    """How many belotes a hand can have: none at Sans Atout (FFB 11.2), up to
    four at Tout Atout (11.3: one per suit), one otherwise (FFB 7)."""
    return 0 if trump == "NT" else 4 if trump == "AT" else 1


def count_belotes(belote: str | list[str] | None) -> dict[str, int]:
    """A tally's ``belote`` (a team, a list with a team per belote, or None) as
    a count per team."""
    teams = [belote] if isinstance(belote, str) else list(belote or [])
    return {"NS": teams.count("NS"), "EW": teams.count("EW")}


def penalised_renonce(renonces: list[dict[str, object]],
                      play_order: dict[tuple[int, str], int]) -> dict[str, object] | None:
    """The renonce that decides the hand when there are several: the one
    committed first (earliest trick, then earliest in that trick's play, from
    ``play_order[(trick, seat)]``), whichever was proved first. The club's
    text stops the hand at the first wrong card ("le coup est annulé"), so the
    later one was made in a hand already lost; the FFB text is silent."""
    if not renonces:
        return None

    def committed(r: dict[str, object]) -> tuple[int, int]:
        trick = int(r["trick"])  # type: ignore[call-overload]
        return trick, play_order.get((trick, str(r["seat"])), 4)

    return min(renonces, key=committed)


def lost_hand_value(rules: Rules, value: int | str | None, double: int,
                    pfd: bool) -> list[tuple[str, int, dict[str, int]]]:
    """What a lost hand is worth to the other team by the FFB 10.2 table
    ("Contrat chuté": the defence's row): 160, 320 contré, 640 surcontré
    (FFB 10.2 note 1 in points faits + demandés when set), plus the contract
    (x2, x4) in points faits + demandés; a capot 500, 1000, 2000. Each part
    as (what, points, figures)."""
    def figures(base: int, multiplier: int) -> dict[str, int]:
        return {"base": base, "multiplier": multiplier} if multiplier > 1 else {}

    if value == "capot":
        return [("renonce", 500 * double, figures(500, double))]
    int_value = value if isinstance(value, int) else 0
    base = 160 * double
    if double > 1 and pfd and rules.contre_160:
        base = 160
    parts: list[tuple[str, int, dict[str, int]]] = [
        ("renonce", base, figures(160, base // 160))]
    if pfd:
        parts.append(("contract", int_value * double, figures(int_value, double)))
    return parts


def _renonce_score(rules: Rules, sheet: Sheet, offender: str, taker_team: str,
                   value: int | str | None, double: int, bel: Scores, pfd: bool,
                   held_over: int) -> dict[str, object]:
    """A renonce loses the hand for the offending team (``rules.renonce_penalty``):

    * ``hand-lost`` (default): the other team scores the lost hand as the FFB
      10.2 table values it (``lost_hand_value``), so a renonce never costs
      less than losing the same contract by play;
    * ``flat-160``: 160 whatever the contract (+ the contract in points faits
      + demandés), as many clubs count it;
    * ``flat-162``: the whole deal, 162; ``contract``: the contract in play
      (the club's text; contré x2, surcontré x4 as its table, capot 500);
      ``cancel``: nobody scores.

    The belotes go as on a fall in the same game: at contrée to the other
    team, the offender's with them (FFB 10.2 "Belote preneurs ou défense",
    FFB 7), so the offender keeps nothing; at classic belote each keeps its
    own ("la belote qui est imprenable", the classic summary). Classic belote
    has no contract value: the whole deal (162) is given.
    """
    other = other_team(offender)
    penalty = rules.renonce_penalty
    int_value = value if isinstance(value, int) else 0
    more: dict[str, object] = {"renonce_penalty": penalty}
    if penalty == "cancel":
        if held_over:
            # Nobody won this hand: a classic litige's points still wait for a winner.
            return sheet.result(None, cancelled=True, held_over=held_over, **more)
        return sheet.result(None, cancelled=True, **more)
    if rules.game == "classic" or penalty == "flat-162":
        sheet.add(other, "renonce", 162)
    elif penalty == "contract":
        base = 500 if value == "capot" else 160 if double > 1 and (
            rules.contre_scoring == "table") else int_value
        if double > 1:
            sheet.add(other, "renonce", base * double, base=base, multiplier=double)
        else:
            sheet.add(other, "renonce", base)
    elif penalty == "flat-160":
        sheet.add(other, "renonce", 160)
        if pfd:
            sheet.add(other, "contract", int_value)
    else:
        for what, points, figures in lost_hand_value(rules, value, double, pfd):
            sheet.add(other, what, points, **figures)
    if rules.game == "classic":
        sheet.add(other, "belote", bel[other])
        sheet.add(offender, "belote", bel[offender])
    else:
        sheet.add(other, "belote", bel["NS"] + bel["EW"])
    sheet.add(other, "held_over", held_over)
    return sheet.result(offender != taker_team, **more)


Step = dict[str, Any]
"""One line of :func:`breakdown`: ``{"step": name, ...figures}``."""


def breakdown(result: Mapping[str, Any], rules: Mapping[str, Any]) -> list[Step]:
    """A hand's score in the order a scorer writes it on the sheet, read from the
    hand's result (docs/design.md's output, as ``replay`` gives it) and the game's rules
    (their JSON form): the history page and its API show these lines.

    Steps, in order: ``card_points`` (each team's points in its tricks) and
    ``dix_de_der`` (what the last trick added: 10, or 100 on a capot, FFB 9) when
    the tricks are known; ``points``; ``belote`` when announced; ``passed`` or
    ``contract`` (the takers' total with their belote, made or not) and ``double``
    when contré; ``renonce``; ``rounding``; ``award`` (each team's parts, see
    :class:`Sheet`, when a contract was played out); ``score``. Nothing is scored
    again here: every figure is the result's, or a sum of its figures.

    >>> r = {"contract": {"taker": "S", "value": 80, "trump": "H", "double": 1},
    ...      "tricks": [{"winner": "S", "points": 150}, {"winner": "E", "points": 2}],
    ...      "points": {"NS": 160, "EW": 2}, "belote": None, "made": True,
    ...      "score": {"NS": 160, "EW": 0},
    ...      "parts": {"NS": [{"what": "points", "points": 160}], "EW": []}}
    >>> [s["step"] for s in breakdown(r, {})]
    ['card_points', 'dix_de_der', 'points', 'contract', 'rounding', 'award', 'score']
    >>> breakdown(r, {})[1]
    {'step': 'dix_de_der', 'team': 'EW', 'points': 0, 'capot': False}
    """
    contract = result.get("contract") or None
    points = result.get("points") or {"NS": 0, "EW": 0}
    tricks = result.get("tricks") or []
    out: list[Step] = []
    if tricks:
        in_tricks = {"NS": 0, "EW": 0}
        for t in tricks:
            if t.get("winner") and t.get("points") is not None:
                in_tricks[team_of(t["winner"])] += int(t["points"])
        out.append({"step": "card_points", **in_tricks})
        last = tricks[-1].get("winner")
        if last:
            team = team_of(last)
            # The fold adds the dix de der to the last trick's team's points.
            out.append({"step": "dix_de_der", "team": team,
                        "points": points.get(team, 0) - in_tricks[team],
                        "capot": len(tricks) == 8 and all(
                            team_of(t["winner"]) == team for t in tricks if t.get("winner"))})
    out.append({"step": "points", **{t: points.get(t, 0) for t in ("NS", "EW")}})
    belotes = result.get("belotes") or {}
    if result.get("belote"):
        team = result["belote"]
        out.append({"step": "belote", "team": team,
                    "points": BELOTE_POINTS * int(belotes.get(team, 1))})
    if contract is None:
        out.append({"step": "passed"})
    else:
        taker_team = team_of(contract["taker"])
        with_belote = points.get(taker_team, 0) + (
            BELOTE_POINTS * int(belotes.get(taker_team, 1))
            if result.get("belote") == taker_team else 0)
        out.append({"step": "contract", "team": taker_team, "value": contract["value"],
                    "trump": contract["trump"], "total": with_belote,
                    "made": result.get("made")})
        if int(contract.get("double") or 1) > 1:
            out.append({"step": "double", "multiplier": int(contract["double"])})
    if result.get("renonces"):
        out.append({"step": "renonce", "count": len(result["renonces"]),
                    "penalty": result.get("renonce_penalty")
                    or rules.get("renonce_penalty") or "hand-lost"})
    out.append({"step": "rounding", "on": bool(rules.get("rounding", True))})
    parts = awarded_parts(result)
    if parts is not None:
        out.append({"step": "award", **parts})
    out.append({"step": "score", **(result.get("score") or {})})
    return out


def awarded_parts(result: Mapping[str, Any]) -> Parts | None:
    """What each team's score is made of, the :class:`Sheet`'s parts of the hand's
    result (copies): ``{"NS": [part...], "EW": [...]}``. None when there is nothing
    to explain: all passed, or a renonce cancelled the hand."""
    parts = result.get("parts")
    if not result.get("contract") or result.get("cancelled") or not parts:
        return None
    return {t: [dict(p) for p in parts.get(t) or []] for t in ("NS", "EW")}
