"""A start that the command refuses says why once and leaves nothing behind: the
commands run as the organiser runs them (``python -m cli.main`` in a
process of its own), in a folder of their own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(LANG="C.UTF-8", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60)


@pytest.mark.parametrize("option, said", [
    ("--deck", "belote-table run : missing.npz : fichier de jeu introuvable"),
    ("--model", "belote-table run : missing.onnx : fichier de modèle introuvable"),
])
def test_run_says_a_missing_deck_or_model_once(tmp_path: Path, option: str, said: str) -> None:
    (tmp_path / "frames").mkdir()
    missing = "missing.npz" if option == "--deck" else "missing.onnx"
    out = cli(tmp_path, "run", "--images", "frames", option, missing, "--no-web",
              "--no-display", "--db", "t.db")
    assert out.returncode == 2
    assert out.stderr.strip() == said, out.stderr


def test_run_refuses_a_reader_that_cannot_read_on_this_computer(
        tmp_path: Path, models_with_check: Any) -> None:
    """A classifier that names its reference cards wrong here (each patch given the next
    card's code, as a model blind on this CPU looks) stops the start, said once in French."""
    model = models_with_check(1)
    (tmp_path / "frames").mkdir()
    out = cli(tmp_path, "run", "--images", "frames", "--model", str(model), "--no-web",
              "--no-display", "--db", "t.db")
    assert out.returncode == 2
    assert out.stderr.count("le lecteur de cartes ne peut pas fonctionner ici") == 1, out.stderr
    assert "ne reconnaît que 0 des 32 cartes de référence" in out.stderr


@pytest.mark.parametrize("args, says", [
    (["--password-file", "nope.pw"], "le fichier du mot de passe nope.pw"),
    (["--password-file", "empty.pw"], "le fichier du mot de passe empty.pw est vide"),
    (["--password-file", "club.pw", "--pin-file", "nope.pin"], "le fichier du code PIN nope.pin"),
    (["--password-file", "club.pw", "--pin-file", "empty.pw"],
     "le fichier du code PIN empty.pw est vide"),
    (["--password-file", "club.pw", "--broker", "http://club"],
     "adresse du club « http://club » : mqtt://HÔTE:PORT est attendu"),
    (["--password-file", "club.pw", "--club", "Mon Club"],
     "nom de club « Mon Club » : de 1 à 32 lettres minuscules"),
])
@pytest.mark.parametrize("db", [None, "soir.db"])
def test_a_refused_club_start_leaves_no_club_file(tmp_path: Path, args: list[str], says: str,
                                                  db: str | None) -> None:
    (tmp_path / "empty.pw").write_text("\n")
    (tmp_path / "club.pw").write_text("secret\n")
    out = cli(tmp_path, "club", *args, *(["--db", db] if db else []))
    assert out.returncode != 0
    assert says in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.pw", "empty.pw"]


def test_a_club_start_on_a_busy_port_leaves_no_club_file(tmp_path: Path) -> None:
    (tmp_path / "club.pw").write_text("secret\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = cli(tmp_path, "club", "--password-file", "club.pw", "--host", "127.0.0.1",
                  "--port", str(port), "--broker", "mqtt://127.0.0.1:9")
    assert out.returncode == 2
    assert f"belote-table club : page web sur 127.0.0.1:{port}" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.pw"]


def test_a_refused_club_start_keeps_the_club_s_file_it_had(tmp_path: Path) -> None:
    from club.store import ClubStore

    store = ClubStore(tmp_path / "belote-club.db")
    store.add_player("Amélie Martin")
    store.close()
    (tmp_path / "club.pw").write_text("secret\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        out = cli(tmp_path, "club", "--password-file", "club.pw", "--host", "127.0.0.1",
                  "--port", str(taken.getsockname()[1]), "--broker", "mqtt://127.0.0.1:9")
    assert out.returncode == 2
    store = ClubStore(tmp_path / "belote-club.db")
    assert [p["name"] for p in store.players()] == ["Amélie Martin"]
    store.close()


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_club_web_port_out_of_range_is_refused_before_the_club_s_file(tmp_path: Path,
                                                                        port: str) -> None:
    """The system would take port 70000 as port 4464: the command refuses it."""
    (tmp_path / "club.pw").write_text("secret\n")
    out = cli(tmp_path, "club", "--password-file", "club.pw", "--port", port,
              "--broker", "mqtt://127.0.0.1:9")
    assert out.returncode == 2
    assert f"argument --port : {port} : un port de 0 à 65535" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.pw"]
