"""Who may change the table: anyone may watch, every change needs the table's PIN.

The PIN is chosen when a game starts (or given in the app config for a game
started elsewhere, or made up and logged when neither) and kept per game in a
small JSON file beside the event store, so a restart keeps it. API clients send
it in the ``X-Table-PIN`` header; the organiser's browser proves it once on the
control page and then carries a signed session cookie, checked together with
the CSRF token. Failed attempts are rate limited (see ``init_app``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import tempfile
import threading
from pathlib import Path
from typing import Any

from flask import Flask, current_app, request, session
from flask_babel import gettext as _

log = logging.getLogger(__name__)

PIN_HEADER = "X-Table-PIN"


class AccessDenied(Exception):
    """A change asked for without the right PIN (answered with 403)."""


class PinBook:
    """The PIN of each game, by game id, optionally kept in a JSON file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._pins: dict[str, str] = {}
        if path is not None and path.exists():
            self._pins = {str(k): str(v) for k, v in json.loads(path.read_text()).items()}

    def get(self, game_id: Any) -> str | None:
        with self._lock:
            return self._pins.get(str(game_id))

    def set(self, game_id: Any, pin: str) -> None:
        with self._lock:
            self._pins[str(game_id)] = pin
            if self.path is None:
                return
            # Write then rename, so a crash never leaves a half-written file.
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".pins-")
            with os.fdopen(fd, "w") as f:
                json.dump(self._pins, f)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)


def _default_pin_file(app: Flask) -> Path | None:
    if app.config.get("PIN_FILE"):
        return Path(app.config["PIN_FILE"])
    store = getattr(app.config["SERVICE"], "store", None)
    db = getattr(store, "path", None)
    if db is None or str(db) == ":memory:":
        return None
    return Path(str(db) + ".pins.json")


def init_app(app: Flask) -> None:
    """Attach the PIN book and the rate limit on failed PIN attempts."""
    app.extensions["belote_pins"] = PinBook(_default_pin_file(app))


def pin_rate_limit(app: Flask, *targets: Any) -> None:
    """Count only refused PIN attempts (403) against the visitor's address;
    past the limit every change is answered 429 until the window passes.
    ``targets`` are blueprints or endpoint names."""
    limiter = app.extensions["belote_limiter"]
    rule = limiter.shared_limit(
        app.config["PIN_RATE_LIMIT"], scope="pin", methods=["POST"],
        deduct_when=lambda response: response.status_code == 403,
        error_message=lambda: _("too many PIN attempts: wait a minute and try again"),
    )
    for target in targets:
        if isinstance(target, str):
            # A view: the limit is checked by the wrapper, so the app must call it.
            app.view_functions[target] = rule(app.view_functions[target])
        else:
            rule(target)


def service() -> Any:
    return current_app.config["SERVICE"]


def pins() -> PinBook:
    book: PinBook = current_app.extensions["belote_pins"]
    return book


def table_pin() -> str | None:
    """The current game's PIN (None when no game has been started)."""
    game_id = service().game_id
    if game_id is None:
        return None
    pin = pins().get(game_id)
    if pin is None:
        pin = current_app.config.get("PIN") or f"{secrets.randbelow(10000):04d}"
        pins().set(game_id, pin)
        if not current_app.config.get("PIN"):
            log.warning("game %s had no PIN: made one up; show it on the display "
                        "from the control page", game_id)
    return pin


def _token(game_id: Any, pin: str) -> str:
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, f"{game_id}:{pin}".encode(), hashlib.sha256).hexdigest()


def pin_matches(pin: str | None) -> bool:
    expected = table_pin()
    if expected is None or pin is None:
        return False
    return hmac.compare_digest(expected.encode(), pin.strip().encode())


def log_in(pin: str, author: str) -> bool:
    """Remember in the session that this browser knows the PIN."""
    if not pin_matches(pin):
        return False
    session["table"] = _token(service().game_id, table_pin() or "")
    session["author"] = author.strip()[:40] or _("organiser")
    return True


def remember_new_game(game_id: Any, pin: str, author: str) -> None:
    pins().set(game_id, pin)
    session["table"] = _token(game_id, pin)
    session["author"] = author.strip()[:40] or _("organiser")


def logged_in() -> bool:
    game_id = service().game_id
    pin = table_pin()
    return pin is not None and hmac.compare_digest(
        str(session.get("table", "")), _token(game_id, pin))


def authorise() -> str:
    """Allow a change, or raise ``AccessDenied``. Returns who is making it.

    With no game at all, anyone may start one (and set its PIN).
    """
    if service().game_id is None:
        return str(request.headers.get("X-Author") or session.get("author") or _("organiser"))
    header = request.headers.get(PIN_HEADER)
    if header is not None:
        if not pin_matches(header):
            raise AccessDenied(_("wrong PIN"))
        return str(request.headers.get("X-Author") or "api")[:40]
    if logged_in():
        # A cookie rides along on cross-site requests: insist on the CSRF token.
        current_app.extensions["belote_csrf"].protect()
        return str(session.get("author") or _("organiser"))
    raise AccessDenied(_("this change needs the table's PIN"))
