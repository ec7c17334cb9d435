"""History pages: the games, a game's hands, one hand in full, the printable
score sheet. The exports (hand record JSON, scores CSV) are API addresses."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, abort, current_app, render_template
from flask_babel import format_datetime, get_locale
from flask_babel import gettext as _
from markupsafe import Markup

from companion.store import StoreError
from web import gamebook, i18n

bp = Blueprint("history", __name__)


def _when(ts: float | None) -> str:
    return "" if ts is None else format_datetime(datetime.fromtimestamp(ts), "short")


def _render(template: str, **extra: Any) -> str:
    return render_template(template, words=i18n.words(), lang=str(get_locale()),
                           card=i18n.card_label, bid=i18n.bid_label, when=_when, **extra)


@bp.get("/history")
def games() -> str:
    return _render("history.html", games=gamebook.list_games(current_app.config["SERVICE"]))


@bp.get("/history/<int:game_id>")
def game(game_id: int) -> str:
    try:
        data = gamebook.game(current_app.config["SERVICE"], game_id)
    except (LookupError, StoreError):
        abort(404)
    svg = gamebook.chart(current_app.config["SERVICE"], game_id, _("The score, hand by hand"),
                         _("hands"))
    return _render("game.html", game=data, chart=Markup(svg))


@bp.get("/history/<int:game_id>/sheet")
def sheet(game_id: int) -> str:
    try:
        data = gamebook.game(current_app.config["SERVICE"], game_id)
    except (LookupError, StoreError):
        abort(404)
    return _render("sheet.html", game=data, table=gamebook.table_name(current_app))


@bp.get("/history/<int:game_id>/hands/<int:hand_no>")
def hand(game_id: int, hand_no: int) -> str:
    try:
        data = gamebook.hand(current_app.config["SERVICE"], game_id, hand_no)
    except (LookupError, StoreError):
        abort(404)
    return _render("hand.html", hand=data)
