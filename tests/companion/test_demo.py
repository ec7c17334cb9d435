"""``belote-table demo --hands 1``, run as a person would: the virtual table
goes through the real reader, tracker, service and store, the web page and the
score display emulator start, each event is printed, and the command ends with
the final score and an exit status that says whether every card, trick and
score matched the simulator (0) or not (1, listing the differences). It
prints the organiser's PIN with the page's address, and says the renonce it
injects as the pages do, in French, decimals with a comma."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_demo_plays_a_hand_through_every_part_and_says_if_it_matched(
        tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "demo", "--hands", "1", "--seed", "2",
         "--port", "0", "--db", str(db), "--renonce"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    text = out.stdout
    assert out.returncode in (0, 1), text[-2000:] + out.stderr[-2000:]
    assert re.search(r"page web : http://127\.0\.0\.1:\d+", text)
    assert "émulateur de l'afficheur des scores sur /dev/pts/" in text
    # Seats N E S O, cards as the pages show them (10♥, R♠).
    assert re.search(r"\[simulateur\] [NESO] annonce ", text)
    assert re.search(r"\[caméra [01],\d\d\] [NESO] joue (7|8|9|10|V|D|R|A)[♠♥♦♣]", text)
    assert re.search(r"code de la table \(page Organisateur, http://127\.0\.0\.1:\d+/control\)"
                     r" : \d{6}\n", text)
    assert re.search(r"ALERTE : Renonce ! (Nord|Est|Sud|Ouest) au pli \d : n'a pas [a-zé -]+, "
                     r"prouvé par (7|8|9|10|V|D|R|A)[♠♥♦♣] au pli \d", text), text
    assert "renonce by" not in text and "proved" not in text
    assert not re.search(r"\] W |joue [0-9TJQKA][SHDC]\b", text)
    assert re.search(r"score final : NS \d+ - EO \d+ .* en \d+,\d s \(\d+,\d images/s\)", text)
    if out.returncode == 0:
        assert "chaque carte, place, pli et score correspond au simulateur" in text
    else:
        assert "DIFFÉRENCE avec le simulateur" in text
    with Store(db) as store:
        [game] = store.games()
        stored = store.events(game["id"])
    assert game["events"] == len(stored) > 5
    assert {"simulator", "camera"} <= {s.source for s in stored}
