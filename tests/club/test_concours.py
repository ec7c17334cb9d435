"""The concours' rules: the draw avoids meetings already played, the rotation
moves the EW teams one table on, a match counts the hands its end names (a
number of hands, a target, a time), and the ranking orders of a concours."""

from __future__ import annotations

import itertools

import pytest

from club.concours import ConcoursError, draw_round, match_result, ranking
from scorer.game import replay
from scorer.simulate import simulate_game


def test_the_draw_avoids_teams_meeting_twice_and_rotation_moves_ew_on() -> None:
    teams = list(range(1, 9))
    met: set[frozenset[int]] = set()
    for round_no in (1, 2, 3):
        games = draw_round(teams, [1, 2, 3, 4, 5], round_no, "draw", 11, met)
        assert [t for t, _, _ in games] == [1, 2, 3, 4]
        assert sorted(x for _, a, b in games for x in (a, b)) == teams
        pairs = {frozenset((a, b)) for _, a, b in games}
        assert not pairs & met
        met |= pairs
    r1 = draw_round(teams, [1, 2, 3, 4], 1, "rotate", 1, set())
    r2 = draw_round(teams, [1, 2, 3, 4], 2, "rotate", 1, set())
    assert [ns for _, ns, _ in r1] == [ns for _, ns, _ in r2]
    assert [ew for _, _, ew in r2] == [ew for _, _, ew in r1][1:] + [r1[0][2]]
    with pytest.raises(ConcoursError, match="2 teams or more"):
        draw_round([1], [1, 2], 1, "draw", 1, set())
    with pytest.raises(ConcoursError, match="need 2 tables"):
        draw_round([1, 2, 3, 4], [1], 1, "draw", 1, set())


def _game(seed: int, hands: int, **settings: int):
    events = simulate_game(seed, hands=hands, settings=settings)
    return replay(events)


def test_a_match_counts_the_hands_its_end_names() -> None:
    state = _game(21, 4)
    played = [h for h in state.hands if h["result"]["contract"]]
    assert len(played) == 4
    two = match_result(state, 2, None, None, 0.0, [], 100.0)
    assert two["over"] and two["hands"] == 2
    assert two["points"] == {t: sum(h["result"]["score"][t] for h in played[:2])
                             for t in ("NS", "EW")}
    five = match_result(state, 5, None, None, 0.0, [], 100.0)
    assert not five["over"] and five["winner"] is None and five["hands"] == 4
    # To a target: over when the game is won, the winner is the game's.
    won = _game(5, 60, target=500)
    assert won.phase == "over"
    res = match_result(won, None, 500, None, 0.0, [], 0.0)
    assert res["over"] and res["winner"] == won.winner
    assert not match_result(state, None, 1000, None, 0.0, [], 0.0)["over"]
    # A time limit: hands begun before it count, the one in play is played out.
    ends = [float(60 * (i + 1)) for i in range(len(state.hands))]  # a hand a minute
    timed = match_result(state, None, None, 2, 0.0, ends, 1000.0)
    begun_in_time = [h for h, b in zip(state.hands, [0.0] + ends[:-1], strict=True)
                     if b <= 120 and h["result"]["contract"]]
    assert timed["hands"] == len(begun_in_time) and timed["over"]
    assert not match_result(state, None, None, 30, 0.0, ends, 1000.0)["over"]


def _results(scores: list[tuple[int, int, int, int]]) -> list[dict]:
    out = []
    for i, (ns, ew, pns, pew) in enumerate(scores):
        winner = None if pns == pew else ("NS" if pns > pew else "EW")
        out.append({"round": i + 1, "table": 1, "team_ns": ns, "team_ew": ew,
                    "result": {"hands": 4, "points": {"NS": pns, "EW": pew}, "over": True,
                               "winner": winner}})
    return out


def test_ranking_orders_games_won_then_points_or_points_or_difference() -> None:
    teams = [{"id": i, "name": n, "players": []} for i, n in
             zip(range(1, 5), ("Ana", "Bea", "Cid", "Dan"), strict=True)]
    # Ana wins twice by little; Bea wins once by a lot; Cid wins once; Dan never.
    results = _results([(1, 2, 500, 480), (3, 4, 600, 100), (1, 3, 410, 400),
                        (2, 4, 900, 100)])
    rows = ranking(teams, results)
    assert [r["team"]["name"] for r in rows] == ["Ana", "Bea", "Cid", "Dan"]
    assert [r["won"] for r in rows] == [2, 1, 1, 0]
    assert rows[0]["points"] == 910 and rows[0]["against"] == 880
    assert [g["round"] for g in rows[0]["games"]] == [1, 3]
    by_points = ranking(teams, results, "points")
    assert [r["team"]["name"] for r in by_points] == ["Bea", "Cid", "Ana", "Dan"]
    by_diff = ranking(teams, results, "wins-difference")
    assert [r["team"]["name"] for r in by_diff][:2] == ["Ana", "Bea"]
    # Equal teams share a rank.
    tie = ranking(teams[:2], _results([(1, 2, 300, 300)]))
    assert [r["rank"] for r in tie] == [1, 1] and all(r["won"] == 0 for r in tie)
    with pytest.raises(ConcoursError):
        ranking(teams, results, "alphabetical")
    assert list(itertools.chain.from_iterable(r["games"] for r in rows))
