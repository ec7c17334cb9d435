"""Storage faults never stop the table (issue 74): a full disk, a read-only
folder, a damaged file. Each fault is made for real: a real SQLite store on a
small tmpfs filled to the last byte, a folder bind-mounted read-only, a torn
page written into the middle of a real store file. The table is the real
one: ``open_table`` (what ``belote-table run`` starts on), the real service,
the real web app, and for the restart the real command in its own process.

Mounting needs root: without it the tests that mount are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.pipeline import open_table
from companion.service import TableService
from companion.store import Store
from scorer.events import CardPlayed, Event
from scorer.game import replay
from scorer.simulate import simulate_game
from tests.web.conftest import PIN, api_body

ROOT = Path(__file__).resolve().parents[2]
AUTH = {"X-Table-PIN": PIN}
EVENTS = simulate_game(11, hands=4)

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="mounting a small tmpfs or a read-only folder needs root")


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``tmpfs("8m")``: a fresh tmpfs of that size, unmounted afterwards."""
    mounted: list[Path] = []

    def make(size: str) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where))
        mounted.append(where)
        return where

    yield make
    for where in reversed(mounted):
        _umount(where)


def fill(folder: Path) -> Path:
    """Fill the disk of ``folder`` to its last byte; return the filler file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (65536, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def stored(db: Path, game_id: int = 1) -> list[Any]:
    """The events a fresh connection reads from the file (what a restart would see)."""
    with Store(db) as store:
        return store.events(game_id)


def wait_for(what: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def app_for(service: TableService) -> Any:
    from web import create_app

    return create_app(service, {"TESTING": True, "PIN": PIN})


def enter(client: Any, event: Event) -> Any:
    path, body = api_body(event)
    return client.post(path, json=body, headers=AUTH)


# -- a full disk ----------------------------------------------------------------------


@needs_root
def test_a_disk_full_during_play_loses_nothing_and_writes_once_freed(tmpfs: Any) -> None:
    disk = tmpfs("8m")
    db = disk / "table.db"
    store, service = open_table(db, "ffb", say=lambda _line: None, start=False)
    service.RETRY_S = 0.1
    service.start_game(EVENTS[0], source="simulator")
    for event in EVENTS[1:30]:
        service.submit(event, source="simulator")
    filler = fill(disk)
    acked = 30
    for event in EVENTS[30:]:
        service.submit(event, source="simulator")  # never raises: kept when refused
        acked += 1
        if service.storage()["unsaved"] >= 25:
            break
    storage = service.state_json()["storage"]
    assert storage["fault"] == "full" and storage["unsaved"] >= 25, storage
    # Followed on the page meanwhile: the state is the fold of every event entered.
    assert service.state_json()["scores"] == replay(EVENTS[:acked]).to_json()["scores"]
    assert [s.seq for s in service.events()] == list(range(acked))
    # Every event acknowledged before the fault is in the file.
    on_disk = stored(db)
    assert [s.event for s in on_disk] == EVENTS[:len(on_disk)]
    assert len(on_disk) >= 30 and len(on_disk) == acked - storage["unsaved"]
    times = [s.ts for s in service.events()]

    filler.unlink()  # the organiser frees some space: writing resumes by itself
    wait_for(lambda: service.storage() == {**service.storage(), "fault": None, "unsaved": 0})
    on_disk = stored(db)
    assert [s.event for s in on_disk] == EVENTS[:acked]  # none lost, none doubled
    assert [s.seq for s in on_disk] == list(range(acked))
    assert [s.ts for s in on_disk] == times  # written late with the time they were entered
    for event in EVENTS[acked:]:
        service.submit(event, source="simulator")
    service.close()
    store.close()
    assert [s.event for s in stored(db)] == EVENTS


@needs_root
def test_entries_through_the_page_on_a_full_disk_are_kept_and_said(tmpfs: Any) -> None:
    disk = tmpfs("8m")
    db = disk / "table.db"
    store, service = open_table(db, "ffb", say=lambda _line: None, start=False)
    service.RETRY_S = 0.1
    client = app_for(service).test_client()
    service.start_game(EVENTS[0], source="web")
    for event in EVENTS[1:10]:
        assert enter(client, event).status_code == 200
    filler = fill(disk)
    entered = 10
    for event in EVENTS[10:40]:
        r = enter(client, event)
        assert r.status_code == 200, r.json  # accepted, not a 500
        entered += 1
    state = client.get("/api/state").json
    assert state["storage"]["fault"] == "full" and state["storage"]["unsaved"] > 0
    assert state["status"]["storage"]["fault"] == "full"
    assert len(service.events()) == entered
    # The page says what is wrong and what to do, in French.
    page = client.get("/").get_data(as_text=True)
    words = json.loads(page.split('id="words">')[1].split("</script>")[0])
    assert words["storage"]["full"].startswith("Le disque de la table est plein")
    assert "Libérez de la place" in words["storage"]["full"]
    # A new game waits for the disk: 503 saying why, never a 500.
    r = client.post("/api/games", json={"pin": PIN, "current_pin": PIN})
    assert r.status_code in (503, 403), r.json
    if r.status_code == 503:
        assert "plein" in r.json["error"]
    filler.unlink()
    wait_for(lambda: service.storage()["unsaved"] == 0)
    assert [s.event for s in stored(db)] == EVENTS[:entered]
    service.close()
    store.close()


def _web_url(proc: subprocess.Popen[str], seen: list[str]) -> str:
    """The page's address the command prints; the lines before it go to ``seen``."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        seen.append(line)
        if "http://" in line:
            return "http://" + line.split("http://")[1].split()[0]
        if time.monotonic() > deadline:
            break
    raise AssertionError(f"no web page: {''.join(seen)}")


