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


def draw_round(teams: list[int], tables: list[int], round_no: int, method: str, seed: int,
               met: set[frozenset[int]]) -> list[tuple[int, int, int]]:
    """(table, team NS, team EW) of round ``round_no``.

    ``draw``: a seeded draw, redrawn (a bounded number of times) until no two
    teams meet again when that is possible. ``rotate``: the NS teams keep
    their table and the EW teams move one table on each round (a Mitchell
    movement)."""
    if len(teams) < 2 or len(teams) % 2:
        raise ConcoursError(f"{len(teams)} teams: a concours needs an even number, 2 or more")
    pairs = len(teams) // 2
    if len(tables) < pairs:
        raise ConcoursError(f"{len(teams)} teams need {pairs} tables; the club has "
                            f"{len(tables)}")
    chosen = sorted(tables)[:pairs]
    if method == "rotate":
        ns, ew = teams[0::2], teams[1::2]
        shift = (round_no - 1) % pairs
        return [(chosen[i], ns[i], ew[(i + shift) % pairs]) for i in range(pairs)]
    if method != "draw":
        raise ConcoursError(f"draw method {method!r} is not draw or rotate")
    rng = random.Random(f"{seed}:{round_no}")
    best: list[int] = []
    best_repeats = pairs + 1
    for _ in range(200):
        order = list(teams)
        rng.shuffle(order)
        repeats = sum(frozenset(order[2 * i:2 * i + 2]) in met for i in range(pairs))
        if repeats < best_repeats:
            best, best_repeats = order, repeats
        if repeats == 0:
            break
    return [(chosen[i], best[2 * i], best[2 * i + 1]) for i in range(pairs)]


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
    finished = state.hands
    ends = list(hand_end_ts) + [now] * (len(finished) - len(hand_end_ts))
    begun = [started] + ends[:-1] if ends else []
    played = [(h, b) for h, b in zip(finished, begun, strict=False)
              if h["result"].get("contract") is not None]
    game_over = state.phase == "over"
    if hands is not None:
        counted = [h for h, _ in played[:hands]]
        over = len(played) >= hands or game_over
    elif minutes is not None:
        limit = started + 60 * minutes
        counted = [h for h, b in played if b <= limit]
        between_hands = state.phase == "bidding" and not state.bids
        over = game_over or (now > limit and (any(e > limit for e in ends) or between_hands))
    else:
        counted = [h for h, _ in played]
        over = game_over
    points = {"NS": 0, "EW": 0}
    for h in counted:
        for team in points:
            points[team] += int(h["result"]["score"][team])
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
                                 "opponent": m[other_key], "points": res["points"][side],
                                 "against": res["points"][other], "over": res["over"],
                                 "won": res["winner"] == side})
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
