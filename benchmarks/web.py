"""Benchmark of the club's web page: 50 watchers on one server.

Starts the real table service (SQLite file in a temporary folder), the Flask
app and the waitress server on 127.0.0.1, connects 50 Server-Sent-Events
clients (in a separate process, one socket each, so the clients do not share
the server's interpreter), publishes state messages the size of a game in
play, and measures the delay from ``bus.publish`` to the moment the last of
the 50 clients has read the message (median and 99th percentile). Then loads
the live page in Debian's chromium (when present) with the 50 clients still
connected and reports its load time.

    .venv/bin/python benchmarks/web.py [--clients 50] [--messages 200]

Prints the figures and writes benchmarks/web.json.
"""

from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--messages", type=int, default=200)
    ap.add_argument("--interval", type=float, default=0.02, help="seconds between messages")
    ap.add_argument("--loads", type=int, default=10, help="page loads in chromium")
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "web.json"))
    args = ap.parse_args(argv)
    if args.child:
        run_clients(args.child, args.clients, args.messages, timeout=120)
        return 0

    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.simulate import simulate_game
    from web import create_app, serve

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        service = TableService(store, Bus())
        events = simulate_game(5, hands=1)
        service.start_game(events[0], source="simulator")
        # A game in the middle of a hand: the state messages have their real size.
        for e in events[1:20]:
            service.submit(e, source="simulator")
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
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
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
