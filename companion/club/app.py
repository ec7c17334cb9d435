"""The club server's pages (Flask), on the same conventions as the table's
(``web``): French first (Flask-Babel, the club's own catalog beside the
table's), everything served from here (no CDN, no inline script), CSRF on
every form, the organiser's changes behind a PIN.

``create_app({"CLUB": ClubServer, "ORGANISER_PIN": "1234"})``; serve it with
``web.serve``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

HERE = Path(__file__).resolve().parent
WEB = HERE.parent.parent / "web"


def create_app(config: dict[str, Any] | None = None) -> Flask:
    import threading

    from companion.club import pages
    from web import _security_headers, _select_locale

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
    )
    if config:
        app.config.update(config)
    if app.config.get("CLUB") is None:
        raise ValueError("create_app: config['CLUB'] must be the club server")
    Babel(app, locale_selector=_select_locale)
    CSRFProtect(app)
    app.extensions["belote_stop"] = threading.Event()
    app.register_blueprint(pages.bp)
    app.after_request(_security_headers)
    return app
