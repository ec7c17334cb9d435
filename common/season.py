"""A season's statistics per player and per team, from stored events, and the
charts that show them (SVG drawn on the server: the page loads no script).

Each game is replayed with the rules engine; its finished hands give the
contracts (taken, made, by value and by trump), capots, renonces and points,
and its spoken bids and announcements (those not undone) give each player's
contres and belotes. Players and teams are known by the names the game was
started with.

>>> from scorer.simulate import simulate_game
>>> s = season([simulate_game(4, hands=3)])
>>> s["teams"][0]["name"], s["teams"][0]["hands"]
('EW', 3)
>>> bar_chart("t", [("a", [1.0])], ["x"]).startswith("<svg")
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from html import escape
from typing import Any

from scorer.cards import team_of
from scorer.events import BeloteAnnounced, BidMade, Event, GameStarted
from scorer.game import replay

TRUMPS = ("S", "H", "D", "C", "NT", "AT")


def _blank(name: str) -> dict[str, Any]:
    return {"name": name, "hands": 0, "taken": 0, "made": 0, "by_value": {}, "by_trump": {},
            "contres": 0, "capots": 0, "belotes": 0, "renonces": 0, "points": 0, "avg": 0.0}


def season(games: Iterable[Sequence[Event]]) -> dict[str, Any]:
    """Statistics of the games' finished hands: ``players`` and ``teams`` (each a
    list of rows, by name), and ``contracts`` (the whole club's by value and trump)."""
    players: dict[str, dict[str, Any]] = {}
    teams: dict[str, dict[str, Any]] = {}
    club = _blank("")
    for events in games:
        if not events or not isinstance(events[0], GameStarted):
            continue
        state = replay(events)
        start = events[0]
        seat_name = {s: n for s, n in start.players.items() if n}
        team_name = {t: start.teams.get(t) or t for t in ("NS", "EW")}
        for name in seat_name.values():
            players.setdefault(name, _blank(name))
        for name in team_name.values():
            teams.setdefault(name, _blank(name))
        for idx, e in enumerate(events):
            if idx in state.undone:
                continue
            if isinstance(e, BidMade) and e.bid == "contre":
                _bump(players, seat_name.get(e.seat), "contres")
                _bump(teams, team_name[team_of(e.seat)], "contres")
            elif isinstance(e, BeloteAnnounced):
                _bump(players, seat_name.get(e.seat), "belotes")
                _bump(teams, team_name[team_of(e.seat)], "belotes")
        for hand in state.view().hands:
            res = hand.result
            for seat, name in seat_name.items():
                row = players[name]
                row["hands"] += 1
                row["points"] += res.score[team_of(seat)]
            for team, name in team_name.items():
                teams[name]["hands"] += 1
                teams[name]["points"] += res.score[team]
            for r in res.renonces:
                _bump(players, seat_name.get(r.seat), "renonces")
                _bump(teams, team_name[team_of(r.seat)], "renonces")
            for team in ("NS", "EW"):
                if res.tricks_won[team] == 8:
                    teams[team_name[team]]["capots"] += 1
                    for seat, name in seat_name.items():
                        if team_of(seat) == team:
                            players[name]["capots"] += 1
            contract = res.contract
            if contract is None:
                continue
            taker = contract.taker
            made = bool(res.made)
            rows = [club, teams[team_name[team_of(taker)]]]
            if taker in seat_name:
                rows.append(players[seat_name[taker]])
            for row in rows:
                row["taken"] += 1
                row["made"] += made
                for key, value in (("by_value", str(contract.value)),
                                   ("by_trump", str(contract.trump))):
                    pair = row[key].setdefault(value, [0, 0])
                    pair[0] += 1
                    pair[1] += made
    for row in (*players.values(), *teams.values()):
        row["avg"] = round(row["points"] / row["hands"], 1) if row["hands"] else 0.0
    return {"players": sorted(players.values(), key=lambda r: name_key(r["name"])),
            "teams": sorted(teams.values(), key=lambda r: name_key(r["name"])),
            "contracts": club}


def name_key(name: str) -> str:
    """Alphabetical order as a French reader expects it: Élise beside Elise, not after Z."""
    return "".join(c for c in unicodedata.normalize("NFD", name.casefold())
                   if not unicodedata.combining(c))


def _bump(rows: dict[str, dict[str, Any]], name: str | None, key: str) -> None:
    if name is not None and name in rows:
        rows[name][key] += 1


def _value_order(v: str) -> tuple[int, str]:
    return (int(v), "") if v.isdigit() else (10_000, v)


def value_rows(by_value: dict[str, list[int]]) -> list[tuple[str, list[float]]]:
    return [(v, [float(t), float(m)]) for v, (t, m) in
            sorted(by_value.items(), key=lambda kv: _value_order(kv[0]))]


def trump_rows(by_trump: dict[str, list[int]],
               names: dict[str, str]) -> list[tuple[str, list[float]]]:
    return [(names.get(t, t), [float(by_trump[t][0]), float(by_trump[t][1])])
            for t in TRUMPS if t in by_trump]


COLOURS = ("#ffb703", "#52b788", "#8ecae6", "#e76f51")


# Every word of a chart is at least this many pixels tall where the chart is
# drawn at its own width (it is never drawn wider; a phone's 390 px screen
# shrinks it by a tenth at most).
CHART_TEXT_PX = 13


def bar_chart(title: str, rows: list[tuple[str, list[float]]], series: list[str],
              width: int = 360, number: Callable[[float], str] = "{:g}".format) -> str:
    """A horizontal bar chart as inline SVG: one group of bars per row, its name
    above it (a long name takes the whole width, never the bars' room), one bar
    per series (each its colour, named in the legend); ``number`` writes each
    bar's value (the pages give their language's decimal comma). ``width`` is
    the chart's size in pixels: narrow enough for a phone, so that its words
    keep their size there (``CHART_TEXT_PX``)."""
    text = CHART_TEXT_PX
    bar, gap = text + 3, 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
             f'width="{width}" height="HEIGHT" viewBox="0 0 {width} HEIGHT">',
             f"<title>{escape(title)}</title>",
             f'<text x="4" y="{text + 6}" font-size="{text + 2}" font-weight="bold" '
             f'fill="currentColor">{escape(title)}</text>']
    # The legend, wrapped onto as many lines as it needs.
    x, y = 4, text + 14
    for i, name in enumerate(series):
        room = 20 + int(0.62 * text * len(name)) + 12
        if x > 4 and x + room > width:
            x, y = 4, y + text + 6
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<rect x="{x}" y="{y}" width="{text - 1}" height="{text - 1}" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{x + text + 4}" y="{y + text - 2}" font-size="{text}" '
                     f'fill="currentColor">{escape(name)}</text>')
        x += room
    y += text + 10
    scale_max = max([v for _, vals in rows for v in vals] + [1.0])
    # Room after the longest bar for its value.
    plot_w = width - 8 - int(0.62 * text * max([len(number(v)) for _, vals in rows
                                                  for v in vals] + [1])) - 8
    for label, values in rows:
        parts.append(f'<text x="4" y="{y + text}" font-size="{text}" '
                     f'fill="currentColor">{escape(label)}</text>')
        y += text + 4
        for s, value in enumerate(values):
            w = 0 if scale_max <= 0 else max(0.0, value) / scale_max * plot_w
            parts.append(f'<rect x="4" y="{y}" width="{w:.1f}" height="{bar - 2}" '
                         f'fill="{COLOURS[s % len(COLOURS)]}"/>')
            parts.append(f'<text x="{4 + w + 4:.1f}" y="{y + bar - 4}" font-size="{text}"'
                         f' fill="currentColor">{escape(number(value))}</text>')
            y += bar
        y += gap
    parts.append("</svg>")
    height = str(y + 2)
    parts[0] = parts[0].replace("HEIGHT", height)
    return "".join(parts)
