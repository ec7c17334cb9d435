"""The organiser's pages: PIN log-in, game set-up, and the table controls.

Set-up and log-in are plain HTML forms (CSRF token, server-side checks from
``web.entries``). The controls (bids, contract, belote, card entry and
correction, undo) are buttons that call the JSON API with the session cookie
and the CSRF token, and follow the table through the event stream.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping
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

from companion.store import StoreFaultError
from scorer.cards import CARD_CODES, SEATS
from scorer.events import GameStarted
from scorer.rules import CHOICES, PRESETS, Rules
from web import access, entries, i18n, messages

bp = Blueprint("control", __name__)


def _page(template: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    service = current_app.config["SERVICE"]
    return render_template(
        template, state=service.state_json(), status=service.status(), words=i18n.words(),
        lang=str(get_locale()), logged_in=access.logged_in(), presets=list(PRESETS),
        preset_descriptions=i18n.preset_descriptions(), setting_labels=i18n.setting_labels(),
        settings_fields=settings_fields(), access_problems=access.problems(),
        suggested_pin=f"{secrets.randbelow(10 ** access.PIN_DIGITS):0{access.PIN_DIGITS}d}",
        seats=SEATS, cards=CARD_CODES, game_id=service.game_id,
        table_pin=access.needs_pin(), **extra), status


# Settings the set-up form asks for in their own fields, not in "other settings".
OWN_FIELDS = ("game", "target", "clockwise", "hands", "minutes")


def settings_fields() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The rule settings the form offers: (name, "int" | "choice", [(value, label)])."""
    labels = i18n.choice_labels()
    out: list[tuple[str, str, list[tuple[str, str]]]] = []
    for f in dataclasses.fields(Rules):
        if f.name in OWN_FIELDS:
            continue
        default = getattr(Rules(), f.name)
        if isinstance(default, bool):
            out.append((f.name, "choice", [("true", _("yes")), ("false", _("no"))]))
        elif isinstance(default, int):
            out.append((f.name, "int", []))
        else:
            names = labels.get(f.name, {})
            out.append((f.name, "choice", [(v, names.get(v, v)) for v in CHOICES[f.name]]))
    return out


def form_start(form: Mapping[str, Any]) -> dict[str, Any]:
    """The set-up form as ``entries.read_start`` reads it: the ``set_<name>``
    fields, the number of hands and the time limit become rule settings."""
    data = {k: v for k, v in form.items() if not k.startswith("set_")}
    settings = entries.read_settings(form.get("settings"))
    for name, _kind, _choices in settings_fields():
        value = str(form.get("set_" + name, "")).strip()
        if value:
            settings[name] = value
    for name in ("hands", "minutes"):
        value = str(form.get(name, "")).strip()
        if value:
            settings[name] = value
    data["settings"] = settings
    return data


def last_game_form(service: Any) -> dict[str, str]:
    """The set-up form filled in as the last game was set up (names, rules,
    settings, direction), so that the next game starts from it."""
    games = service.store.games()
    if not games:
        return {}
    started = service.store.events(games[-1]["id"])[0].event
    if not isinstance(started, GameStarted):
        return {}
    form: dict[str, str] = {"rules": started.rules}
    for team, name in started.teams.items():
        if name and name != team:
            form[f"team_{team}"] = name
    for seat, name in started.players.items():
        form[f"player_{seat}"] = name
    own = {"target": "target", "hands": "hands", "minutes": "minutes"}
    for name, value in started.settings.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if name == "clockwise":
            form["direction"] = "clockwise" if value else "counterclockwise"
        elif name in own:
            form[own[name]] = text
        else:
            form["set_" + name] = text
    return form


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
    A table that has a PIN (a game open or finished, even before a restart)
    needs it for a new game, which keeps it unless a new one is given."""
    service = current_app.config["SERVICE"]
    if request.method == "GET":
        form = last_game_form(service)
        return _page("setup.html", form=form,
                     form_settings=any(k.startswith("set_") for k in form))
    form = request.form
    try:
        if access.needs_pin() and not access.logged_in() \
                and not access.check_pin(form.get("current_pin")):
            return _page("setup.html", 403, form=form,
                         error=_("starting a new game needs the current game's PIN"))
    except access.PinLocked as exc:
        return _locked(exc, "setup.html", form=form)
    try:
        previous = access.table_game()
        started, pin = entries.read_start(form_start(form), keep_pin=previous is not None)
        author = form.get("author", "").strip()[:40] or _("organiser")
        game_id = service.start_game(started, source="web", author=author)
    except entries.EntryError as exc:
        return _page("setup.html", 400, form=form, error=messages.human(exc, exc.field))
    except ValueError as exc:
        return _page("setup.html", 400, form=form, error=messages.human(exc))
    except StoreFaultError as exc:  # the disk refuses to write: said, and what to do
        return _page("setup.html", 503, form=form, error=i18n.storage_message(
            {**service.storage(), "fault": exc.kind, "detail": exc.detail}))
    access.remember_new_game(game_id, pin, author, previous)
    return redirect(url_for("control.panel"))
