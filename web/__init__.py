"""The club's web page: live table, history, set-up, corrections, API, SSE.

``create_app(service, config)`` builds the Flask application around a running
``companion.service.TableService``, which brings its store and bus: the web
page is given them, it never opens a table of its own. ``serve(app)`` runs it
with waitress in a background thread. Everyone on the club's network
may watch; every change needs the table's PIN.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, request, session
from flask_babel import Babel
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

if TYPE_CHECKING:
    from companion.service import TableService

HERE = Path(__file__).resolve().parent
LANGUAGES = ("fr", "en")

log = logging.getLogger(__name__)


def _select_locale() -> str:
    """French unless the visitor chose English (``?lang=en`` or the cookie it sets)."""
    choice = request.args.get("lang") or session.get("lang")
    return choice if choice in LANGUAGES else "fr"


# Everything comes from this server: no CDN, no inline script, no framing.
CONTENT_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                  " connect-src 'self'; frame-ancestors 'none'; form-action 'self'")


def _security_headers(response: Any) -> Any:
    response.headers.setdefault("Content-Security-Policy", CONTENT_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def create_app(service: TableService, config: dict[str, Any] | None = None) -> Flask:
    """Build the web application around ``service``, the running table (its
    store and bus come with it); the views find it as ``config["SERVICE"]``.

    ``config`` keys: ``SECRET_KEY`` (random per start when absent),
    ``PIN_FILE`` (where table PINs are kept; beside the store's database by
    default), ``PIN`` (the PIN of a game started elsewhere, e.g.
    by the demo), ``PIN_RATE_LIMIT`` (failed PIN attempts allowed, default
    ``"10 per minute"``), ``MAX_STREAMS`` (event streams open at once).
    """
    from web import access, api, control, history, live

    app = Flask(__name__, instance_relative_config=False)
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        BABEL_DEFAULT_LOCALE="fr",
        BABEL_TRANSLATION_DIRECTORIES=str(HERE / "translations"),
        PIN_RATE_LIMIT="10 per minute",
        # Event streams open at once (each holds a server thread; see serve()).
        MAX_STREAMS=64,
        # The PIN travels in a header for API clients; forms carry the token.
        WTF_CSRF_HEADERS=["X-CSRFToken"],
        WTF_CSRF_TIME_LIMIT=None,
        JSON_SORT_KEYS=False,
    )
    if config:
        if "SERVICE" in config:
            raise TypeError("create_app: the table service is its first argument, "
                            "not config['SERVICE']")
        app.config.update(config)
    app.config["SERVICE"] = service

    Babel(app, locale_selector=_select_locale)
    csrf = CSRFProtect(app)
    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://",
                      headers_enabled=True)
    app.extensions["belote_csrf"] = csrf
    app.extensions["belote_limiter"] = limiter
    # Set when the server closes, so open event streams end promptly.
    app.extensions["belote_stop"] = threading.Event()
    app.extensions["belote_streams"] = live.StreamCount()
    # Tells this run's event ids from those of a run before a restart.
    app.extensions["belote_boot"] = secrets.token_hex(4)
    access.init_app(app)

    app.register_blueprint(live.bp)
    app.register_blueprint(control.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(api.bp)
    # API clients authenticate with the PIN header, not a cookie, so CSRF does
    # not apply to them; a cookie-authenticated call is checked in access.py.
    csrf.exempt(api.bp)
    app.after_request(_security_headers)
    access.pin_rate_limit(app, api.bp, "control.login", "control.setup")
    return app


class Server:
    """A waitress server running in a background thread; ``close()`` stops it."""

    def __init__(self, app: Flask, host: str, port: int, threads: int) -> None:
        from waitress.server import TcpWSGIServer, create_server

        self.app = app
        # One worker thread per open event stream: leave room for 50 watchers
        # and the organiser's requests.
        self._server = create_server(app, host=host, port=port, threads=threads,
                                     channel_timeout=300, ident="belote-table")
        self.host = host
        # One host and port: waitress gives a TCP server, the one kind with a port.
        assert isinstance(self._server, TcpWSGIServer)
        self.port = int(self._server.getsockname()[1])
        self._thread = threading.Thread(target=self._run, name="web-server", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # The loop may raise OSError once close() has shut the sockets: a normal end.
        with contextlib.suppress(OSError):
            self._server.run()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def close(self) -> None:
        """Stop accepting, end open event streams, and wait for the loop to end."""
        self.app.extensions["belote_stop"].set()
        from waitress import wasyncore

        server: Any = self._server
        server.task_dispatcher.shutdown(timeout=3)
        # An empty socket map ends the server loop within its poll timeout.
        wasyncore.close_all(server._map)
        self._thread.join(timeout=5)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8000, threads: int = 80) -> Server:
    """Serve ``app`` with waitress in a thread; ``port=0`` picks a free port
    (read it back from ``.port``). Binds to 127.0.0.1 unless told otherwise."""
    if app.debug:
        raise RuntimeError("refusing to serve a Flask app in debug mode")
    # Keep some threads for page loads and the organiser while watchers stream.
    app.config["MAX_STREAMS"] = min(int(app.config["MAX_STREAMS"]), max(1, threads - 16))
    # A server closed before (its streams ended) must not end this one's streams.
    app.extensions["belote_stop"].clear()
    server = Server(app, host, port, threads)
    log.info("web page at %s", server.url)
    return server