@needs_root
@pytest.mark.slow
def test_a_restart_on_a_full_disk_serves_the_page_and_says_so(tmpfs: Any) -> None:
    """Before: exit 2, "disk I/O error" (under systemd a restart loop, no page)."""
    disk = tmpfs("4m")
    db = disk / "table.db"
    with Store(db) as store:
        service = TableService(store, Bus())
        service.start_game(EVENTS[0], source="web")
        for event in EVENTS[1:20]:
            service.submit(event, source="web")
    filler = fill(disk)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "cli.main", "run", "--camera", "7", "--port", "0",
         "--db", str(db), "--no-display"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
    said: list[str] = []
    try:
        url = _web_url(proc, said)
        state = json.load(urllib.request.urlopen(url + "/api/state", timeout=5))
        assert state["storage"]["fault"] == "full", state["storage"]
        assert state["game_id"] == 1 and state["events"] == 20  # the game goes on
        filler.unlink()
        deadline = time.monotonic() + 30
        while state["storage"]["fault"] is not None and time.monotonic() < deadline:
            time.sleep(0.5)
            state = json.load(urllib.request.urlopen(url + "/api/state", timeout=5))
        assert state["storage"]["fault"] is None  # cleared by itself
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    out = "".join(said) + rest
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    assert "le disque refuse d'écrire" in out, out[:3000]


# -- a read-only folder ---------------------------------------------------------------


