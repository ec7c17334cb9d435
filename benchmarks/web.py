"""Benchmark of the club's web page: 50 watchers on one server, and a club
night (idle sockets, half-sent requests, live streams and page loads at once)
on each candidate server, side by side.

Starts the real table service (SQLite file in a temporary folder), the Flask
app and the waitress server on 127.0.0.1, connects 50 Server-Sent-Events
clients (in a separate process, one socket each, so the clients do not share
the server's interpreter), publishes state messages the size of a game in
play, and measures the delay from ``bus.publish`` to the moment the last of
the 50 clients has read the message (median and 99th percentile). Then loads
the live page in Debian's chromium (when present) with the 50 clients still
connected and reports its load time.

The club night (``club_night`` in web.json) runs the same table service and
app in a server process of its own for each candidate: ``waitress`` as served
(``web.serve``: its connection, thread, idle and body limits), ``waitress-old``
(the settings before issue 28: 100 connections, idle ones kept 300 s, 80
threads) and ``gevent`` (gevent's WSGIServer, the server made for many
long-lived connections; it needs the whole process monkey-patched, which the
service's camera and serial threads would then share). Against each it holds
200 idle sockets (half of them a request cut in the middle) and 100 live
streams, then times page loads and ``/api/state`` (the page must answer
within 1 s), the delivery of state messages to the 100 streams, and the
server's memory.

Hostile addresses (``hostile_addresses`` in web.json, issue 74): 17 addresses
(loopback aliases 127.0.0.2 to 127.0.0.18) each try to hold 60 half-open
connections (connected, half of them a request cut in the middle), opening a
new one as soon as the server closes one, while visitors from 3 other
addresses load the page and ``/api/state`` over and over, each load a new
connection; it reports how many loads were answered (within 5 s) and how
fast, and how many connections the attackers held. 20 addresses in all,
against the server as served (``waitress``) and with the settings before
issue 74 (``waitress-issue28``: 64 connections an address, idle ones closed
after 15 s, no room kept for new visitors).

    .venv/bin/python benchmarks/web.py [--clients 50] [--messages 200]
        [--night-servers waitress,waitress-old,gevent] [--idle 200] [--streams 100]
        [--hostile-servers waitress,waitress-issue28] [--hostile-s 40]
    .venv/bin/python benchmarks/web.py --hostile-only   (that part alone, kept
        beside the other figures already in web.json)

Prints the figures and writes benchmarks/web.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = Path("/usr/bin/chromium")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def run_clients(port: int, clients: int, messages: int, timeout: float) -> None:
    """Child process: ``clients`` SSE connections; prints, as JSON, when each
    client read each benchmark message (time.monotonic is system-wide)."""
    sel = selectors.DefaultSelector()
    buffers: dict[int, bytes] = {}
    for i in range(clients):
        sock = socket.create_connection(("127.0.0.1", port))
        # HTTP/1.0: the server streams the body as it comes, without chunk framing.
        sock.sendall(b"GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                     b"Accept: text/event-stream\r\n\r\n")
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ, i)
        buffers[i] = b""
    print(json.dumps({"ready": clients}), flush=True)
    seen: dict[int, dict[int, float]] = {}
    deadline = time.monotonic() + timeout
    done = 0
    while done < clients * messages and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            data = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
            now = time.monotonic()
            if not data:
                sel.unregister(key.fileobj)
                continue
            buf = buffers[key.data] + data
            *frames, buffers[key.data] = buf.split(b"\n\n")
            for frame in frames:
                for line in frame.split(b"\n"):
                    if line.startswith(b"data: ") and b'"bench"' in line:
                        n = json.loads(line[6:])["bench"]
                        if key.data not in seen.setdefault(n, {}):
                            seen[n][key.data] = now
                            done += 1
    print(json.dumps({"seen": {str(k): v for k, v in seen.items()}}), flush=True)


# -- the club night, one server process per candidate ------------------------------------

NIGHT_SERVERS = ("waitress", "waitress-old", "gevent")
HOSTILE_SERVERS = ("waitress", "waitress-issue28")


def mid_hand_table(folder: Path) -> tuple[Any, Any]:
    """A store in ``folder`` and its table service, a game in the middle of a hand:
    the state messages have their real size."""
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.simulate import simulate_game

    store = Store(folder / "bench.db")
    service = TableService(store, Bus())
    events = simulate_game(5, hands=1)
    service.start_game(events[0], source="simulator")
    for e in events[1:20]:
        service.submit(e, source="simulator")
    return store, service


def serve_child(kind: str, camera: bool) -> None:
    """Child process: the table service, the app and a ``kind`` server on a free
    port; then, on each line of stdin, ``publish N INTERVAL`` (bench messages,
    answered with their publish times), ``rss`` or ``quit``."""
    if kind == "gevent":
        from gevent import monkey

        monkey.patch_all()
    import threading  # after the patching: gevent's threads are greenlets

    from web import create_app, serve

    store, service = mid_hand_table(Path(tempfile.mkdtemp()))
    app = create_app(service)
    before_74 = kind == "waitress-issue28"
    if before_74:
        import web

        # The connection settings before issue 74.
        web.PER_ADDRESS_LIMIT, web.IDLE_TIMEOUT_S, web.NEW_VISITOR_ROOM = 64, 15, 0
        web.REQUEST_TIMEOUT_S, web.HELD_BACK_S = None, 0
        kind = "waitress"
    if kind == "waitress":
        served = serve(app, port=0)
        port = served.port
        if before_74:
            # waitress stops accepting at its limit, before any place is made.
            served._server.adj.connection_limit = web.CONNECTION_LIMIT
    elif kind == "waitress-old":
        from waitress.server import create_server

        app.config["MAX_STREAMS"] = 64
        old = create_server(app, host="127.0.0.1", port=0, threads=80, channel_timeout=300)
        threading.Thread(target=old.run, daemon=True).start()
        port = int(old.effective_port)
    else:
        from gevent.pywsgi import WSGIServer

        app.config["MAX_STREAMS"] = 10_000
        server = WSGIServer(("127.0.0.1", 0), app, log=None)
        server.start()
        port = server.server_port
    state = service.state_json()
    camera_stop = threading.Event()
    camera_thread = None
    if camera:
        # The camera's frame loop in the same process, as `belote-table run` has it:
        # the card reader on a real table frame, ten times a second.
        from vision.imagefile import load_image
        from vision.reader import CardReader

        reader = CardReader(threads=1)
        frame = load_image(sorted((ROOT / "tests" / "vision" / "frames").glob("*.jpg"))[0])

        def camera_loop() -> None:
            while not camera_stop.is_set():
                reader.read(frame)
                time.sleep(0.1)

        camera_thread = threading.Thread(target=camera_loop, daemon=True)
        camera_thread.start()
    print(json.dumps({"port": port}), flush=True)
    if kind == "gevent":
        from gevent.fileobject import FileObjectThread

        lines: Any = FileObjectThread(sys.stdin)
    else:
        lines = sys.stdin
    for line in lines:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        if cmd[0] == "rss":
            print(json.dumps({"rss_mb": _rss_mb(os.getpid())}), flush=True)
        elif cmd[0] == "cpu":  # seconds of CPU this process has used
            import resource

            used = resource.getrusage(resource.RUSAGE_SELF)
            print(json.dumps({"cpu": used.ru_utime + used.ru_stime}), flush=True)
        elif cmd[0] == "channels":  # connections the server holds open
            print(json.dumps({"channels": len(_open_fds()) if sys.platform == "linux"
                              else None}), flush=True)
        elif cmd[0] == "publish":
            published = {}
            for n in range(int(cmd[1])):
                published[n] = time.monotonic()
                service.bus.publish("state", {**state, "bench": n})
                time.sleep(float(cmd[2]))
            print(json.dumps({"published": published}), flush=True)
    # Let the reader finish its frame: onnxruntime aborts if killed mid-run at exit.
    camera_stop.set()
    if camera_thread is not None:
        camera_thread.join(timeout=10)


def _open_fds() -> list[str]:
    """This process's open sockets (Linux)."""
    fds = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(fd).startswith("socket:"):
                fds.append(fd.name)
    return fds


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _timed_get(port: int, path: str, timeout: float = 5.0) -> float | None:
    """Milliseconds to a whole answer, or None when none came within ``timeout``."""
    import http.client

    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        if resp.status != 200:
            return None
        return (time.monotonic() - start) * 1000
    except OSError:
        return None
    finally:
        conn.close()


