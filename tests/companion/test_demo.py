"""``belote-table demo --hands 1``, run as a person would: the virtual table
goes through the real reader, tracker, service and store, the web page and the
score display emulator start, each event is printed, and the command ends with
the final score and an exit status that says whether every card, trick and
score matched the simulator (0) or not (1, listing the differences)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_demo_plays_a_hand_through_every_part_and_says_if_it_matched(tmp_path):
    db = tmp_path / "demo.db"
    out = subprocess.run(
        [sys.executable, "-m", "companion.cli", "demo", "--hands", "1", "--seed", "2",
         "--port", "0", "--db", str(db)],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    text = out.stdout
    assert out.returncode in (0, 1), text[-2000:] + out.stderr[-2000:]
    assert re.search(r"web page: http://127\.0\.0\.1:\d+", text)
    assert "score display emulator on /dev/pts/" in text
    assert re.search(r"\[simulator\] \w bids ", text)
    assert re.search(r"\[camera [01]\.\d\d\] \w plays ", text)
    assert re.search(r"final score: NS \d+ - EW \d+", text)
    if out.returncode == 0:
        assert "every card, seat, trick and score matched the simulator" in text
    else:
        assert "MISMATCH with the simulator" in text
    with Store(db) as store:
        [game] = store.games()
        stored = store.events(game["id"])
    assert game["events"] == len(stored) > 5
    assert {"simulator", "camera"} <= {s.source for s in stored}
