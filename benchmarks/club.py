"""Benchmark of the club server: how many events per second it stores, and the
delay from a table's store to the club's page with 50 tables at play speed.

1. ``store``: the club server's check-and-store path alone (each event
   verified against its game by the rules engine, batches of up to 500 in one
   transaction, ``synchronous=FULL``), fed with 50 tables' recorded games.
2. ``flood``: 50 tables publish their whole stored games at once through a
   real Mosquitto broker; events per second until the club holds them all.
3. ``play``: 50 simulated tables play at the table's pace (one event every
   ``--pace`` seconds, jittered), each through its own club link; a client
   follows the club screen as its script does (waits on ``/api/live`` for a
   change, then fetches the tables' grid), and the delay is from the moment
   the table stored an event to the first grid that shows it (each table's
   first seconds, while its link connects, left out).
4. ``scale``: the flood and the play again with ``--scale`` tables (200).

    .venv/bin/python benchmarks/club.py [--tables 50] [--seconds 40] [--pace 2] [--scale 200]

Prints the figures and writes benchmarks/club.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from club.broker import Broker  # noqa: E402
from club.server import ClubServer  # noqa: E402
from club.store import ClubStore  # noqa: E402
from companion.bus import Bus  # noqa: E402
from companion.club_link import ClubLink, event_payload, read_events  # noqa: E402
from companion.service import TableService  # noqa: E402
from companion.store import Store  # noqa: E402
from scorer.simulate import simulate_game  # noqa: E402

SEQ = re.compile(r'id="table-(\d+)" data-seq="(\d+)"')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def record_tables(folder: Path, tables: int, hands: int) -> dict[int, list[bytes]]:
    """Each table's store filled with a simulated game; their published forms."""
    out = {}
    for n in range(1, tables + 1):
        store = Store(folder / f"rec{n}.db")
        service = TableService(store, Bus())
        events = simulate_game(1000 + n, hands=hands)
        service.start_game(events[0], source="simulator")
        for e in events[1:]:
            service.submit(e, source="simulator")
        store.close()
        db = sqlite3.connect(folder / f"rec{n}.db")
        out[n] = [json.dumps(event_payload(n, r)).encode() for r in read_events(db, 0, 10**9)]
        db.close()
    return out


def bench_store(folder: Path, recorded: dict[int, list[bytes]]) -> dict[str, Any]:
    store = ClubStore(folder / "store.db")
    server = ClubServer(store, "bench")
    server.add_tables(sorted(recorded))
    # Interleaved as they would arrive from tables playing at once.
    stream = [(n, p) for i in range(max(map(len, recorded.values())))
              for n, ps in recorded.items() if i < len(ps) for p in [ps[i]]]
    t0 = time.perf_counter()
    for i in range(0, len(stream), 500):
        server._process(stream[i:i + 500])
    elapsed = time.perf_counter() - t0
    assert server.stored_count == len(stream), (server.stored_count, len(stream))
    store.close()
    return {"events": len(stream), "seconds": round(elapsed, 2),
            "events_per_s": round(len(stream) / elapsed)}


def bench_page(folder: Path, recorded: dict[int, list[bytes]],
               sizes: tuple[int, ...] = (50, 100, 200, 400)) -> list[dict[str, Any]]:
    """What the club screen costs the server as the club grows: the time to draw
    the tables' grid (``/fragment/tables``) with every table in a game, and the
    most grids per second one core could draw."""
    from club.app import create_app

    out = []
    games = list(recorded.values())
    for size in sizes:
        store = ClubStore(folder / f"page{size}.db")
        server = ClubServer(store, "bench")
        server.add_tables(list(range(1, size + 1)))
        for n in range(1, size + 1):
            body = games[(n - 1) % len(games)]
            server._process([(n, json.dumps({**json.loads(p), "table": n}).encode())
                             for p in body])
        client = create_app(server, {"ORGANISER_PIN": "0"}).test_client()
        times = []
        for _ in range(15):
            server._touch()  # a change: the grid is drawn again, not served from its cache
            t0 = time.perf_counter()
            html = client.get("/fragment/tables").get_data()
            times.append(time.perf_counter() - t0)
        assert html.count(b'class="club-table') == size
        ms = statistics.median(times) * 1000
        out.append({"tables": size, "grid_ms": round(ms, 1),
                    "grids_per_s_one_core": round(1000 / ms, 1)})
        store.close()
    return out


WARM_UP = 3.0  # seconds of each table's start left out of the delays
TABLES_PER_PROCESS = 50  # paho waits on select(): under 1024 sockets per process