def club_night(kind: str, idle: int, streams: int, messages: int,
               interval: float, camera: bool) -> dict[str, Any]:
    """One candidate server under a club night (with the camera's frame loop
    running in the server's process when ``camera``); its figures."""
    server = subprocess.Popen([sys.executable, __file__, "--serve", kind,
                               *(["--camera"] if camera else [])],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None
    port = json.loads(server.stdout.readline())["port"]

    def ask(command: str) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(command + "\n")
        server.stdin.flush()
        answer: dict[str, Any] = json.loads(server.stdout.readline())
        return answer

    rss_start = ask("rss")["rss_mb"]
    socks = []
    for i in range(idle):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: t\r\n")
            socks.append(sock)
        except OSError:
            break
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", str(port), "--clients", str(streams),
         "--messages", str(messages)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    json.loads(child.stdout.readline())
    time.sleep(2.0)
    loads = [_timed_get(port, "/") for _ in range(10)]
    states = [_timed_get(port, "/api/state") for _ in range(10)]
    published = {int(k): v for k, v in ask(f"publish {messages} {interval}")["published"].items()}
    seen = {int(k): v for k, v in json.loads(child.stdout.readline())["seen"].items()}
    child.wait(timeout=60)
    rss_end = ask("rss")["rss_mb"]
    for sock in socks:
        sock.close()
    ask_quit = server.stdin
    ask_quit.write("quit\n")
    ask_quit.flush()
    server.wait(timeout=30)
    delays = [(max(got.values()) - published[n]) * 1000
              for n, got in seen.items() if len(got) == streams and n in published]
    delivered = sum(len(got) for got in seen.values())

    def summary(times: list[float | None]) -> dict[str, Any]:
        ok = [t for t in times if t is not None]
        return {"answered": len(ok), "of": len(times),
                "median_ms": round(statistics.median(ok), 1) if ok else None,
                "max_ms": round(max(ok), 1) if ok else None}

    return {"idle_sockets": len(socks), "streams": streams,
            "page": summary(loads), "api_state": summary(states),
            "streams_served": len({c for got in seen.values() for c in got}),
            "delivered": delivered, "expected": streams * messages,
            "all_streams_received_ms": {
                "median": round(statistics.median(delays), 2) if delays else None,
                "p99": round(percentile(delays, 99), 2) if delays else None},
            "server_rss_mb": {"start": rss_start, "end": rss_end}}


def hold_connections(port: int, addresses: list[str], each: int, seconds: float) -> None:
    """Child process, the attackers: ``each`` half-open connections from every
    one of ``addresses``, each one closed by the server opened again at once,
    for ``seconds``. Prints, as JSON, the connections held (sampled each
    second) and how many were opened in all."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    sel = selectors.DefaultSelector()
    opened = 0

    def connect(addr: str, i: int) -> None:
        nonlocal opened
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((addr, 0))
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", port))
        opened += 1
        sel.register(sock, selectors.EVENT_WRITE, (addr, i, False))

    for addr in addresses:
        for i in range(each):
            connect(addr, i)
    print(json.dumps({"ready": len(addresses) * each}), flush=True)
    held: list[int] = []
    end = time.monotonic() + seconds
    next_sample = time.monotonic() + 1
    while time.monotonic() < end:
        for key, _events in sel.select(timeout=0.2):
            sock = key.fileobj
            addr, i, connected = key.data
            assert isinstance(sock, socket.socket)
            if not connected:  # connecting: done, or refused
                gone = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0
                if not gone:
                    if i % 2:  # half a request, never finished
                        with contextlib.suppress(OSError):
                            sock.send(b"GET /api/state HTTP/1.1\r\nHost: t\r\n")
                    sel.modify(sock, selectors.EVENT_READ, (addr, i, True))
                    continue
            else:
                try:
                    gone = sock.recv(4096) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
            if gone:  # closed by the server: open another at once
                sel.unregister(sock)
                sock.close()
                connect(addr, i)
        if time.monotonic() >= next_sample:
            next_sample += 1
            held.append(sum(1 for k in sel.get_map().values() if k.data[2]))
    used = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"held": held, "opened": opened,
                      "cpu_s": used.ru_utime + used.ru_stime}), flush=True)
    for key in list(sel.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def _visit(port: int, addr: str, path: str, timeout: float = 5.0) -> float | None:
    """A visitor from ``addr``: milliseconds to a whole 200 answer on a new
    connection, or None when none came within ``timeout``."""
    start = time.monotonic()
    sock = None
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                        source_address=(addr, 0))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        while True:
            piece = sock.recv(1 << 16)
            if not piece:
                break
            data += piece
            if time.monotonic() - start > timeout:
                return None
        if not data.startswith(b"HTTP/1.1 200"):
            return None
        return (time.monotonic() - start) * 1000
    except OSError:
        return None
    finally:
        if sock is not None:
            sock.close()


def hostile_addresses(kind: str, seconds: float, attackers: int = 17, each: int = 60,
                      visitors: int = 3) -> dict[str, Any]:
    """One server under ``attackers`` addresses holding ``each`` half-open
    connections while ``visitors`` other addresses load the page; its figures."""
    import threading

    server = subprocess.Popen([sys.executable, __file__, "--serve", kind],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None
    port = json.loads(server.stdout.readline())["port"]
    bad = [f"127.0.0.{2 + i}" for i in range(attackers)]
    good = [f"127.0.0.{2 + attackers + i}" for i in range(visitors)]
    child = subprocess.Popen(
        [sys.executable, __file__, "--hold", str(port), "--hold-from", ",".join(bad),
         "--hold-each", str(each), "--hold-s", str(seconds)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    json.loads(child.stdout.readline())
    time.sleep(2.0)  # the attackers' connections are in

    def ask(command: str) -> Any:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(command + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())[command]

    cpu_start, t_start = ask("cpu"), time.monotonic()
    times: dict[str, list[float | None]] = {"/": [], "/api/state": []}
    lock = threading.Lock()
    stop = time.monotonic() + seconds - 4

    def visitor(addr: str) -> None:
        while time.monotonic() < stop:
            for path in times:
                took = _visit(port, addr, path)
                with lock:
                    times[path].append(took)
            time.sleep(0.2)

    threads = [threading.Thread(target=visitor, args=(a,)) for a in good]
    for t in threads:
        t.start()
    sockets = []  # the connections the server holds, sampled while the visitors visit
    while time.monotonic() < stop:
        time.sleep(1.0)
        sockets.append(ask("channels"))
    server_cpu = (ask("cpu") - cpu_start) / (time.monotonic() - t_start)
    for t in threads:
        t.join()
    held = json.loads(child.stdout.readline())
    child.wait(timeout=30)
    server.stdin.write("quit\n")
    server.stdin.flush()
    server.wait(timeout=30)

    def summary(values: list[float | None]) -> dict[str, Any]:
        ok = [t for t in values if t is not None]
        return {"answered": len(ok), "of": len(values),
                "median_ms": round(statistics.median(ok), 1) if ok else None,
                "p95_ms": round(percentile(ok, 95), 1) if ok else None,
                "max_ms": round(max(ok), 1) if ok else None}

    return {"attacker_addresses": attackers, "connections_tried_each": each,
            "visitor_addresses": visitors, "seconds": seconds,
            "page": summary(times["/"]), "api_state": summary(times["/api/state"]),
            "attackers_held": {"median": statistics.median(held["held"]) if held["held"]
                               else None, "max": max(held["held"], default=None)},
            "attacker_connections_opened": held["opened"],
            "attacker_cpu_s": round(held["cpu_s"], 1),
            "server_cpu_share": round(server_cpu, 2),
            "server_sockets": {"median": statistics.median(sockets) if sockets else None,
                               "max": max(sockets, default=None)}}


def page_load(url: str, loads: int) -> dict[str, Any] | None:
    """Load the live page in chromium; time to load and to the first drawn state."""
    if not CHROMIUM.exists():
        return None
    from playwright.sync_api import sync_playwright

    times, drawn = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for _ in range(loads):
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            page.wait_for_function(
                "() => document.getElementById('conn').className.includes('ok')")
            nav = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
            timing = json.loads(nav)
            times.append(timing["loadEventEnd"] - timing["startTime"])
            drawn.append(timing["domContentLoadedEventEnd"] - timing["startTime"])
            context.close()
        browser.close()
    return {"load_ms_median": round(statistics.median(times), 1),
            "load_ms_max": round(max(times), 1),
            "dom_ready_ms_median": round(statistics.median(drawn), 1), "loads": loads}


def run_hostile(args: argparse.Namespace) -> dict[str, Any]:
    """The hostile addresses against each server asked for; printed and returned."""
    out: dict[str, Any] = {"machine": {"cpus": os.cpu_count(),
                                       "load_average_1min_at_start":
                                           round(os.getloadavg()[0], 2)}}
    for kind in filter(None, args.hostile_servers.split(",")):
        h = out[kind] = hostile_addresses(kind, args.hostile_s)
        print(f"hostile addresses, {kind}: {h['attacker_addresses']} addresses x "
              f"{h['connections_tried_each']} half-open connections (held median "
              f"{h['attackers_held']['median']}), {h['visitor_addresses']} visitors' "
              f"addresses: page answered {h['page']['answered']}/{h['page']['of']} "
              f"(median {h['page']['median_ms']} ms, max {h['page']['max_ms']} ms), "
              f"/api/state {h['api_state']['answered']}/{h['api_state']['of']}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--messages", type=int, default=200)
    ap.add_argument("--interval", type=float, default=0.02, help="seconds between messages")
    ap.add_argument("--loads", type=int, default=10, help="page loads in chromium")
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--serve", choices=NIGHT_SERVERS + HOSTILE_SERVERS[1:],
                    help=argparse.SUPPRESS)
    ap.add_argument("--hold", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--hold-from", default="", help=argparse.SUPPRESS)
    ap.add_argument("--hold-each", type=int, default=60, help=argparse.SUPPRESS)
    ap.add_argument("--hold-s", type=float, default=40, help=argparse.SUPPRESS)
    ap.add_argument("--hostile-servers", default=",".join(HOSTILE_SERVERS),
                    help="hostile addresses: servers, comma separated ('' for none)")
    ap.add_argument("--hostile-s", type=float, default=40,
                    help="hostile addresses: seconds each server is held")
    ap.add_argument("--hostile-only", action="store_true",
                    help="run the hostile addresses alone, keep web.json's other figures")
    ap.add_argument("--camera", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--night-servers", default=",".join(NIGHT_SERVERS),
                    help="club-night candidates, comma separated ('' for none)")
    ap.add_argument("--idle", type=int, default=200, help="club night: idle sockets")
    ap.add_argument("--streams", type=int, default=100, help="club night: live streams")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "web.json"))
    args = ap.parse_args(argv)
    if args.child:
        run_clients(args.child, args.clients, args.messages, timeout=120)
        return 0
    if args.serve:
        serve_child(args.serve, args.camera)
        return 0
    if args.hold:
        hold_connections(args.hold, args.hold_from.split(","), args.hold_each, args.hold_s)
        return 0
    load_at_start = round(os.getloadavg()[0], 2)
    hostile = run_hostile(args)
    if args.hostile_only:
        out = Path(args.out)
        kept = json.loads(out.read_text()) if out.exists() else {}
        kept["hostile_addresses"] = hostile
        out.write_text(json.dumps(kept, indent=2) + "\n")
        return 0

    from web import create_app, serve

    with tempfile.TemporaryDirectory() as tmp:
        store, service = mid_hand_table(Path(tmp))
        app = create_app(service)
        server = serve(app, port=0)
        state = service.state_json()
        size = len(json.dumps(state))
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", str(server.port), "--clients",
             str(args.clients), "--messages", str(args.messages)],
            stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        json.loads(child.stdout.readline())
        while service.bus.subscribers < args.clients:
            time.sleep(0.05)
        time.sleep(0.5)
        published: dict[int, float] = {}
        for n in range(args.messages):
            published[n] = time.monotonic()
            service.bus.publish("state", {**state, "bench": n})
            time.sleep(args.interval)
        seen = {int(k): v for k, v in json.loads(child.stdout.readline())["seen"].items()}
        child.wait(timeout=30)
        all_delays, each_delays, missing = [], [], 0
        for n, t0 in published.items():
            got = seen.get(n, {})
            missing += args.clients - len(got)
            if len(got) == args.clients:
                all_delays.append((max(got.values()) - t0) * 1000)
            each_delays.extend((t - t0) * 1000 for t in got.values())
        load = page_load(server.url + "/", args.loads)
        server.close()
        store.close()

    import importlib.util

    night: dict[str, Any] = {}
    kinds = [k for k in filter(None, args.night_servers.split(","))
             if k != "gevent" or importlib.util.find_spec("gevent")]
    if "gevent" in args.night_servers.split(",") and "gevent" not in kinds:
        print("club night, gevent: skipped (pip install 'belote-table[bench]')")
    for kind, camera in [(k, c) for k in kinds for c in (False, True)]:
        name = kind + (" + camera loop" if camera else "")
        night[name] = club_night(kind, args.idle, args.streams, 50, args.interval, camera)
        n = night[name]
        print(f"club night, {name}: {n['idle_sockets']} idle sockets + {args.streams} "
              f"streams: page answered {n['page']['answered']}/{n['page']['of']} "
              f"(median {n['page']['median_ms']} ms, max {n['page']['max_ms']} ms), "
              f"/api/state {n['api_state']['answered']}/{n['api_state']['of']}; "
              f"{n['streams_served']} streams served, delivered {n['delivered']}/"
              f"{n['expected']}, all received median "
              f"{n['all_streams_received_ms']['median']} ms; server "
              f"{n['server_rss_mb']['start']} -> {n['server_rss_mb']['end']} MB")

    result = {
        "clients": args.clients, "messages": args.messages, "message_bytes": size,
        "interval_ms": args.interval * 1000,
        "all_received_ms": {"median": round(statistics.median(all_delays), 2),
                            "p99": round(percentile(all_delays, 99), 2),
                            "max": round(max(all_delays), 2)},
        "each_client_ms": {"median": round(statistics.median(each_delays), 2),
                           "p99": round(percentile(each_delays, 99), 2)},
        "lost_deliveries": missing,
        "page_load": load,
        "club_night": night,
        "hostile_addresses": hostile,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    # Other work on the machine meanwhile: figures vary with it.
                    "load_average_1min_at_start": load_at_start,
                    "platform": platform.platform()},
    }
    print(f"{args.clients} SSE clients, {args.messages} state messages of {size} bytes:")
    print(f"  publish -> all {args.clients} received: median "
          f"{result['all_received_ms']['median']} ms, p99 {result['all_received_ms']['p99']} ms")
    print(f"  publish -> one client: median {result['each_client_ms']['median']} ms, "
          f"p99 {result['each_client_ms']['p99']} ms; lost deliveries: {missing}")
    if load:
        print(f"  live page load (chromium, {load['loads']} loads, {args.clients} watchers on): "
              f"median {load['load_ms_median']} ms, max {load['load_ms_max']} ms")
    else:
        print("  live page load: skipped (/usr/bin/chromium missing)")
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
