"""The season's statistics page (``/stats``), the table's and the club server's: the
same counts and charts (``common.season``), here from this table's store; the club
server (``club.pages``) shows the same page, its charts and tables (:func:`charts`,
:func:`by_kind`, ``templates/stats_page.html``, ``static/club.css``) from every table's
games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, render_template, url_for
from flask_babel import format_decimal, get_locale
from flask_babel import gettext as _

from common.season import TRUMPS, bar_chart, trump_rows, value_rows
from common.season import season as count_season

TEMPLATES = Path(__file__).resolve().parent / "templates"
bp = Blueprint("stats", __name__)


@bp.get("/stats")
def season() -> str:
    store = current_app.config["SERVICE"].store
    data = shown(count_season([[e.event for e in store.events(g["id"])]
                               for g in store.games()]))
    return render_template("stats_page.html", lang=str(get_locale()), season=data,
                           charts=charts(data), by_kind=by_kind,
                           stylesheet=url_for("static", filename="club.css"))


def decimal(value: float) -> str:
    """A number as the visitor's language writes it (French: "25,5", not "25.5")."""
    return str(format_decimal(value, format="#,##0.#"))


def shown(season: dict[str, Any]) -> dict[str, Any]:
    """The season as the page shows it: unnamed teams by the visitor's team
    codes ("EO", not "EW"), each average written in the visitor's language
    (``avg_text``)."""
    from web import i18n

    def row(r: dict[str, Any], teams: bool) -> dict[str, Any]:
        name = i18n.team_code(r["name"]) if teams and r["name"] in ("NS", "EW") else r["name"]
        return {**r, "name": name, "avg_text": decimal(r["avg"])}

    return {**season, "players": [row(r, False) for r in season["players"]],
            "teams": [row(r, True) for r in season["teams"]]}


def charts(season: dict[str, Any]) -> list[str]:
    """The season's charts (inline SVG), in the visitor's language."""
    from web import i18n

    taken_made = [_("Contracts taken"), _("Contracts made")]
    out = []
    for key, title in (("players", _("Players")), ("teams", _("Teams"))):
        rows = season[key]
        if not rows:
            continue
        out.append(bar_chart(_("%(who)s: average points per hand", who=title),
                             [(r["name"], [r["avg"]]) for r in rows],
                             [_("points per hand")], number=decimal))
        out.append(bar_chart(_("%(who)s: contracts taken and made", who=title),
                             [(r["name"], [r["taken"], r["made"]]) for r in rows],
                             taken_made, number=decimal))
    club = season["contracts"]
    if club["taken"]:
        out.append(bar_chart(_("Contracts by trump"),
                             trump_rows(club["by_trump"], i18n.trump_names()),
                             taken_made))
        out.append(bar_chart(_("Contracts by value"),
                             value_rows(club["by_value"]), taken_made))
    return out


def by_kind(row: dict[str, Any]) -> dict[str, str]:
    """A player's or team's contracts by trump and by value, taken/made, as the
    statistics tables show them: ``{"trump": "♥ 2/1 · SA 1/0", "value": "80 2/1"}``."""
    from scorer.cards import SUIT_SYMBOLS
    from web import i18n

    names = i18n.trump_names()

    def label(trump: str) -> str:
        return SUIT_SYMBOLS.get(trump) or names.get(trump, trump)

    trumps = " · ".join(f"{label(t)} {row['by_trump'][t][0]}/{row['by_trump'][t][1]}"
                        for t in TRUMPS if t in row["by_trump"])
    values = " · ".join(f"{v} {tm[0]}/{tm[1]}" for v, tm in
                        ((v, [int(x) for x in vals]) for v, vals in
                         value_rows(row["by_value"])))
    return {"trump": trumps, "value": values}
