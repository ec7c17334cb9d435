"""The table's own season statistics (``/stats``): the same counts and charts
as the club server's, from this table's store (``companion.club.stats``)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, current_app, render_template, url_for
from flask_babel import get_locale

from companion.club import stats

CLUB = Path(__file__).resolve().parent / "club"
# The page's template and its styles are the club server's: one page, two servers.
bp = Blueprint("stats", __name__, template_folder=str(CLUB / "templates"),
               static_folder=str(CLUB / "static"), static_url_path="/stats-static")


@bp.get("/stats")
def season() -> str:
    from web.club.pages import by_kind, charts

    store = current_app.config["SERVICE"].store
    data = stats.season([[e.event for e in store.events(g["id"])] for g in store.games()])
    return render_template("stats_page.html", lang=str(get_locale()), season=data,
                           charts=charts(data), by_kind=by_kind,
                           stylesheet=url_for("stats.static", filename="club.css"))