@needs_root
def test_a_read_only_folder_at_start_serves_the_page_and_writes_once_writable(
        tmp_path: Path) -> None:
    """Before: ``OSError`` in ``AccessBook._open`` (os.chmod on .pins.sqlite)."""
    folder = tmp_path / "store"
    folder.mkdir()
    db_real = folder / "table.db"
    with Store(db_real) as store:
        service = TableService(store, Bus())
        service.start_game(EVENTS[0], source="web")
        for event in EVENTS[1:12]:
            service.submit(event, source="web")
    view = tmp_path / "view"
    view.mkdir()
    _mount("--bind", str(folder), str(view))
    try:
        _mount("-o", "remount,bind,ro", str(view))
        db = view / "table.db"
        store, service = open_table(db, "ffb", say=lambda _line: None, start=False)
        service.RETRY_S = 0.1
        assert service.storage()["fault"] == "readonly"
        assert service.game_id == 1 and len(service.events()) == 12
        client = app_for(service).test_client()  # the PIN and access files: in memory
        state = client.get("/api/state").json
        assert state["storage"]["fault"] == "readonly"
        r = enter(client, EVENTS[12])
        assert r.status_code == 200, r.json
        assert client.get("/api/state").json["storage"]["unsaved"] == 1
        assert len(stored(db_real)) == 12
        page = client.get("/control").get_data(as_text=True)
        assert "Le disque refuse d&#39;enregistrer le code PIN" in page or \
            "Le disque refuse d'enregistrer le code PIN" in page

        _mount("-o", "remount,bind,rw", str(view))  # the folder is writable again
        wait_for(lambda: service.storage()["unsaved"] == 0 and
                 service.storage()["fault"] is None)
        assert [s.event for s in stored(db_real)] == EVENTS[:13]
        service.close()
        store.close()
    finally:
        _umount(view)


# -- a damaged file -------------------------------------------------------------------


def _three_games(db: Path) -> list[list[Event]]:
    games = [simulate_game(seed, hands=5) for seed in (1, 2, 3)]
    games[2] = games[2][:-25]  # the last one still open
    with Store(db) as store:
        service = TableService(store, Bus())
        for events in games:
            service.start_game(events[0], source="simulator")
            for event in events[1:]:
                service.submit(event, source="simulator")
    return games


def _tear(db: Path, which: int) -> int:
    """Overwrite the cell pointers of a leaf page of events (the ``which``-th
    from the end), as a torn write leaves it; return the page number."""
    data = db.read_bytes()
    pages = [n for n in range(1, len(data) // 4096)
             if data[n * 4096] == 0x0D and b"CardPlayed" in data[n * 4096:(n + 1) * 4096]]
    page = pages[-which]
    with db.open("r+b") as f:
        f.seek(page * 4096 + 8)
        f.write(b"\xff" * 240)
    return page


@pytest.mark.parametrize("checked", [True, False], ids=["checked-at-start", "found-loading"])
def test_a_torn_page_in_the_middle_is_recovered_and_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, checked: bool) -> None:
    """A small store is checked whole at start; a large one (here: any) after
    a clean stop is not, and the damage is found loading the open game."""
    import companion.recovery

    if not checked:
        def not_checked(_db: Path) -> None:
            raise AssertionError("a large store after a clean stop is not checked whole")

        monkeypatch.setattr(companion.recovery, "CHECK_ALWAYS_BYTES", 0)
        monkeypatch.setattr(companion.recovery, "damaged", not_checked)
    db = tmp_path / "table.db"
    games = _three_games(db)
    _tear(db, 3)  # within the open game's events
    # Before: the service could not start ("database disk image is malformed").
    with pytest.raises(sqlite3.DatabaseError, match="malformed"), Store(db) as store:
        TableService(store, Bus())

    said: list[str] = []
    store, service = open_table(db, "ffb", say=said.append, start=False)
    recovered = service.storage()["recovered"]
    assert recovered is not None and recovered["lost"] > 0
    aside = tmp_path / recovered["aside"]
    assert aside.exists() and aside.name.startswith("table.db.corrupt-")
    assert any("récupérés" in line for line in said), said
    # SQLite's own words: the check's report, or the error reading the page.
    assert any("malformed" in line or (checked and "On tree page" in line)
               for line in said), said
    # Every readable event is back, each in its game at its place; the lost
    # ones are only those of the torn page.
    kept = 0
    for game_id, events in enumerate(games, start=1):
        for s in store.events(game_id):
            assert s.event == events[s.seq]
            kept += 1
    assert kept == recovered["events"] == sum(map(len, games)) - recovered["lost"]
    assert service.game_id == 3  # the open game goes on
    client = app_for(service).test_client()
    state = client.get("/api/state").json
    assert state["storage"]["recovered"]["aside"] == aside.name
    words = json.loads(client.get("/").get_data(as_text=True)
                       .split('id="words">')[1].split("</script>")[0])
    assert words["storage"]["recovered"].startswith("La base de données de la table était "
                                                    "endommagée")
    # The new file is whole.
    with Store(db) as check:
        assert check._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.close()


