"""``belote-table run --images DIR``: a folder of frames from the table's camera
goes through the real reader and tracker into the store; the game in the store
(bids entered beforehand, as on the web page) continues where it was."""

from __future__ import annotations

import cv2
import pytest

from cli.cmd_run import main
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed
from scorer.simulate import simulate_game
from vision.lab.virtual_table import VirtualTable


@pytest.mark.slow
def test_run_reads_a_folder_of_frames_into_the_open_game(tmp_path, capsys):
    events = simulate_game(4, hands=1)
    first = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    db = tmp_path / "club.db"
    with Store(db) as store:
        service = TableService(store, Bus())
        service.start_game(events[0], source="web")
        for e in events[1:first]:
            service.submit(e, source="web")
    # The first trick, filmed: frames until the four cards are gathered.
    table = VirtualTable(seed=4, events=events, hands_over=0.0, nudge=0.0, glare=0.0)
    folder = tmp_path / "frames"
    folder.mkdir()
    for n, (_, frame) in enumerate(table):
        cv2.imwrite(str(folder / f"{n:05d}.png"), frame)
        if len(table.plays) == 4 and not table._lying:
            break
    assert main(["--images", str(folder), "--db", str(db), "--no-web"]) == 0
    out = capsys.readouterr().out
    assert f"suite de la partie 1 de {db}" in out
    with Store(db) as store:
        stored = store.events(1)
    plays = [s for s in stored if isinstance(s.event, CardPlayed)]
    assert [s.event for s in plays] == [e for e in events[first:first + 4]]
    assert {s.source for s in plays} == {"camera"}


def test_run_with_a_missing_folder_says_so(tmp_path, capsys):
    assert main(["--images", str(tmp_path / "nowhere"), "--db", str(tmp_path / "t.db"),
                 "--no-web"]) == 2
    assert "nowhere : dossier introuvable" in capsys.readouterr().err


@pytest.mark.parametrize("args, says", [
    (["--images", "frames", "--zoom", "2"], "--zoom ne marche qu'avec --picamera"),
    (["--camera", "0", "--zoom", "2"], "--zoom ne marche qu'avec --picamera"),
    (["--picamera", "--zoom", "0.5"], "--zoom vaut 1 ou plus"),
])
def test_run_refuses_a_wrong_zoom_before_starting(tmp_path, capsys, monkeypatch, args, says):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(args + ["--db", str(tmp_path / "t.db"), "--no-web"])
    assert exited.value.code == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()  # nothing started


def test_a_plugged_in_pico_is_used_instead_of_the_emulator(monkeypatch, tmp_path):
    """``make demo`` starts the display emulator only when no Pico is plugged in."""
    import companion.display as display
    from cli.outputs import start_outputs
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store

    port = tmp_path / "ttyACM-fake"
    monkeypatch.setattr(display, "find_port", lambda configured=None: str(port))
    said: list[str] = []
    with Store(tmp_path / "t.db") as store:
        service = TableService(store, Bus())
        closers = start_outputs(service, None, emulator=True, say=said.append)
        try:
            assert said == [f"afficheur des scores : Pico sur {port}"]
        finally:
            for close in closers:
                close()
