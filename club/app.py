"""The club server's pages (Flask), on the same conventions as the table's
(``web``): French first (Flask-Babel, the club's own catalog beside the
table's), everything served from here (no CDN, no inline script), CSRF on
every form, the organiser's changes behind a PIN.

``create_app(club_server, {"ORGANISER_PIN": "24681357"})``; serve it with
``web.serve``. Its pages are the table's (``web``) in the club's frame: the same
styles, the table's catalog behind the club's, the table's season page.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask
from flask_babel import Babel, gettext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

if TYPE_CHECKING:
    from club.server import ClubServer

HERE = Path(__file__).resolve().parent


def create_app(club: ClubServer, config: dict[str, Any] | None = None) -> Flask:
    """The club's pages around ``club``, the running club server; the views find
    it as ``config["CLUB"]``. ``config``: ``ORGANISER_PIN`` (the organiser's
    changes need it; kept as a scrypt hash beside the club's file, so that
    without one the PIN kept from before is asked), ``PIN_MAX_FAILURES`` and
    ``PIN_LOCKOUT_S`` (the table's lockout: wrong PINs before every PIN is
    refused, and for how long at first, doubling), ``PIN_RATE_LIMIT`` (wrong
    PINs allowed per address besides, default ``"10 per minute"``),
    ``SECRET_KEY`` (random per start when absent)."""
    import threading

    import web
    from club import pages
    from web import _security_headers, _select_locale

    WEB = Path(web.__file__).resolve().parent

    app = Flask(__name__, template_folder=str(HERE / "templates"),
                static_folder=str(WEB / "static"), static_url_path="/static")
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        BABEL_DEFAULT_LOCALE="fr",
        # The club's words first, then the table's (seats, trumps...).
        BABEL_TRANSLATION_DIRECTORIES=f"{HERE / 'translations'};{WEB / 'translations'}",
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=64 * 1024,
        MAX_STREAMS=8,
        PIN_RATE_LIMIT="10 per minute",
        PIN_MAX_FAILURES=5,
        PIN_LOCKOUT_S=60,
    )
    if config:
        if "CLUB" in config:
            raise TypeError("create_app: the club server is its first argument, "
                            "not config['CLUB']")
        app.config.update(config)
    app.config["CLUB"] = club
    # The organiser's PIN as the table's: a hash kept beside the club's file, the
    # table's lockout; the PIN itself is not kept, not even in the config.
    from web.access import GuardedPin

    organiser = GuardedPin(getattr(club.store, "path", None),
                           max_failures=int(app.config["PIN_MAX_FAILURES"]),
                           lockout_s=float(app.config["PIN_LOCKOUT_S"]))
    given = app.config.pop("ORGANISER_PIN", None)
    if given:
        organiser.set(str(given))
    app.extensions["club_organiser_pin"] = organiser
    Babel(app, locale_selector=_select_locale)
    CSRFProtect(app)
    app.extensions["belote_stop"] = threading.Event()
    app.register_blueprint(pages.bp)
    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://")
    # Wrong organiser PINs (403) are counted per address, as the table's PIN;
    # the wrapper checks the limit, so the app must call it.
    limited: Any = limiter.limit(
        app.config["PIN_RATE_LIMIT"], methods=["POST"],
        deduct_when=lambda response: response.status_code == 403,
        error_message=lambda: gettext("too many PIN attempts: wait a minute and try again"),
    )(app.view_functions["club.login"])
    app.view_functions["club.login"] = limited
    app.after_request(_security_headers)
    return app
