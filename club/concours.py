"""A concours: teams of two play several rounds against different teams; the
club server draws or rotates the tables each round, sends each table its
game, and ranks the teams from what the tables played.

Pure functions over plain values (the server and the pages give them what
the club's file holds), so the demo checks the ranking made from the club's
copy against the one made from every table's own store.

>>> draw_round([1, 2, 3, 4], [7, 8], 1, "draw", seed=3, met=set())
[(7, 4, 1), (8, 2, 3)]
>>> rotate = [draw_round([1, 2, 3, 4, 5, 6], [1, 2, 3], r, "rotate", 1, set()) for r in (1, 2)]
>>> rotate[0], rotate[1]
([(1, 1, 2), (2, 3, 4), (3, 5, 6)], [(1, 1, 4), (2, 3, 6), (3, 5, 2)])

An odd number of teams: one team is exempt each round (table ``BYE``, no
opponent), a different one each round while that is possible:

>>> [draw_round([1, 2, 3], [1], r, "rotate", 1, set()) for r in (1, 2)]
[[(1, 1, 2), (0, 3, None)], [(1, 1, 3), (0, 2, None)]]

The exempt team scores as the club convention this server follows (there is
no concours text in the FFB rules): it is credited with a game won and the
concours' ``bye_points`` (the organiser sets them; by default the round's
target, or 81 a hand, half the 162 points of a hand; 0 for a timed round),
and nothing against (``bye_result``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from scorer.game import GameState

# Concours orders: games won then points scored (the usual one), points scored
# alone, games won then the difference of points scored and conceded.
RANKINGS = ("wins-points", "points", "wins-difference")


class ConcoursError(ValueError):
    """A concours that cannot be set up or a round that cannot be drawn."""


BYE = 0  # the "table" of the exempt team: it plays no game


def draw_round(teams: list[int], tables: list[int], round_no: int, method: str, seed: int,
               met: set[frozenset[int | None]]) -> list[tuple[int, int, int | None]]:
    """(table, team NS, team EW) of round ``round_no``; with an odd number of
    teams one of them is exempt: ``(BYE, team, None)``, last.

    ``draw``: a seeded draw, redrawn (a bounded number of times) until no two
    teams meet again and no team is exempt twice when that is possible.
    ``rotate``: the NS teams keep their table and the EW teams move one table
    on each round (a Mitchell movement); the exempt team is the one facing the
    empty place."""
    if len(teams) < 2:
        raise ConcoursError(f"{len(teams)} teams: a concours needs 2 teams or more")
    slots: list[int | None] = list(teams) + ([None] if len(teams) % 2 else [])
    pairs = len(slots) // 2
    games = len(teams) // 2
    if len(tables) < games:
        raise ConcoursError(f"{len(teams)} teams need {games} tables; the club has "
                            f"{len(tables)}")
    chosen = sorted(tables)[:games]
    if method == "rotate":
        # The empty place sits among the NS (the fixed seats): the EW team
        # that comes to it is exempt, a different one each round.
        ns, ew = slots[0::2], slots[1::2]
        if None in ew:
            ns[-1], ew[-1] = ew[-1], ns[-1]
        shift = (round_no - 1) % pairs
        order: list[int | None] = []
        for i in range(pairs):
            order += [ns[i], ew[(i + shift) % pairs]]
    elif method == "draw":
        rng = random.Random(f"{seed}:{round_no}")
        order = []
        best_repeats = pairs + 1
        for _ in range(200):
            tried = list(slots)
            rng.shuffle(tried)
            repeats = sum(frozenset(tried[2 * i:2 * i + 2]) in met for i in range(pairs))
            if repeats < best_repeats:
                order, best_repeats = tried, repeats
            if repeats == 0:
                break
    else:
        raise ConcoursError(f"draw method {method!r} is not draw or rotate")
    out: list[tuple[int, int, int | None]] = []
    bye: tuple[int, int, int | None] | None = None
    for i in range(pairs):
        a, b = order[2 * i], order[2 * i + 1]
        if a is None or b is None:
            team = b if a is None else a
            assert team is not None
            bye = (BYE, team, None)
        else:
            out.append((chosen[len(out)], a, b))
    return out + ([bye] if bye else [])


def default_bye_points(hands: int | None, target: int | None) -> int:
    """The exempt team's points when the organiser leaves them: the target of
    a round played to a target, 81 a hand (half a hand's 162) for a round of
    so many hands, 0 for a timed round."""
    if target:
        return target
    if hands:
        return 81 * hands
    return 0


def bye_result(points: int) -> dict[str, Any]:
    """The exempt team's "match": a game won, ``points`` scored, none conceded."""
    return {"hands": 0, "points": {"NS": points, "EW": 0}, "over": True, "winner": "NS",
            "bye": True, "manual": False}


def match_result(state: GameState | None, hands: int | None, target: int | None,
                 minutes: int | None, started: float, hand_end_ts: list[float],
                 now: float) -> dict[str, Any]:
    """A match's result so far from its table's game: the hands that count,
    each team's points, whether it is over and who won (None on a tie).

    Only hands played count (all passing deals again). ``hands``: the first
    that many; ``target``: all until the game is won; ``minutes``: the hands
    begun within that time of ``started`` (the hand in play when time is
    called is played out). ``hand_end_ts`` is when each finished hand of the
    game (``state.hands``) ended.
    """
    if state is None:
        return {"hands": 0, "points": {"NS": 0, "EW": 0}, "over": False, "winner": None}
    view = state.view()
    finished = view.hands
    ends = list(hand_end_ts) + [now] * (len(finished) - len(hand_end_ts))
    begun = [started] + ends[:-1] if ends else []
    played = [(h, b) for h, b in zip(finished, begun, strict=False)
              if h.result.contract is not None]
    game_over = view.phase == "over"
    if hands is not None:
        counted = [h for h, _ in played[:hands]]
        over = len(played) >= hands or game_over
    elif minutes is not None:
        limit = started + 60 * minutes
        counted = [h for h, b in played if b <= limit]
        between_hands = view.phase == "bidding" and not view.bids
        over = game_over or (now > limit and (any(e > limit for e in ends) or between_hands))
    else:
        counted = [h for h, _ in played]
        over = game_over
    points = {"NS": 0, "EW": 0}
    for h in counted:
        for team in points:
            points[team] += h.result.score[team]
    winner = None
    if over and points["NS"] != points["EW"]:
        winner = "NS" if points["NS"] > points["EW"] else "EW"
    return {"hands": len(counted), "points": points, "over": over, "winner": winner}


def ranking(teams: Iterable[dict[str, Any]], results: Iterable[dict[str, Any]],
            order: str = "wins-points") -> list[dict[str, Any]]:
    """Rank the teams. ``results``: one per match, with ``round``, ``table``,
    ``team_ns``, ``team_ew`` (team ids) and ``result`` (``match_result``).
    Each row: rank, team, played, won, points (scored), against, difference,
    games (the team's matches)."""
    if order not in RANKINGS:
        raise ConcoursError(f"ranking {order!r} is not one of {', '.join(RANKINGS)}")
    rows: dict[int, dict[str, Any]] = {
        t["id"]: {"team": t, "played": 0, "won": 0, "points": 0, "against": 0, "games": []}
        for t in teams}
    for m in results:
        res = m["result"]
        for side, other, team_key, other_key in (("NS", "EW", "team_ns", "team_ew"),
                                                 ("EW", "NS", "team_ew", "team_ns")):
            row = rows.get(m[team_key])
            if row is None:
                continue
            row["points"] += res["points"][side]
            row["against"] += res["points"][other]
            row["played"] += 1 if res["over"] else 0
            row["won"] += 1 if res["winner"] == side else 0
            row["games"].append({"round": m["round"], "table": m["table"],
                                 "match": m.get("id"), "opponent": m[other_key],
                                 "points": res["points"][side],
                                 "against": res["points"][other], "over": res["over"],
                                 "won": res["winner"] == side, "bye": bool(res.get("bye")),
                                 "manual": bool(res.get("manual"))})
    for row in rows.values():
        row["difference"] = row["points"] - row["against"]

    def key(row: dict[str, Any]) -> tuple[int, ...]:
        if order == "points":
            return (-row["points"], -row["won"])
        if order == "wins-difference":
            return (-row["won"], -row["difference"], -row["points"])
        return (-row["won"], -row["points"], -row["difference"])

    ordered = sorted(rows.values(), key=lambda r: (*key(r), r["team"]["name"]))
    rank, previous = 0, None
    for i, row in enumerate(ordered, start=1):
        if key(row) != previous:
            rank, previous = i, key(row)
        row["rank"] = rank
    return ordered
