"""A simulated table for the club's demo, tests and benchmark: a real table
service on its own SQLite file, its club link, and the rules simulator
playing each game the club sends (no camera)."""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from companion.bus import Bus
from companion.club_link import ClubLink, apply_next_game, event_payload, read_events
from companion.service import TableService
from companion.store import Store
from scorer.events import GameStarted
from scorer.simulate import simulate_game

WHOLE_GAME = 60  # hands the simulator may deal when a game is played to its target


class SimTable:
    """Table ``table``: plays what the club sends, ``pace`` seconds between events."""

    def __init__(self, folder: Path, table: int, url: str, password: str, club: str,
                 seed: int = 1, pace: float = 0.0, resend_after: float = 3.0) -> None:
        self.table = table
        self.seed = seed
        self.pace = pace
        self.db_path = Path(folder) / f"table{table}.db"
        self.store = Store(self.db_path)
        self.service = TableService(self.store, Bus())
        self._games: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.link = ClubLink(self.db_path, url, table, password, club=club,
                             on_next=self._games.put, resend_after=resend_after, poll=0.2)
        self.played: list[int] = []  # match ids played to their end
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._play, name=f"sim-table-{table}",
                                        daemon=True)
        self._stop = threading.Event()

    def start(self) -> SimTable:
        self.link.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._games.put(None)
        self._thread.join(timeout=10)
        self.link.stop()
        self.store.close()

    def _play(self) -> None:
        while not self._stop.is_set():
            data = self._games.get()
            if data is None:
                return
            try:
                game_id = apply_next_game(self.service, data)
            except ValueError as exc:
                self.errors.append(str(exc))
                continue
            if game_id is None:
                continue  # started already (the retained message again)
            hands = data.get("hands") or WHOLE_GAME
            started = self.store.events(game_id)[0].event
            assert isinstance(started, GameStarted)
            events = simulate_game(self.seed * 100_003 + int(data["match"]), hands=hands,
                                   rules=started.rules, settings=started.settings,
                                   dealer=started.dealer)
            for event in events[1:]:
                if self._stop.is_set():
                    break
                self.service.submit(event, source="simulator")
                self.link.notify()
                if self.pace:
                    time.sleep(self.pace)
            else:
                self.played.append(int(data["match"]))

    def stored(self) -> int:
        """The last seq of this table's store."""
        with sqlite3.connect(self.db_path) as db:
            return int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM events").fetchone()[0])

    def record(self) -> list[dict[str, Any]]:
        """Every stored event in its published form (what the club must hold)."""
        db = sqlite3.connect(self.db_path)
        try:
            return [event_payload(self.table, r) for r in read_events(db, 0, 10**9)]
        finally:
            db.close()