def _groups(numbers: list[int]) -> list[list[int]]:
    return [numbers[i:i + TABLES_PER_PROCESS]
            for i in range(0, len(numbers), TABLES_PER_PROCESS)]


def _tables_worker(kind: str, folder: str, numbers: list[int], url: str,
                   passwords: dict[str, str], pace: float, seed: int, stop: Any,
                   results: Any) -> None:
    """Some of the simulated tables, in a process of their own (each is a Pi of
    its own at a real club): ``flood`` links the recorded stores, ``play``
    plays games at ``pace``; at ``stop`` each table's store times go back."""
    if kind == "flood":
        links = [ClubLink(Path(folder) / f"rec{n}.db", url, n, passwords[f"table{n}"],
                          club="bench", poll=0.05).start() for n in numbers]
        stop.wait()
        for link in links:
            link.stop()
        results.put({})
        return
    playing = [PlayingTable(Path(folder), n, url, passwords[f"table{n}"], pace, seed)
               for n in numbers]
    for t in playing:
        t.thread.start()
    stop.wait()
    for t in playing:
        t.stop.set()
    for t in playing:
        t.thread.join(timeout=5)
    out = {t.n: dict(t.stored_at) for t in playing}
    for t in playing:
        t.link.stop()
        t.store.close()
    results.put(out)


def _start_workers(kind: str, folder: Path, numbers: list[int], broker: Broker,
                   pace: float = 0.0, seed: int = 0) -> tuple[Any, Any, list[Any]]:
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    stop, results = ctx.Event(), ctx.Queue()
    workers = [ctx.Process(target=_tables_worker, daemon=True,
                           args=(kind, str(folder), group, broker.url, broker.passwords, pace,
                                 seed, stop, results)) for group in _groups(numbers)]
    for w in workers:
        w.start()
    return stop, results, workers


def _end_workers(stop: Any, results: Any, workers: list[Any]) -> dict[int, dict[int, float]]:
    stop.set()
    merged: dict[int, dict[int, float]] = {}
    for _ in workers:
        merged.update(results.get(timeout=120))
    for w in workers:
        w.join(timeout=30)
    return merged


def bench_flood(folder: Path, recorded: dict[int, list[bytes]]) -> dict[str, Any]:
    tables = sorted(recorded)
    broker = Broker(folder / "broker-flood", "bench", tables).start()
    store = ClubStore(folder / "flood.db")
    server = ClubServer(store, "bench", broker.url, broker.passwords["club"])
    server.add_tables(tables)
    server.connect()
    total = sum(len(p) for p in recorded.values())
    workers = None
    try:
        while not server.connected:
            time.sleep(0.05)
        workers = _start_workers("flood", folder, tables, broker)
        # From the first event stored: starting the tables' processes is not the club's time.
        deadline = time.perf_counter() + 300
        while server.stored_count == 0:
            if time.perf_counter() > deadline:
                raise SystemExit("flood: no event reached the club in 5 minutes")
            time.sleep(0.005)
        t0, first = time.perf_counter(), server.stored_count
        while server.stored_count < total:
            if time.perf_counter() > deadline:
                raise SystemExit("flood: the club did not get every event in 5 minutes")
            time.sleep(0.02)
        elapsed = time.perf_counter() - t0
        total -= first
    finally:
        if workers is not None:
            _end_workers(*workers)
        server.close()
        store.close()
        broker.stop()
    return {"events": total, "seconds": round(elapsed, 2),
            "events_per_s": round(total / elapsed)}


class PlayingTable:
    def __init__(self, folder: Path, n: int, url: str, password: str, pace: float,
                 seed: int) -> None:
        self.n = n
        self.db = folder / f"play{n}.db"
        self.store = Store(self.db)
        self.service = TableService(self.store, Bus())
        self.link = ClubLink(self.db, url, n, password, club="bench", poll=0.5).start()
        self.events = simulate_game(seed + n, hands=40)
        self.pace = pace
        self.rng = random.Random(seed * 7 + n)
        self.stored_at: dict[int, float] = {}  # seq -> time.monotonic() once stored
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.play, daemon=True)

    def play(self) -> None:
        self.service.start_game(self.events[0], source="simulator")
        self.stored_at[1] = time.monotonic()
        self.link.notify()
        seq = 1
        for e in self.events[1:]:
            if self.stop.wait(self.pace * self.rng.uniform(0.5, 1.5)):
                return
            self.service.submit(e, source="simulator")
            seq += 1
            self.stored_at[seq] = time.monotonic()
            self.link.notify()


