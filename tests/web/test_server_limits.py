"""The web server holds a club night: idle and half-sent connections, many live
streams and oversized posts leave the page answering (issue 28, defects 1, 4, 7).

Every test here uses real sockets against the real waitress server.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

import web


def _rss_mb() -> float:
    from pathlib import Path

    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _get(port: int, path: str, timeout: float = 5.0) -> tuple[int, float]:
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status, time.monotonic() - start
    finally:
        conn.close()


def _stream(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def _stream_opened(sock: socket.socket) -> bool:
    head = sock.recv(4096)
    return head.startswith(b"HTTP/1.1 200")


@pytest.fixture
def open_sockets() -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    yield socks
    for s in socks:
        s.close()


@pytest.mark.slow
# Under a 300-connection burst on a loaded machine the server may drop a socket its peer
# reset; should the collector finalise it during this test, that is no failure of
# what is tested here: the page answering.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_page_answers_within_a_second_with_200_idle_and_100_streams(
        server: Any, app: Any, open_sockets: list[socket.socket]) -> None:
    # 100 idle connections that never send a byte, 100 that sent half a request.
    for i in range(200):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        if i % 2:
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: t\r\n")
        open_sockets.append(sock)
    streams = [_stream(server.port) for _ in range(100)]
    open_sockets.extend(streams)
    assert all(_stream_opened(s) for s in streams)
    assert app.extensions["belote_streams"].open == 100
    for path in ("/", "/api/state", "/control"):
        status, took = _get(server.port, path)
        assert status == 200 and took < 1.0, (path, status, took)


@pytest.mark.slow
def test_idle_connections_are_closed_after_the_idle_timeout(
        server: Any, open_sockets: list[socket.socket]) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")  # never finished
    open_sockets.append(sock)
    sock.settimeout(web.IDLE_TIMEOUT_S + 2 * web.CLEANUP_INTERVAL_S + 3)
    start = time.monotonic()
    assert sock.recv(100) == b""  # the server closed it
    assert time.monotonic() - start < web.IDLE_TIMEOUT_S + 2 * web.CLEANUP_INTERVAL_S + 2


def test_a_vanished_watcher_frees_its_place_within_seconds(server: Any, app: Any) -> None:
    streams = app.extensions["belote_streams"]
    socks = [_stream(server.port) for _ in range(20)]
    assert all(_stream_opened(s) for s in socks)
    assert streams.open == 20
    for s in socks:
        s.close()
    start = time.monotonic()
    while streams.open and time.monotonic() - start < 10:
        time.sleep(0.05)
    # Nothing published meanwhile: the server found out by itself.
    assert streams.open == 0
    assert time.monotonic() - start < 3.0


def _post_big(port: int, total: int, chunked: bool = False) -> tuple[bytes, int]:
    """Send a form post of ``total`` bytes (or until the server closes); return
    the server's answer and how many body bytes it took."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = ("POST /control/login HTTP/1.1\r\nHost: t\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {total}\r\n\r\n"
    sock.sendall(head.encode())
    block = b"pin=" + b"1" * (1 << 20)
    sent = 0
    try:
        while sent < total:
            piece = block if not chunked else b"%x\r\n%s\r\n" % (len(block), block)
            sock.sendall(piece)
            sent += len(block)
    except OSError:
        pass  # the server answered and closed: it did not read the rest
    sock.settimeout(5)
    try:
        answer = sock.recv(200)
    except OSError:
        answer = b""
    sock.close()
    return answer, sent


@pytest.mark.slow
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_300_mb_post_is_refused_before_it_is_read(server: Any, chunked: bool) -> None:
    before = _rss_mb()
    answer, sent = _post_big(server.port, 300 << 20, chunked=chunked)
    grown = _rss_mb() - before
    assert grown < 20, f"server grew by {grown:.0f} MB"
    assert sent < 300 << 20 or answer.startswith(b"HTTP/1.1 413"), answer
    if answer:
        assert answer.startswith(b"HTTP/1.1 413"), answer
    # And the server still answers.
    assert _get(server.port, "/api/state")[0] == 200


def test_a_body_over_the_limit_is_413_and_one_under_it_is_read(client: Any) -> None:
    big = {"pin": "1" * (web.MAX_BODY_BYTES + 10)}
    assert client.post("/api/games", json=big).status_code == 413
    assert client.post("/api/games", json={"pin": "123456"}).status_code == 201


