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
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, request, session
from flask_babel import Babel
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

    ``config`` keys: ``SECRET_KEY`` (by default made once and kept with the
    PINs, so organisers stay logged in across restarts), ``PIN_FILE`` (where
    table PINs are kept; beside the store's database by default), ``PIN``
    (the PIN of a game started elsewhere, e.g. by the demo),
    ``PIN_MAX_FAILURES`` and ``PIN_LOCKOUT_S`` (wrong PINs before the table
    refuses every PIN, and for how long at first; see ``web.access``),
    ``MAX_STREAMS`` (event streams open at once).
    """
    from web import access, api, control, history, live, stats

    app = Flask(__name__, instance_relative_config=False)
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        BABEL_DEFAULT_LOCALE="fr",
        BABEL_TRANSLATION_DIRECTORIES=str(HERE / "translations"),
        PIN_MAX_FAILURES=5,
        PIN_LOCKOUT_S=60,
        # Event streams open at once (each holds a server thread; see serve()).
        MAX_STREAMS=150,
        # Refused (413) before the body is read; the server refuses it earlier still.
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        MAX_FORM_MEMORY_SIZE=MAX_BODY_BYTES,
        MAX_FORM_PARTS=200,
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
    app.extensions["belote_csrf"] = csrf
    # Set when the server closes, so open event streams end promptly.
    app.extensions["belote_stop"] = threading.Event()
    app.extensions["belote_streams"] = live.StreamCount()
    # Tells this run's event ids from those of a run before a restart.
    app.extensions["belote_boot"] = secrets.token_hex(4)
    access.init_app(app, keep_secret_key=bool(config and config.get("SECRET_KEY")))

    app.register_blueprint(live.bp)
    app.register_blueprint(control.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stats.bp)
    # API clients authenticate with the PIN header, not a cookie, so CSRF does
    # not apply to them; a cookie-authenticated call is checked in access.py.
    csrf.exempt(api.bp)
    app.after_request(_security_headers)
    # A disk that refuses to write (full, read-only) is said, never a bare 500.
    app.register_error_handler(sqlite3.OperationalError, _storage_fault)
    from companion.store import StoreFaultError

    app.register_error_handler(StoreFaultError, _storage_fault)
    return app


def _storage_fault(exc: Exception) -> Any:
    """503 saying what is wrong with the disk and what to do (French by
    default): JSON for the API, a line of text for a page. Any other
    database error stays a server error."""
    from flask import Response, current_app, jsonify

    from companion.store import StoreFaultError, fault_kind
    from web import i18n

    service = current_app.config["SERVICE"]
    kind: str | None
    if isinstance(exc, StoreFaultError):
        kind, detail = exc.kind, exc.detail
    else:
        kind, detail = fault_kind(exc, service.store.path), str(exc)
        if kind is None:
            raise exc
    log.error("storage fault (%s): %s", kind, detail)
    storage = {**service.storage(), "fault": kind, "detail": detail}
    message = i18n.storage_message(storage)
    if request.path.startswith("/api/"):
        return jsonify({"error": message, "storage": storage}), 503
    return Response(message, 503, mimetype="text/plain; charset=utf-8")


# How the server holds a club night (benchmarks/web.py measures it; README):
# every live stream holds a worker thread, so the threads are the streams'
# cap plus room for page loads and the organiser; idle and half-sent
# connections hold no thread (waitress keeps them in its event loop), so the
# connection limit is set far above the streams and idle ones are closed soon.
STREAM_ROOM = 16          # threads kept free of streams for pages and the API
CONNECTION_LIMIT = 1000   # open sockets at once (poll(), not select(): no 1024 cap)
IDLE_TIMEOUT_S = 10       # an idle connection, or one that never sent a byte, is closed
REQUEST_TIMEOUT_S: float | None = 10  # a request still arriving this long after its
                          # first byte (sent a byte at a time, never finished) is closed
CLEANUP_INTERVAL_S = 2    # how often idle connections are looked for
# A handful of addresses cannot keep the page from its players (issue 74;
# benchmarks/web.py, hostile addresses): a browser needs a few connections, so
# one address holds 16 at most; the last NEW_VISITOR_ROOM places are kept for
# addresses holding fewer than NEW_VISITOR_FEW; and with every place taken, a
# newcomer takes the place of the oldest idle connection of the address that
# holds the most. Loopback (a proxy on the Pi, the tests) is not capped.
PER_ADDRESS_LIMIT = 16
NEW_VISITOR_ROOM = 100
NEW_VISITOR_FEW = 4
# A connection refused for its address holding PER_ADDRESS_LIMIT already is held
# open, unanswered, this long before it is closed (HELD_BACK_MOST at once): a peer
# that comes back as soon as it is refused would keep the server busy refusing it.
HELD_BACK_S = 10.0
HELD_BACK_MOST = 1000
UNCAPPED = ("127.0.0.1", "::1")
# Request bodies: a form or a JSON entry is a few hundred bytes; anything larger
# is refused from its Content-Length (or as it arrives, when chunked) before the
# body is read, so a huge post cannot grow the process.
MAX_BODY_BYTES = 64 * 1024
# A watcher whose Wi-Fi vanished acknowledges nothing: the kernel drops the
# connection once data has waited this long unacknowledged (Linux), and the
# stream's heartbeat (web.live) makes sure there is data to wait.
UNACKED_TIMEOUT_MS = 6000


def _enough_files(wanted: int) -> None:
    """Raise this process's open-file limit towards ``wanted`` (each connection
    is a file; systemd starts a service at 1024), as far as its hard limit allows."""
    try:
        import resource
    except ImportError:  # not a Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _socket_options() -> list[tuple[int, int, int]]:
    import socket

    options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
               (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_USER_TIMEOUT", UNACKED_TIMEOUT_MS), ("TCP_KEEPIDLE", 5),
                        ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


class Places:
    """The connections each address holds open, counted as channels open and
    close (so that a refusal costs little, however many are open)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str | None, int] = {}

    def add(self, host: str | None) -> None:
        with self._lock:
            self._held[host] = self._held.get(host, 0) + 1

    def remove(self, host: str | None) -> None:
        with self._lock:
            left = self._held.get(host, 0) - 1
            if left > 0:
                self._held[host] = left
            else:
                self._held.pop(host, None)

    def held(self, host: str | None) -> int:
        return self._held.get(host, 0)

    def taken(self) -> int:
        with self._lock:
            return sum(self._held.values())