def bench_play(folder: Path, tables: int, seconds: float, pace: float) -> dict[str, Any]:
    from club.app import create_app
    from web import serve

    numbers = list(range(1, tables + 1))
    broker = Broker(folder / "broker-play", "bench", numbers).start()
    store = ClubStore(folder / "play.db")
    server = ClubServer(store, "bench", broker.url, broker.passwords["club"])
    server.add_tables(numbers)
    server.connect()
    web = serve(create_app(server, {"ORGANISER_PIN": "0"}), port=0)
    shown: dict[tuple[int, int], float] = {}
    delays: list[float] = []
    polls = 0
    workers = None
    try:
        while not server.connected:
            time.sleep(0.05)
        # Each table's clock: time.monotonic() is the machine's, the same in every process.
        workers = _start_workers("play", folder, numbers, broker, pace, 77)
        t0 = time.monotonic()
        seen = dict.fromkeys(numbers, 0)
        version = -1
        while time.monotonic() - t0 < seconds:
            # As the club screen's script does: wait for a change, then fetch the
            # tables as the page shows them.
            with urllib.request.urlopen(f"{web.url}/api/live?after={version}", timeout=30) as r:
                version = json.load(r)["version"]
            with urllib.request.urlopen(web.url + "/fragment/tables", timeout=30) as r:
                html = r.read().decode()
            now = time.monotonic()
            polls += 1
            for n_text, seq_text in SEQ.findall(html):
                n, seq = int(n_text), int(seq_text)
                for s in range(seen[n] + 1, seq + 1):
                    shown[(n, s)] = now
                seen[n] = max(seen[n], seq)
    finally:
        stored_at = _end_workers(*workers) if workers is not None else {}
    # A table's first seconds are its link connecting: the steady state is what counts.
    began = {n: min(times.values()) for n, times in stored_at.items() if times}
    for (n, s), at in shown.items():
        stored = stored_at.get(n, {}).get(s)
        if stored is not None and stored >= began[n] + WARM_UP:
            delays.append(at - stored)
    events = sum(len(v) for v in stored_at.values())
    web.close()
    server.close()
    store.close()
    broker.stop()
    return {"tables": tables, "seconds": seconds, "pace_s": pace, "events_stored": events,
            "events_shown": len(delays), "page_updates": polls,
            "delay_p50_ms": round(statistics.median(delays) * 1000, 1),
            "delay_p99_ms": round(percentile(delays, 99) * 1000, 1),
            "delay_max_ms": round(max(delays) * 1000, 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--hands", type=int, default=4, help="hands per table for store and flood")
    p.add_argument("--seconds", type=float, default=40.0, help="length of the play run")
    p.add_argument("--pace", type=float, default=2.0, help="seconds between events at a table")
    p.add_argument("--scale", type=int, default=200,
                   help="then the same with this many tables, to see where it stops scaling "
                        "(0: not)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "club.json"))
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="belote-club-bench-") as tmp:
        folder = Path(tmp)
        recorded = record_tables(folder, args.tables, args.hands)
        store = bench_store(folder, recorded)
        print(f"store: {store['events']} events in {store['seconds']} s: "
              f"{store['events_per_s']} events/s")
        flood = bench_flood(folder, recorded)
        print(f"flood through mosquitto: {flood['events']} events from {args.tables} tables in "
              f"{flood['seconds']} s: {flood['events_per_s']} events/s")
        page = bench_page(folder, recorded)
        for row in page:
            print(f"club screen with {row['tables']} tables: {row['grid_ms']} ms to draw")
        play = bench_play(folder, args.tables, args.seconds, args.pace)
        print(f"play: {args.tables} tables, an event every {args.pace} s each: store -> club "
              f"page p50 {play['delay_p50_ms']} ms, p99 {play['delay_p99_ms']} ms "
              f"({play['events_shown']} events)")
    # The delays depend on what else the machine runs: say how loaded it was.
    scale = None
    if args.scale:
        with tempfile.TemporaryDirectory(prefix="belote-club-bench-") as tmp:
            folder = Path(tmp)
            recorded = record_tables(folder, args.scale, 2)
            scale = {"flood": bench_flood(folder, recorded),
                     "play": bench_play(folder, args.scale, args.seconds, args.pace)}
            print(f"{args.scale} tables: flood {scale['flood']['events_per_s']} events/s; "
                  f"play: p50 {scale['play']['delay_p50_ms']} ms, "
                  f"p99 {scale['play']['delay_p99_ms']} ms")
    result = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(),
                          "load_average_before": round(load_before, 2),
                          "load_average_after": round(os.getloadavg()[0], 2)},
              "store": store, "flood": flood, "page": page, "play": play,
              # The simulated tables run on the same machine as the club server here
              # (each is a Pi of its own at a club): the scale run measures both.
              "scale": scale}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
