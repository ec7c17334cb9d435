"""The organiser's pages: PIN log-in, game set-up, and the table controls.

Set-up and log-in are plain HTML forms (CSRF token, server-side checks from
``web.entries``). The controls (bids, contract, belote, card entry and
correction, undo) are buttons that call the JSON API with the session cookie
and the CSRF token, and follow the table through the event stream.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _

from scorer.cards import CARD_CODES, SEATS
from scorer.rules import PRESETS
from web import access, entries, i18n

bp = Blueprint("control", __name__)


def _page(template: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    service = current_app.config["SERVICE"]
    return render_template(
        template, state=service.state_json(), status=service.status(), words=i18n.words(),
        lang=str(get_locale()), logged_in=access.logged_in(), presets=list(PRESETS),
        access_problems=access.problems(),
        suggested_pin=f"{secrets.randbelow(10 ** access.PIN_DIGITS):0{access.PIN_DIGITS}d}",
        seats=SEATS, cards=CARD_CODES, game_id=service.game_id, **extra), status


@bp.get("/control")
def panel() -> Any:
    return _page("control.html")


@bp.post("/control/login")
def login() -> Any:
    """Check the PIN once; the session then carries it (refusals count against
    the rate limit)."""
    if current_app.config["SERVICE"].game_id is None:
        return redirect(url_for("control.setup"))
    try:
        if not access.log_in(request.form.get("pin", ""), request.form.get("author", "")):
            return _page("control.html", 403, error=_("wrong PIN"))
    except access.PinLocked as exc:
        return _locked(exc)
    return redirect(url_for("control.panel"))


def _locked(exc: access.PinLocked, template: str = "control.html", **extra: Any) -> Any:
    page, status = _page(template, 429, error=exc.message(), **extra)
    return page, status, {"Retry-After": str(exc.seconds)}


@bp.post("/control/logout")
def logout() -> Any:
    """End the session here and on the server: the cookie no longer opens anything."""
    access.log_out()
    return redirect(url_for("control.panel"))


@bp.post("/control/show-pin")
def show_pin() -> Any:
    """Show the PIN on the score display, for the players at the table: only
    someone who types the PIN may (the PIN is kept as a hash: the one typed is
    the one shown)."""
    pin = request.form.get("pin", "")
    try:
        if not access.check_pin(pin):
            return _page("control.html", 403, error=_("wrong PIN"))
    except access.PinLocked as exc:
        return _locked(exc)
    current_app.config["SERVICE"].bus.publish("display", {"kind": "show_pin",
                                                          "pin": pin.strip()})
    flash(_("The PIN is on the score display."))
    return redirect(url_for("control.panel"))


@bp.route("/setup", methods=["GET", "POST"])
def setup() -> Any:
    """Start a game: names, target, rules and settings, direction, dealer, PIN.
    Starting a new game while one exists needs that game's PIN."""
    service = current_app.config["SERVICE"]
    if request.method == "GET":
        return _page("setup.html", form={})
    form = request.form
    try:
        if service.game_id is not None and not access.logged_in() \
                and not access.check_pin(form.get("current_pin")):
            return _page("setup.html", 403, form=form,
                         error=_("starting a new game needs the current game's PIN"))
    except access.PinLocked as exc:
        return _locked(exc, "setup.html", form=form)
    try:
        started, pin = entries.read_start(form)
        author = form.get("author", "").strip()[:40] or _("organiser")
        game_id = service.start_game(started, source="web", author=author)
    except ValueError as exc:
        return _page("setup.html", 400, form=form, error=i18n.refusal(str(exc)))
    access.remember_new_game(game_id, pin, author)
    return redirect(url_for("control.panel"))
