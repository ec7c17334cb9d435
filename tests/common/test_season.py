"""The season's statistics from stored events: each player's and team's hands,
contracts, contres, belotes and points add up to what the games say."""

from __future__ import annotations

import dataclasses

from common.season import bar_chart, name_key, season
from scorer.cards import team_of
from scorer.events import BeloteAnnounced, BidMade
from scorer.game import replay
from scorer.simulate import simulate_game

NAMES = {"N": "Élise", "S": "Marc", "E": "Zoé", "W": "Yann"}


def _game_with_contre_and_belote() -> list:
    for seed in range(1, 400):
        events = simulate_game(seed, hands=6)
        if (any(isinstance(e, BidMade) and e.bid == "contre" for e in events)
                and any(isinstance(e, BeloteAnnounced) for e in events)):
            start = dataclasses.replace(events[0], players=dict(NAMES),
                                        teams={"NS": "Les Pies", "EW": "Les Geais"})
            return [start, *events[1:]]
    raise AssertionError("no simulated game with a contre and a belote")


def test_season_counts_add_up_to_the_games() -> None:
    events = _game_with_contre_and_belote()
    state = replay(events)
    stats = season([events, events[:1]])
    players = {r["name"]: r for r in stats["players"]}
    teams = {r["name"]: r for r in stats["teams"]}
    assert [r["name"] for r in stats["players"]] == ["Élise", "Marc", "Yann", "Zoé"]
    played = [h for h in state.hands]
    contracts = [h["result"]["contract"] for h in played if h["result"]["contract"]]
    for seat, name in NAMES.items():
        row = players[name]
        assert row["hands"] == len(played)
        assert row["contres"] == sum(1 for e in events if isinstance(e, BidMade)
                                     and e.seat == seat and e.bid == "contre")
        assert row["belotes"] == sum(1 for e in events if isinstance(e, BeloteAnnounced)
                                     and e.seat == seat)
        assert row["taken"] == sum(1 for c in contracts if c["taker"] == seat)
        team_points = sum(h["result"]["score"][team_of(seat)] for h in played)
        assert row["avg"] == round(team_points / len(played), 1)
    assert teams["Les Pies"]["points"] == state.scores["NS"]
    assert teams["Les Geais"]["points"] == state.scores["EW"]
    club = stats["contracts"]
    assert club["taken"] == len(contracts)
    assert club["made"] == sum(1 for h in played if h["result"]["made"])
    assert sum(t for t, _ in club["by_trump"].values()) == len(contracts)
    assert sum(t for t, _ in club["by_value"].values()) == len(contracts)


def test_charts_are_svg_with_escaped_names_and_french_order() -> None:
    svg = bar_chart("Points <moyens>", [("A & B", [3.0, 1.0])], ["prises", "réussies"])
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "A &amp; B" in svg and "Points &lt;moyens&gt;" in svg and "<script" not in svg
    assert sorted(["Zoé", "Élise", "Eric"], key=name_key) == ["Élise", "Eric", "Zoé"]
