"""The demo tells its organiser's PIN (issue 75): a new organiser's trial no longer
stops at /control. The PIN printed with the page's address is the one that
guards the game the demo starts (a real service, store, waitress server);
``--pin`` chooses it, under the table's rules (6 to 8 digits, refused in French)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from companion.bus import Bus
from companion.service import TableService
from companion.store import Store
from scorer.events import GameStarted
from scorer.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]


def _bid(url: str, pin: str) -> int:
    request = urllib.request.Request(url + "/api/bid", method="POST",
                                     data=json.dumps({"bid": "pass"}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-Table-PIN": pin})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_the_pin_printed_with_the_page_guards_the_demos_game(tmp_path: Path) -> None:
    from cli.outputs import start_outputs
    from companion.i18n import use

    use("fr")
    store = Store(tmp_path / "demo.db")
    service = TableService(store, Bus())
    said: list[str] = []
    closers = start_outputs(service, 0, say=said.append, pin="13572468")
    try:
        (url,) = [m.group(1) for line in said if (m := re.match(r"page web : (\S+)$", line))]
        assert f"code de la table (page Organisateur, {url}/control) : 13572468" in said
        # The demo starts its game once the page is up, as the virtual table does.
        started = simulate_game(1, hands=1)[0]
        assert isinstance(started, GameStarted)
        service.start_game(started, source="simulator", author="demo")
        assert _bid(url, "86427531") in (401, 403)
        assert service.state_json()["bids"] == []
        assert _bid(url, "13572468") == 200
        assert len(service.state_json()["bids"]) == 1
    finally:
        for close in closers:
            close()
        store.close()


def test_a_pin_not_of_6_to_8_digits_is_refused_in_french() -> None:
    for wrong in ("12", "123456789", "12a456"):
        run = subprocess.run([sys.executable, "-m", "cli.main", "demo", "--pin", wrong],
                             capture_output=True, text=True, timeout=60, cwd=ROOT,
                             env={"LANG": "C.UTF-8", "PATH": "/usr/bin"})
        assert run.returncode == 2, run.stderr
        assert "le code organisateur doit avoir 6 à 8 chiffres" in run.stderr
