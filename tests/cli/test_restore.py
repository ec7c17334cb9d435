"""``belote-table restore BACKUP --db FILE`` (issue 75), on a real backup made by
``belote-table backup`` while a table service stores a game: the copy is put
back, opens and replays; a file that is not a backup (text, JSON, another
program's SQLite database, a damaged copy, nothing at all) is refused in French
and nothing is touched; a store already at FILE is replaced only when the person
says so (the question at a real terminal, or ``--force``) and is kept aside,
never deleted."""

from __future__ import annotations

import os
import pty
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import GameStarted
from scorer.game import replay
from scorer.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]
ENV = {"LANG": "C.UTF-8", "PATH": "/usr/bin"}


def cli(*args: Any, stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *map(str, args)], stdin=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=ENV)


@pytest.fixture(scope="module")
def played(tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    """A table storing a simulated game event by event, backed up by the command
    while it plays: the backup, and the live store's events once the game is over."""
    folder = tmp_path_factory.mktemp("evening")
    db = folder / "table.db"
    store = Store(db)
    service = TableService(store, Bus())
    events = simulate_game(7, hands=3)
    started = events[0]
    assert isinstance(started, GameStarted)
    service.start_game(started, source="simulator", author="test")
    half, backed_up = threading.Event(), threading.Event()

    def play() -> None:
        # Cards go on being stored while the backup runs; the last one waits for
        # it to end, so the copy is surely of a game in play.
        for i, event in enumerate(events[1:], start=1):
            if i == len(events) - 1:
                backed_up.wait(120)
            service.submit(event, source="camera")
            if i == len(events) // 3:
                half.set()
            if not backed_up.is_set():
                time.sleep(0.005)

    player = threading.Thread(target=play)
    player.start()
    assert half.wait(30)
    made = cli("backup", "--db", db, "--out", folder / "backup.db")
    backed_up.set()
    player.join(60)
    assert made.returncode == 0, made.stderr
    assert "enregistré" in made.stdout
    stored = [s.event for s in store.events(service.game_id or 0)]
    store.close()
    yield {"folder": folder, "backup": folder / "backup.db", "live": stored}


def _check_restored(db: Path, live: list[Any]) -> int:
    """The restored store opens, its game replays, and it is the live game as it was
    at the backup: a prefix of its events."""
    with Store(db) as store:
        (game,) = store.games()
        restored = [s.event for s in store.events(game["id"])]
    assert 1 < len(restored) < len(live)
    assert restored == live[:len(restored)]
    replay(restored)
    return len(restored)


def test_a_backup_made_during_play_is_restored_and_replays(played: dict[str, Any],
                                                           tmp_path: Path) -> None:
    target = tmp_path / "restored.db"
    run = cli("restore", played["backup"], "--db", target)
    assert run.returncode == 0, run.stderr
    n = _check_restored(target, played["live"])
    assert run.stdout.strip() == (f"{target} restaurée depuis {played['backup']} : 1 partie, "
                                  f"{n} événements, chaque partie rejouée")
    # One file, nothing left beside it (the copy's log folded in, no half copy).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["restored.db"]


def _not_backups(folder: Path, backup: Path) -> dict[str, tuple[Path, str]]:
    """Files that are not backups, and what the refusal says of each."""
    text = folder / "notes.txt"
    text.write_text("la soirée du jeudi\n", encoding="utf-8")
    record = folder / "hand.json"
    record.write_text('{"dealer": "N", "bids": []}', encoding="utf-8")
    empty = folder / "empty.db"
    empty.write_bytes(b"")
    other = folder / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE players (name TEXT)")
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    damaged = folder / "damaged.db"
    data = bytearray(backup.read_bytes())
    data[len(data) // 2:] = b"\x00\xff" * ((len(data) - len(data) // 2) // 2)
    damaged.write_bytes(bytes(data))
    sqlite_fr = "ce n'est pas une base SQLite"
    return {
        "text": (text, f"{text} n'est pas une sauvegarde de la table : {sqlite_fr}"),
        "json": (record, f"{record} n'est pas une sauvegarde de la table : {sqlite_fr}"),
        "empty": (empty, f"{empty} n'est pas une sauvegarde de la table : {sqlite_fr}"),
        "other": (other, f"{other} n'est pas une sauvegarde de la table : ses tables ne sont "
                         "pas celles d'une base de table de belote"),
        "damaged": (damaged, f"{damaged} n'est pas une sauvegarde de la table : le fichier "
                             "est endommagé"),
        "missing": (folder / "nowhere.db", f"{folder / 'nowhere.db'} : lecture impossible : "
                                           "fichier ou dossier introuvable"),
        "folder": (folder, f"{folder} : lecture impossible : c'est un dossier, pas un "
                           "fichier"),
    }


def test_a_file_that_is_not_a_backup_is_refused_in_french_and_nothing_moves(
        played: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "store" / "table.db"
    target.parent.mkdir()
    existing = played["folder"] / "table.db"
    target.write_bytes(existing.read_bytes())
    before = target.read_bytes()
    for name, (path, said) in _not_backups(tmp_path, played["backup"]).items():
        for force in ([], ["--force"]):
            run = cli("restore", path, "--db", target, *force)
            assert run.returncode == 2, (name, run.stdout, run.stderr)
            assert run.stderr.startswith(f"belote-table restore : {said}"), (name, run.stderr)
            assert target.read_bytes() == before, name
            assert sorted(p.name for p in target.parent.iterdir()) == ["table.db"], name
    # Nothing is made where there was no store either.
    run = cli("restore", tmp_path / "notes.txt", "--db", tmp_path / "new.db")
    assert run.returncode == 2 and not (tmp_path / "new.db").exists()
    english = subprocess.run(
        [sys.executable, "-m", "cli.main", "--lang", "en", "restore", tmp_path / "notes.txt",
         "--db", target], capture_output=True, text=True, timeout=60, cwd=ROOT, env=ENV)
    assert "is not a backup of the table: it is not an SQLite database" in english.stderr


def test_a_store_in_place_is_replaced_only_when_asked_and_kept_aside(
        played: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "table.db"
    with Store(target) as other:  # another evening's store, in place
        other.new_game(GameStarted(dealer="E"), source="web", author="Mado")
    before = target.read_bytes()
    # No terminal to ask at, no --force: refused, left as it was.
    run = cli("restore", played["backup"], "--db", target)
    assert run.returncode == 1
    assert "laissée telle quelle : répondez oui à la question, ou ajoutez --force" in run.stderr
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.db"]
    # --force: replaced, and the store it replaced kept whole beside it.
    run = cli("restore", played["backup"], "--db", target, "--force")
    assert run.returncode == 0, run.stderr
    _check_restored(target, played["live"])
    (aside,) = [p for p in tmp_path.iterdir() if p.name.startswith("table.db.before-restore-")]
    assert f"la base remplacée est gardée sous le nom {aside}" in run.stdout
    with Store(aside) as kept:
        assert [g["author"] for g in kept.games()] == ["Mado"]


def _at_terminal(args: list[Any], answer: str) -> tuple[int, str]:
    """Run the command with a real terminal (a pty) as its input, answer its question."""
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", *map(str, args)], stdin=side,
                            stdout=side, stderr=side, cwd=ROOT, env=ENV)
    os.close(side)
    seen = b""
    deadline = time.monotonic() + 60
    while b"[o/N]" not in seen and time.monotonic() < deadline:
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
    os.write(main, answer.encode() + b"\n")
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    code = proc.wait(timeout=60)
    os.close(main)
    return code, seen.decode("utf-8", "replace")


def test_the_question_at_the_terminal_decides(played: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "table.db"
    with Store(target) as other:
        other.new_game(GameStarted(dealer="S"), source="web", author="Josette")
    before = target.read_bytes()
    code, said = _at_terminal(["restore", played["backup"], "--db", target], "non")
    assert code == 1, said
    assert f"{target} contient déjà une base (1 partie, 1 événement). La remplacer par" in said
    assert target.read_bytes() == before
    code, said = _at_terminal(["restore", played["backup"], "--db", target], "oui")
    assert code == 0, said
    assert "chaque partie rejouée" in said
    _check_restored(target, played["live"])
    assert len([p for p in tmp_path.iterdir() if ".before-restore-" in p.name]) == 1