def test_a_file_that_is_no_database_is_set_aside_and_the_table_starts(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    db.write_bytes(b"not a database at all" * 200)
    store, service = open_table(db, "ffb", say=lambda _line: None, start=False)
    recovered = service.storage()["recovered"]
    assert recovered == {"aside": recovered["aside"], "events": 0, "lost": 0}
    assert (tmp_path / recovered["aside"]).read_bytes().startswith(b"not a database")
    assert store.games() == [] and service.game_id is None
    store.close()


# -- the camera loop ------------------------------------------------------------------


@needs_root
@pytest.mark.slow
def test_the_camera_plays_on_through_a_full_disk(tmpfs: Any, play_film: Any) -> None:
    """Before: ``sqlite3.OperationalError`` went through ``pipeline._handle`` and
    ``keep_camera`` and ``run`` died. Now the camera's cards, pictures and reads
    are kept while the disk is full and written when it is freed: the stored
    game equals the simulator's."""
    from companion.pipeline import compare
    from vision.lab.virtual_table import VirtualTable

    disk = tmpfs("16m")
    db = disk / "table.db"
    table = VirtualTable(seed=6, hands=1)
    store = Store(db)
    filled: list[Path] = []
    seen: list[int] = []

    def fill_at_frame_20(frame: Any) -> Any:
        if len(seen) == 20:
            filled.append(fill(disk))
        seen.append(1)
        return frame

    service = play_film(table, store, Bus(), faults=fill_at_frame_20)
    service.RETRY_S = 0.1
    storage = service.storage()
    assert storage["fault"] == "full" and storage["unsaved"] > 10, storage
    assert compare(table.events, [s.event for s in service.events()]) == []
    filled[0].unlink()
    assert service.flush() == 0
    store.close()
    with Store(db) as again:
        kept = again.events(1)
        evidence = again.evidence(1)
    assert compare(table.events, [s.event for s in kept]) == []
    cards = [s.seq for s in kept if s.source == "camera"]
    assert cards and all(evidence[seq]["crop"] for seq in cards)


@needs_root
@pytest.mark.browser
def test_the_page_says_the_disk_is_full_and_follows_the_cards(tmpfs: Any, page: Any) -> None:
    """In a real browser (Debian's chromium): the banner says in French what is
    wrong and what to do, the cards still show, and it goes once writing resumes."""
    from playwright.sync_api import expect

    from web import serve

    disk = tmpfs("8m")
    store, service = open_table(disk / "table.db", "ffb", say=lambda _line: None, start=False)
    service.RETRY_S = 0.2
    service.start_game(EVENTS[0], source="web")
    server = serve(app_for(service), port=0)
    try:
        page.goto(server.url + "/")
        expect(page.locator("#conn")).to_have_class("dot-label ok")
        banner = page.locator("#storage-banner")
        expect(banner).to_be_hidden()
        filler = fill(disk)
        done = 1
        for event in EVENTS[1:]:
            service.submit(event, source="web")
            done += 1
            if service.storage()["unsaved"] >= 3 and isinstance(event, CardPlayed):
                break
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("Le disque de la table est plein")
        expect(banner).to_contain_text("Libérez de la place")
        # The card just entered shows though it is not saved yet.
        last = EVENTS[done - 1]
        assert isinstance(last, CardPlayed)
        shown = replay(EVENTS[:done]).to_json()
        if any(c["seat"] == last.seat for c in shown["current_trick"]["cards"]):
            expect(page.locator(f"#seat-{last.seat} .card")).to_have_attribute(
                "data-card", str(last.card))
        filler.unlink()
        expect(banner).to_be_hidden(timeout=20_000)
        assert [s.event for s in stored(disk / "table.db")] == EVENTS[:done]
    finally:
        server.close()
        service.close()
        store.close()
