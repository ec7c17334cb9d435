"""Crash safety: a real service process killed with SIGKILL part way through a
hand loses no acknowledged event and doubles none; started again it shows the
same score and the same open trick, and finishes the game as if nothing happened."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from scorer.game import replay
from scorer.simulate import simulate_game

WORKER = Path(__file__).with_name("crash_worker.py")
ROOT = Path(__file__).resolve().parents[2]
SEED, HANDS = 17, 2


def start(db):
    return subprocess.Popen([sys.executable, str(WORKER), str(db), str(SEED), str(HANDS)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_kill_9_mid_hand_loses_and_doubles_nothing(tmp_path):
    db = tmp_path / "table.db"
    events = simulate_game(SEED, hands=HANDS)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    target = plays[len(plays) // 2 + 5]  # mid-trick, mid-hand in the second hand
    proc = start(db)
    acked = -1
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("ack "):
            acked = int(line.split()[1])
            if acked >= target:
                break
    proc.send_signal(signal.SIGKILL)  # while it is busy storing the next events
    proc.wait(timeout=30)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL

    with Store(db) as store:
        service = TableService(store, Bus())
        stored = [s.event for s in service.events()]
        assert [s.seq for s in service.events()] == list(range(len(stored)))
    assert len(stored) > acked, "an acknowledged event was lost"
    assert stored == events[:len(stored)], "an event was doubled or changed"
    truth = replay(events[:len(stored)]).to_json()
    state = service.state_json()
    assert state["scores"] == truth["scores"]
    assert state["current_trick"] == truth["current_trick"]
    assert state["hand_no"] == truth["hand_no"] and state["to_play"] == truth["to_play"]

    again = start(db)
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0, out
    assert out.splitlines()[0] == f"resumed {len(stored)}"
    with Store(db) as store:
        final = [s.event for s in store.events(store.games()[0]["id"])]
        assert len(store.games()) == 1
    assert final == events
