"""The score of a game hand by hand, drawn as an SVG chart on the server.

Each team's running total after each hand is a line; the target, when the
game has one in reach, a dashed line. The SVG uses presentation attributes
only (no style attribute: the pages' content policy allows no inline style)
and no script, so it is shown as an image or inline alike, and nothing is
fetched from outside.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 880, 520
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 100, 40, 130, 70
COLOURS = {"NS": "#ffb703", "EW": "#8ecae6"}
INK = "#f8f9fa"
GRID = "#c7d3cc"


def _nice_step(top: float) -> int:
    """A round step for the score axis: 4 to 8 lines up to ``top``."""
    for step in (50, 100, 200, 250, 500, 1000, 2000, 5000):
        if top / step <= 8:
            return step
    return 10000


def score_svg(totals: Sequence[dict[str, int]], names: dict[str, str], target: int | None,
              title: str, hand_word: str) -> str:
    """An SVG of each team's total after each hand.

    ``totals``: the running totals after hand 1, 2, ...; ``names``: each team's
    name; ``target``: drawn when set; ``title`` above the chart; ``hand_word``
    labels the hand axis.
    """
    points = [{"NS": 0, "EW": 0}, *totals]
    top = max([max(p["NS"], p["EW"]) for p in points] + [100])
    if target and target <= top * 1.5:
        top = max(top, target)
    step = _nice_step(top)
    top = (top // step + 1) * step
    bottom = min([min(p["NS"], p["EW"]) for p in points] + [0])
    bottom = -((-bottom) // step + (1 if bottom < 0 else 0)) * step if bottom < 0 else 0
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    hands = max(1, len(points) - 1)

    def x(i: int) -> float:
        return PAD_LEFT + inner_w * i / hands

    def y(v: float) -> float:
        return PAD_TOP + inner_h * (top - v) / (top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="{escape(title, {chr(34): "&quot;"})}" class="score-chart" '
           f'font-family="system-ui, sans-serif">',
           f'<title>{escape(title)}</title>',
           f'<text x="20" y="40" fill="{INK}" font-size="36" font-weight="700">'
           f'{escape(title)}</text>']
    value = bottom
    while value <= top:
        out.append(f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(value):.1f}" '
                   f'y2="{y(value):.1f}" stroke="{GRID}" stroke-opacity="0.3" stroke-width="1"/>')
        out.append(f'<text x="{PAD_LEFT - 10}" y="{y(value) + 8:.1f}" fill="{INK}" '
                   f'font-size="32" text-anchor="end">{value}</text>')
        value += step
    label_every = max(1, hands // 12)
    for i in range(0, hands + 1):
        if i % label_every == 0 or i == hands:
            out.append(f'<text x="{x(i):.1f}" y="{HEIGHT - PAD_BOTTOM + 36}" fill="{INK}" '
                       f'font-size="32" text-anchor="middle">{i}</text>')
    out.append(f'<text x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 4}" fill="{GRID}" font-size="32" '
               f'text-anchor="end">{escape(hand_word)}</text>')
    if target and bottom <= target <= top:
        out.append(f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(target):.1f}" '
                   f'y2="{y(target):.1f}" stroke="{INK}" stroke-width="2" '
                   f'stroke-dasharray="10 8"/>')
    legend_x = 20
    for k, team in enumerate(("NS", "EW")):
        path = " ".join(f"{x(i):.1f},{y(p[team]):.1f}" for i, p in enumerate(points))
        colour = COLOURS[team]
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="5" '
                   f'stroke-linejoin="round" data-team="{team}"/>')
        for i, p in enumerate(points[1:], start=1):
            out.append(f'<circle cx="{x(i):.1f}" cy="{y(p[team]):.1f}" r="6" fill="{colour}"/>')
        last = points[-1][team]
        out.append(f'<rect x="{legend_x + k * 470}" y="66" width="32" height="32" rx="4" '
                   f'fill="{colour}"/>')
        out.append(f'<text x="{legend_x + k * 470 + 42}" y="94" fill="{INK}" font-size="34">'
                   f'{escape(names.get(team, team)[:16])} {last}</text>')
    out.append("</svg>")
    return "".join(out)
