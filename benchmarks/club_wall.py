"""What the club's wall screen costs the club server: the time to draw its body
(``/fragment/mur``: every table, its match of the round, the ranking and the
time left) once, with a concours in play on every table, for 20 tables (what
one 1920x1080 screen shows) and more. Each wall screen fetches it after each
change it sees; screens in the same second share one drawing.

    python benchmarks/club_wall.py        (writes benchmarks/club_wall.json)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from club import evening  # noqa: E402
from club.app import create_app  # noqa: E402
from club.server import ClubServer  # noqa: E402
from club.store import ClubStore  # noqa: E402
from scorer.events import GameStarted  # noqa: E402
from scorer.simulate import simulate_game  # noqa: E402


def bench_wall(folder: Path, tables: int, hands: int = 4, repeat: int = 15) -> dict[str, Any]:
    store = ClubStore(folder / f"wall{tables}.db")
    now = [time.time()]
    server = ClubServer(store, "bench", clock=lambda: now[0])
    server.add_tables(list(range(1, tables + 1)))
    players = [store.add_player(f"Joueur {i}") for i in range(4 * tables + 2)]
    cid = evening.new_concours(store, "Banc d'essai", 3, minutes=45)
    for i in range(2 * tables + 1):  # odd: one team exempt
        store.add_team(cid, f"Équipe {i + 1}", players[2 * i], players[2 * i + 1])
    events = 0
    for table, game in evening.next_games(store, cid, now[0]):
        played = simulate_game(table, hands=hands, dealer="N")
        played[0] = GameStarted(rules="ffb", settings={}, dealer="N", teams=game["teams"],
                                players=game["players"])
        for i, e in enumerate(played):
            body = {"table": table, "seq": i + 1, "game_id": 1, "game_seq": i,
                    "event": e.to_json(), "source": "simulator", "ts": now[0] + i,
                    "confidence": None, "hand_no": None, "origin": f"bench{table}",
                    "author": f"club:match:{game['match']}" if i == 0 else None}
            assert server.receive(table, json.dumps(body).encode()) == "stored"
        events += len(played)
    client = create_app(server).test_client()
    times = []
    for _ in range(repeat):
        server._touch()  # a change: drawn again, not served from the cache
        t0 = time.perf_counter()
        html = client.get("/fragment/mur").get_data()
        times.append(time.perf_counter() - t0)
    assert html.count(b'<section class="wall-card') == tables
    store.close()
    ms = statistics.median(times) * 1000
    return {"tables": tables, "teams": 2 * tables + 1, "events": events,
            "wall_ms": round(ms, 1), "walls_per_s_one_core": round(1000 / ms, 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="20,50,100", help="table counts, comma-separated")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "club_wall.json"))
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="belote-wall-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            row = bench_wall(Path(tmp), size)
            rows.append(row)
            print(f"wall screen with {size} tables ({row['teams']} teams): "
                  f"{row['wall_ms']} ms to draw")
    result = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(),
                          "load_average_before": round(load_before, 2),
                          "load_average_after": round(os.getloadavg()[0], 2)},
              "wall": rows}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