def _host(channel: Any) -> str | None:
    addr = getattr(channel, "addr", None)
    return str(addr[0]) if isinstance(addr, tuple) else None


class HeldBack:
    """Connections refused and held open unanswered for ``seconds`` before they
    are closed, ``most`` at once (more are closed at once)."""

    def __init__(self, seconds: float, most: int) -> None:
        import collections

        self.seconds, self.most = seconds, most
        self._held: collections.deque[tuple[float, Any]] = collections.deque()

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, conn: Any) -> None:
        import time

        if self.seconds <= 0 or len(self._held) >= self.most:
            conn.close()
        else:
            self._held.append((time.time() + self.seconds, conn))

    def expire(self, now: float) -> None:
        while self._held and self._held[0][0] <= now:
            with contextlib.suppress(OSError):
                self._held.popleft()[1].close()

    def close(self) -> None:
        self.expire(float("inf"))


OVER, FULL, ADMITTED = "over", "full", ""


def _admit(server: Any, host: str | None, limit: int, uncapped: tuple[str, ...],
           places: int, room: int, few: int) -> str:
    """May a new connection from ``host`` have a place? ``ADMITTED``, or why not:
    ``OVER`` (its address holds ``limit``), ``FULL``. Counts the places taken
    by each address; with every place taken, closes the oldest idle connection
    of the address that holds the most, to make room."""
    counted: Places | None = getattr(server, "belote_places", None)
    channels: list[Any] = []
    if counted is not None:
        held, taken = counted.held(host), counted.taken()
    else:
        channels = [ch for ch in list(server.active_channels.values())
                    if hasattr(ch, "requests")]
        held, taken = sum(1 for ch in channels if _host(ch) == host), len(channels)
    capped = host is not None and host not in uncapped
    if capped and held >= limit:
        return OVER
    if capped and taken >= places - room and held >= few:
        return FULL  # the last places are for new visitors
    if taken < places:
        return ADMITTED
    channels = channels or [ch for ch in list(server.active_channels.values())
                            if hasattr(ch, "requests")]
    counts: dict[str | None, int] = {}
    for ch in channels:
        counts[_host(ch)] = counts.get(_host(ch), 0) + 1
    idle = [ch for ch in channels if not ch.requests and not ch.will_close]
    if not idle:
        return FULL
    victim = max(idle, key=lambda ch: (counts[_host(ch)], -ch.last_activity))
    if counts[_host(victim)] <= held + 1:
        return FULL  # nobody holds more than the newcomer would
    victim.handle_close()
    return ADMITTED


def _cap_per_address(server: Any, limit: int, uncapped: tuple[str, ...],
                     accepted: list[Any], places: int | None = None, room: int = 0,
                     few: int = NEW_VISITOR_FEW, held_back: HeldBack | None = None) -> None:
    """Close, as soon as it is accepted, a connection from an address that
    already holds ``limit`` of them, or, once all but ``room`` of the server's
    ``places`` are taken, one that holds ``few``; with every place taken, a
    newcomer takes the place of an idle connection of the address holding the
    most (waitress's own accept, with these checks). A connection refused for
    its address holding ``limit`` goes to ``held_back`` (when given). Every
    connection accepted and still open is kept in ``accepted``."""
    total = places if places is not None else int(server.adj.connection_limit)

    def handle_accept() -> None:
        try:
            pair = server.accept()
        except OSError:
            return  # the peer left before we got to it: nothing to serve
        if pair is None:
            return
        conn, addr = pair
        addr = server.fix_addr(addr)
        host = str(addr[0]) if isinstance(addr, tuple) else None
        refused = _admit(server, host, limit, uncapped, total, room, few)
        if refused:  # refused first, at the least cost: a refused peer may come back
            if refused == OVER and held_back is not None:
                held_back.hold(conn)
            else:
                conn.close()
            return
        if len(accepted) > len(server._map) + 64:
            accepted[:] = [c for c in accepted if c.fileno() != -1]
        accepted.append(conn)
        try:
            server.set_socket_options(conn)
        except OSError:
            conn.close()  # gone already: closed here, not left to the garbage collector
            return
        server.channel_class(server, conn, addr, server.adj, map=server._map)

    server.handle_accept = handle_accept


