"""The evening kept safe: ``belote-table backup`` copies the store with SQLite's
online backup while the table goes on storing events (the copy is consistent
and complete up to a moment), "télécharger la soirée" gives the store's copy
and each game's spreadsheet and JSON in one zip, and ``belote-table update``
installs and restarts (checked with --dry-run: it changes the system)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cli.main import main as cli
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from scorer.game import replay
from scorer.simulate import simulate_game


def test_backup_during_play_is_a_consistent_copy(tmp_path: Path, capsys: Any) -> None:
    db = tmp_path / "table.db"
    store = Store(db)
    service = TableService(store, Bus())
    events = simulate_game(6, hands=3)
    service.start_game(events[0], source="simulator")
    done = threading.Event()

    def play() -> None:
        for e in events[1:]:
            service.submit(e, source="camera" if isinstance(e, CardPlayed) else "web",
                           confidence=0.9 if isinstance(e, CardPlayed) else None)
        done.set()

    player = threading.Thread(target=play)
    player.start()
    copies = []
    n = 0
    while not done.is_set() or n == 0:
        out = tmp_path / f"copy-{n}.db"
        assert cli(["backup", "--db", str(db), "--out", str(out)]) == 0
        copies.append(out)
        n += 1
    player.join()
    final = tmp_path / "final.db"
    assert cli(["backup", "--db", str(db), "--out", str(final)]) == 0
    copies.append(final)
    assert f"enregistré {final} : 1 partie, " in capsys.readouterr().out
    assert len(copies) >= 2
    for copy in copies:
        with Store(copy) as again:
            stored = [s.event for s in again.events(1)]
        # A prefix of the game, each event whole: it replays without a fault.
        assert stored == events[:len(stored)]
        replay(stored)
    with Store(copies[-1]) as last:
        assert [s.event for s in last.events(1)] == events  # taken after the last event
    store.close()
    assert cli(["backup", "--db", str(tmp_path / "none.db"), "--out",
                str(tmp_path / "x.db")]) == 1


def test_update_installs_and_restarts(tmp_path: Path, capsys: Any) -> None:
    root = Path(__file__).resolve().parents[2]
    assert cli(["update", "--from", str(root), "--no-pull", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # install.sh speaks French as the command does (sudo may drop the locale).
    assert f"{root}/hardware/install.sh --lang=fr" in out
    assert "+ attendre http://127.0.0.1:8000" in out
    assert cli(["update", "--from", str(tmp_path), "--dry-run"]) == 2
    assert "n'est pas une copie du projet" in capsys.readouterr().err
