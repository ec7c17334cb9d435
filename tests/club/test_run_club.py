"""``belote-table run --club mqtt://HOST:PORT --table N``: the table run as a
person would, with its link to a real broker and club server; what the table
stored reaches the club, and a wrong club option is refused before starting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli.cmd_run import main
from club.server import ClubServer
from club.store import ClubStore
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from scorer.simulate import simulate_game
from tests.club.conftest import wait_for


@pytest.mark.slow
def test_run_with_club_publishes_the_table_s_store(tmp_path: Path, broker_factory: Any,
                                                   capsys: Any) -> None:
    import cv2

    broker = broker_factory("lyon", [3])
    events = simulate_game(6, hands=1)
    first = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    db = tmp_path / "table.db"
    with Store(db) as store:
        service = TableService(store, Bus())
        service.start_game(events[0], source="web")
        for e in events[1:first]:
            service.submit(e, source="web")
    folder = tmp_path / "frames"
    folder.mkdir()
    for n in range(3):  # an empty table: the bids entered already are what is stored
        cv2.imwrite(str(folder / f"{n:05d}.png"), np.full((540, 960, 3), 60, np.uint8))
    (tmp_path / "table3.pw").write_text(broker.passwords["table3"] + "\n")
    club_store = ClubStore(tmp_path / "club.db")
    server = ClubServer(club_store, "lyon", broker.url, broker.passwords["club"])
    server.add_tables([3])
    server.connect()
    try:
        wait_for(lambda: server.connected, 10, "the club server")
        assert main(["--images", str(folder), "--db", str(db), "--no-web", "--no-display",
                     "--club", broker.url, "--table", "3", "--club-name", "lyon",
                     "--club-password-file", str(tmp_path / "table3.pw")]) == 0
        assert f"club : la table 3 publie vers {broker.url}" in capsys.readouterr().out
        wait_for(lambda: server.last_seq(3) == first, 10, "the table's events at the club")
        assert [e.event for e in club_store.table_events(3)] == [
            e.to_json() for e in events[:first]]
    finally:
        server.close()
        club_store.close()


@pytest.mark.parametrize("args, says", [
    (["--club", "mqtt://club:1883"], "--club demande --table N et --club-password-file"),
    (["--club", "http://club", "--table", "2", "--club-password-file", "pw"],
     "adresse du club « http://club » : mqtt://HÔTE:PORT est attendu"),
    (["--club", "mqtt://club", "--table", "0", "--club-password-file", "pw"],
     "numéro de table « 0 » : un nombre entier de 1 à 999"),
    (["--club", "mqtt://club", "--table", "2", "--club-password-file", "pw",
      "--club-name", "Mon Club"], "nom de club « Mon Club » : de 1 à 32 lettres minuscules"),
])
def test_run_refuses_wrong_club_options_before_starting(tmp_path: Path, capsys: Any,
                                                        args: list[str], says: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--images", str(tmp_path), "--db", str(tmp_path / "t.db"), *args])
    assert exited.value.code == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()
