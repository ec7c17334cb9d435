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
        for hand in state.hands:
            res = hand["result"]
            for seat, name in seat_name.items():
                row = players[name]
                row["hands"] += 1
                row["points"] += int(res["score"][team_of(seat)])
            for team, name in team_name.items():
                teams[name]["hands"] += 1
                teams[name]["points"] += int(res["score"][team])
            for r in res.get("renonces") or []:
                _bump(players, seat_name.get(r["seat"]), "renonces")
                _bump(teams, team_name[team_of(r["seat"])], "renonces")
            won = res.get("tricks_won") or {}
            for team in ("NS", "EW"):
                if won.get(team) == 8:
                    teams[team_name[team]]["capots"] += 1
                    for seat, name in seat_name.items():
                        if team_of(seat) == team:
                            players[name]["capots"] += 1
            contract = res.get("contract")
            if not contract:
                continue
            taker = contract["taker"]
            made = bool(res.get("made"))
            rows = [club, teams[team_name[team_of(taker)]]]
            if taker in seat_name:
                rows.append(players[seat_name[taker]])
            for row in rows:
                row["taken"] += 1
                row["made"] += made
                for key, value in (("by_value", str(contract["value"])),
                                   ("by_trump", str(contract["trump"]))):
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


def bar_chart(title: str, rows: list[tuple[str, list[float]]], series: list[str],
              width: int = 640, number: Callable[[float], str] = "{:g}".format) -> str:
    """A horizontal bar chart as inline SVG: one group of bars per row, one bar
    per series (each its colour, named in the legend); ``number`` writes each
    bar's value (the pages give their language's decimal comma)."""
    bar, gap, top = 14, 8, 28 + 18
    # Room for the longest name (about 7 px a character at this size).
    label_w = int(min(320, max(60, 7 * max([len(lb) for lb, _ in rows] + [4]) + 12)))
    group = bar * len(series) + gap
    height = top + group * max(1, len(rows)) + 10
    scale_max = max([v for _, vals in rows for v in vals] + [1.0])
    plot_w = width - label_w - 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(title)}</title>",
             f'<text x="4" y="18" font-size="15" font-weight="bold" fill="currentColor">'
             f"{escape(title)}</text>"]
    x = label_w
    for i, name in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<rect x="{x}" y="26" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{x + 16}" y="37" font-size="12" fill="currentColor">'
                     f"{escape(name)}</text>")
        x += 24 + 8 * len(name)
    for r, (label, values) in enumerate(rows):
        y = top + r * group
        parts.append(f'<text x="{label_w - 6}" y="{y + group / 2}" font-size="13" '
                     f'text-anchor="end" fill="currentColor">{escape(label)}</text>')
        for s, value in enumerate(values):
            w = 0 if scale_max <= 0 else max(0.0, value) / scale_max * plot_w
            by = y + s * bar
            parts.append(f'<rect x="{label_w}" y="{by}" width="{w:.1f}" height="{bar - 2}" '
                         f'fill="{COLOURS[s % len(COLOURS)]}"/>')
            text = escape(number(value))
            parts.append(f'<text x="{label_w + w + 4:.1f}" y="{by + bar - 4}" font-size="11"'
                         f' fill="currentColor">{text}</text>')
    parts.append("</svg>")
    return "".join(parts)
