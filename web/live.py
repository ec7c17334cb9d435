"""The live table page (``/``) and its event stream (``/events``, Server-Sent Events).

The page draws itself from the state JSON: once from the copy embedded in the
page, then from every ``state`` message of the stream. The stream is a plain
streaming response fed by a bus subscription; each message carries the bus
sequence number as its SSE id, so a browser that lost the connection comes
back (EventSource retries by itself) with ``Last-Event-ID`` and is sent the
current state at once if it missed any.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    render_template,
    request,
)
from flask_babel import get_locale
from werkzeug.exceptions import HTTPException

from web import i18n, messages

bp = Blueprint("live", __name__)


@bp.app_context_processor
def _helpers() -> dict[str, Any]:
    """What every template uses to show codes in the visitor's language."""
    return {"team_name": i18n.team_name, "team_code": i18n.team_code,
            "preset_label": i18n.preset_label, "status_value": i18n.status_value,
            "entry_sentence": i18n.entry_sentence, "source_label": i18n.source_label,
            "number": i18n.number, "choices": i18n.choice_labels(),
            # French puts a space before a colon.
            "colon": " :" if i18n.is_french() else ":"}

# Topics forwarded to browsers; the display's own topic (the PIN) is not.
TOPICS = ("state", "status", "alert", "event")
# A comment line this often: it keeps proxies open, and it gives the kernel
# data to deliver, so a watcher that vanished without closing (a Wi-Fi blip)
# is found dead within seconds (web.UNACKED_TIMEOUT_MS) and its place freed.
KEEPALIVE_S = 2.0
RETRY_MS = 1000


def _sse(topic: str, data: Any, msg_id: str | None = None) -> str:
    # One JSON line: data never holds a newline, so no SSE field splitting is needed.
    head = f"id: {msg_id}\n" if msg_id is not None else ""
    return f"{head}event: {topic}\ndata: {json.dumps(data, default=str)}\n\n"


def _last_event_id() -> int:
    """The bus number the browser last got; 0 when it got nothing from this run
    of the server (ids carry a token of the run: the bus counts afresh on restart)."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_id") or ""
    boot, _, seq = raw.strip().rpartition("-")
    if boot != current_app.extensions["belote_boot"] or not seq.isdigit():
        return 0
    return int(seq)


@bp.app_errorhandler(HTTPException)
def _page_error(exc: HTTPException) -> Any:
    """A refused page in the visitor's language (the API answers JSON itself)."""
    if request.path.startswith("/api/"):
        return exc
    from flask_babel import gettext as _
    from flask_wtf.csrf import CSRFError

    message = (_("The page is out of date: go back, reload it and try again.")
               if isinstance(exc, CSRFError) else messages.http_reason(exc.code))
    return render_template("error.html", message=message,
                           lang=str(get_locale())), exc.code or 500


@bp.get("/")
def table() -> Any:
    service = current_app.config["SERVICE"]
    return render_template("live.html", state=service.state_json(), status=service.status(),
                           words=i18n.words(), lang=str(get_locale()))


bp.add_url_rule("/lang/<code>", "choose_language", i18n.choose_language)


class StreamCount:
    """Open event streams: each holds a server thread, so their number is
    capped below the server's threads and the organiser's requests still get in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def enter(self, limit: int) -> bool:
        with self._lock:
            if self.open >= limit:
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.open -= 1


@bp.get("/events")
def events() -> Response:
    service = current_app.config["SERVICE"]
    streams: StreamCount = current_app.extensions["belote_streams"]
    if not streams.enter(int(current_app.config["MAX_STREAMS"])):
        # The page's script tries again a little later (EventSource itself gives up).
        return Response("too many watchers, try again shortly\n", status=503,
                        mimetype="text/plain", headers={"Retry-After": "5"})
    bus = service.bus
    stop = current_app.extensions["belote_stop"]
    # Read now: the stream below runs after the request's context is gone.
    boot = current_app.extensions["belote_boot"]
    seen = _last_event_id()
    # True once the watcher closed the connection (waitress reads the socket
    # while the stream runs); other servers: a failed write ends the stream.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    # Subscribe before reading the snapshot, so nothing published in between is lost.
    sub = bus.subscribe()
    last_state = bus.last.get("state")
    snapshot_id = last_state.seq if last_state is not None else 0
    snapshot = service.state_json() if snapshot_id > seen or seen == 0 else None
    status = service.status()

    def stream() -> Iterator[str]:
        sent = max(seen, snapshot_id)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            if snapshot is not None:
                yield _sse("state", snapshot, f"{boot}-{sent}")
            yield _sse("status", status)
            quiet_since = time.monotonic()
            while not stop.is_set() and not gone():
                msg = sub.get(timeout=0.5)
                if msg is None:
                    if sub.closed:
                        return
                    if time.monotonic() - quiet_since > KEEPALIVE_S:
                        yield ": keepalive\n\n"
                        quiet_since = time.monotonic()
                    continue
                if msg.topic not in TOPICS or msg.seq <= sent:
                    continue
                sent = msg.seq
                quiet_since = time.monotonic()
                yield _sse(msg.topic, msg.data, f"{boot}-{msg.seq}")
        finally:
            sub.close()
            streams.leave()

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