def _close_slow_requests(server: Any, timeout: float | None) -> None:
    """Besides waitress's idle close: a request still arriving ``timeout``
    seconds after its first byte (a byte at a time, never finished) is closed;
    connections held back long enough are closed."""
    idle_close = server.maintenance

    def maintenance(now: float) -> None:
        idle_close(now)
        held_back: HeldBack | None = getattr(server, "belote_held_back", None)
        if held_back is not None:
            held_back.expire(now)
        if timeout is None:
            return
        for channel in list(server.active_channels.values()):
            began = getattr(channel, "request_began", None)
            if (channel.request is not None and not channel.requests and began is not None
                    and now - began > timeout):
                channel.will_close = True

    server.maintenance = maintenance


def _channel_class() -> type:
    """waitress's channel, noting when each request's first byte came."""
    import time

    from waitress.channel import HTTPChannel

    class Channel(HTTPChannel):
        request_began: float | None = None
        counted: Places | None = None

        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any,
                     map: Any = None) -> None:  # noqa: A002 (waitress's name)
            super().__init__(server, sock, addr, adj, map=map)
            self.counted = getattr(server, "belote_places", None)
            if self.counted is not None:
                self.counted.add(_host(self))

        def del_channel(self, map: Any = None) -> None:  # noqa: A002
            counted, self.counted = self.counted, None
            if counted is not None:
                counted.remove(_host(self))
            super().del_channel(map)

        def received(self, data: bytes) -> bool:
            if self.request is None and data:
                self.request_began = time.time()
            return bool(super().received(data))

    return Channel


class Server:
    """A waitress server running in a background thread; ``close()`` stops it."""

    def __init__(self, app: Flask, host: str, port: int, threads: int) -> None:
        from waitress.server import TcpWSGIServer, create_server

        self.app = app
        # Room for every connection besides the camera, the store and the model.
        _enough_files(CONNECTION_LIMIT + HELD_BACK_MOST + 1024)
        self._server = create_server(
            app, host=host, port=port, threads=threads, ident="belote-table",
            # Places are counted (and made room for) in _cap_per_address; waitress's
            # own limit, which stops accepting altogether, is kept out of reach.
            connection_limit=CONNECTION_LIMIT + 16, asyncore_use_poll=True,
            channel_timeout=IDLE_TIMEOUT_S, cleanup_interval=CLEANUP_INTERVAL_S,
            max_request_body_size=MAX_BODY_BYTES, max_request_header_size=16 * 1024,
            # Keep reading a socket while its request runs, so a stream learns
            # at once that its watcher closed the connection.
            channel_request_lookahead=1,
            # A watcher's phone leaving the Wi-Fi is ordinary: no traceback in the log.
            log_socket_errors=False)
        # Set on each accepted connection (not a keyword of create_server).
        self._server.adj.socket_options = _socket_options()
        self._accepted: list[Any] = []
        loop: Any = self._server
        loop.channel_class = _channel_class()
        loop.belote_places = Places()
        self._held_back = loop.belote_held_back = HeldBack(HELD_BACK_S, HELD_BACK_MOST)
        _cap_per_address(loop, PER_ADDRESS_LIMIT, UNCAPPED, self._accepted,
                         places=CONNECTION_LIMIT, room=NEW_VISITOR_ROOM,
                         held_back=self._held_back)
        _close_slow_requests(loop, REQUEST_TIMEOUT_S)
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
        # A connection the loop accepted while the map was being emptied (a browser
        # opening one more) is closed now that the loop is over, not left to the collector;
        # so is any accepted socket a channel let go of without closing it.
        wasyncore.close_all(server._map)
        for conn in self._accepted:
            with contextlib.suppress(OSError):
                conn.close()
        self._accepted.clear()
        self._held_back.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8000,
          threads: int | None = None) -> Server:
    """Serve ``app`` with waitress in a thread; ``port=0`` picks a free port
    (read it back from ``.port``). Binds to 127.0.0.1 unless told otherwise.
    ``threads`` defaults to the app's ``MAX_STREAMS`` plus room for pages."""
    if app.debug:
        raise RuntimeError("refusing to serve a Flask app in debug mode")
    if threads is None:
        threads = int(app.config["MAX_STREAMS"]) + STREAM_ROOM
    # Keep some threads for page loads and the organiser while watchers stream.
    app.config["MAX_STREAMS"] = min(int(app.config["MAX_STREAMS"]),
                                    max(1, threads - STREAM_ROOM))
    # A server closed before (its streams ended) must not end this one's streams.
    app.extensions["belote_stop"].clear()
    server = Server(app, host, port, threads)
    log.info("web page at %s", server.url)
    return server