def test_streams_beat_every_2_s_on_sockets_that_drop_unacknowledged_data(
        server: Any, open_sockets: list[socket.socket]) -> None:
    """A watcher that vanished without closing (a Wi-Fi blip) acknowledges
    nothing: the heartbeat gives the kernel data to send, and TCP_USER_TIMEOUT
    drops the connection once it has waited unacknowledged for a few seconds."""
    sock = _stream(server.port)
    open_sockets.append(sock)
    assert _stream_opened(sock)
    start = time.monotonic()
    got = b""
    while b": keepalive" not in got and time.monotonic() - start < 5:
        got += sock.recv(4096)
    assert b": keepalive" in got and time.monotonic() - start < web.live.KEEPALIVE_S + 1.5
    channels = [c for c in server._server._map.values() if hasattr(c, "requests")]
    assert channels
    for channel in channels:
        assert channel.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == \
            web.UNACKED_TIMEOUT_MS


def test_one_address_cannot_hold_the_servers_connections(
        server: Any, open_sockets: list[socket.socket]) -> None:
    # Loopback is not capped as served (a proxy on the Pi); cap it here to test.
    web._cap_per_address(server._server, 5, uncapped=(), accepted=server._accepted)
    for _ in range(5):
        open_sockets.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
    time.sleep(0.3)
    extra = socket.create_connection(("127.0.0.1", server.port), timeout=3)
    open_sockets.append(extra)
    assert _answer(extra) == b""  # closed at once, nothing served
    open_sockets.pop(0).close()
    deadline = time.monotonic() + 3
    while True:  # once the server has seen one go, the address may connect again
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=3)
        open_sockets.append(sock)
        if _answer(sock).startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
            break
    assert time.monotonic() <= deadline


def _answer(sock: socket.socket) -> bytes:
    """The start of the answer to a request; b"" when the server closed the connection."""
    try:
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        return sock.recv(12)
    except (ConnectionResetError, BrokenPipeError):
        return b""


SILENT_WATCHERS = """
import socket, subprocess, tempfile, time
from pathlib import Path
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
import web
tmp = Path(tempfile.mkdtemp())
service = TableService(Store(tmp / "t.db"), Bus())
app = web.create_app(service, {"PIN_FILE": str(tmp / "p.json")})
srv = web.serve(app, port=0)
socks = []
for _ in range(5):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    s.sendall(b"GET /events HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n")
    s.recv(4096)
    socks.append(s)
streams = app.extensions["belote_streams"]
print("open", streams.open, flush=True)
# The watchers' network goes: nothing is closed, nothing is acknowledged.
subprocess.run(["ip", "link", "set", "lo", "down"], check=True)
t0 = time.monotonic()
while streams.open and time.monotonic() - t0 < 40:
    time.sleep(0.1)
print("freed", round(time.monotonic() - t0, 1), streams.open, flush=True)
"""


@pytest.mark.slow
def test_watchers_gone_silent_free_their_places_within_seconds() -> None:
    """A Wi-Fi blip: the watchers vanish without closing anything. Run in a
    network namespace of its own (``unshare -n``, root only), whose loopback
    is then taken down."""
    import os
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("needs root, unshare and ip (a network namespace to cut)")
    run = subprocess.run(["unshare", "-n", sys.executable, "-c", SILENT_WATCHERS],
                         capture_output=True, text=True, timeout=90,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    if "Operation not permitted" in run.stderr:
        pytest.skip("no network namespace here")
    assert "open 5" in run.stdout, run.stderr[-2000:]
    freed = run.stdout.split("freed ")[1].split()
    assert freed[1] == "0" and float(freed[0]) < 15, run.stdout
    assert "Traceback" not in run.stderr


def test_closing_the_server_closes_every_socket_it_accepted(server: Any) -> None:
    """A connection accepted and then let go of by its channel is closed by ``close()``,
    not left to the garbage collector (a ResourceWarning, an error under the tests)."""
    peer = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    deadline = time.monotonic() + 5
    while not server._accepted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server._accepted) == 1
    conn = server._accepted[0]
    # The channel forgets its socket without closing it.
    for channel in [c for c in server._server._map.values() if c.socket is conn]:
        channel.del_channel()
    server.close()
    assert conn.fileno() == -1 and not server._accepted
    peer.close()
