"""The club's organiser PIN follows the table's rules (issue 74): 6 to 8 digits
(``--pin 1`` refused in French), one made up and printed when none is given,
kept as a scrypt hash beside the club's file (the PIN itself nowhere, not even
in the app's config) and across restarts, and behind the table's lockout:
100 wrong PINs at once over HTTP get 5 checks at most.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import subprocess
import sys
import threading
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

from club.server import ClubServer
from club.store import ClubStore

ROOT = Path(__file__).resolve().parents[2]
PIN = "24681357"


def _club(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "club", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "PATH": "/usr/bin"})


def test_a_short_pin_is_refused_in_french_and_nothing_is_made(tmp_path: Path) -> None:
    secret = tmp_path / "club.pw"
    secret.write_text("x\n")
    for short in ("1", "1234", "123456789", "12a456"):
        run = _club("--db", str(tmp_path / "club.db"), "--password-file", str(secret),
                    "--port", "0", "--pin", short)
        assert run.returncode == 2, run.stderr
        assert "le code organisateur doit avoir 6 à 8 chiffres" in run.stderr
    (tmp_path / "pin.txt").write_text("0000\n")
    run = _club("--db", str(tmp_path / "club.db"), "--password-file", str(secret),
                "--port", "0", "--pin-file", str(tmp_path / "pin.txt"))
    assert run.returncode == 2 and "6 à 8 chiffres" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.pw", "pin.txt"]


def _app(folder: Path, **config: Any) -> tuple[Any, ClubStore]:
    from club.app import create_app

    store = ClubStore(folder / "club.db")
    return create_app(ClubServer(store, "club"), {"WTF_CSRF_ENABLED": False, **config}), store


def test_the_pin_is_kept_as_a_hash_and_across_a_restart(tmp_path: Path) -> None:
    app, store = _app(tmp_path, ORGANISER_PIN=PIN)
    assert PIN not in json.dumps(app.config, default=str)
    kept = json.loads((tmp_path / "club.db.pins.json").read_text())["pins"]["organiser"]
    assert kept["kdf"] == "scrypt" and PIN not in json.dumps(kept)
    store.close()
    again, store = _app(tmp_path)  # restarted without a PIN: the kept one
    client = again.test_client()
    assert client.post("/login", data={"pin": "13572468"}).status_code == 403
    assert client.post("/login", data={"pin": PIN}).status_code == 302
    store.close()


def test_100_wrong_pins_at_once_get_5_checks_and_a_lockout(tmp_path: Path) -> None:
    from web import serve

    app, store = _app(tmp_path, ORGANISER_PIN=PIN, PIN_RATE_LIMIT="1000 per minute")
    server = serve(app, port=0)
    ready = threading.Barrier(100)
    statuses: list[int] = []

    def guess(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.connect()
        ready.wait(timeout=30)
        conn.request("POST", "/login", body=urllib.parse.urlencode({"pin": f"{i:08d}"}),
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        statuses.append(conn.getresponse().status)
        conn.close()

    try:
        threads = [threading.Thread(target=guess, args=(i,)) for i in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        counted = Counter(statuses)
        assert 1 <= counted[403] <= 5 and counted[429] == 100 - counted[403], counted
        # The right PIN waits too, told so in French.
        r = app.test_client().post("/login", data={"pin": PIN})
        assert r.status_code == 429 and 50 <= int(r.headers["Retry-After"]) <= 60
        assert re.search(r"trop d&#39;essais de code : réessayez dans \d+ s",
                         r.get_data(as_text=True))
    finally:
        server.close()
        store.close()


def test_the_club_command_makes_up_6_digits_then_keeps_them(
        tmp_path: Path, broker_factory: Any) -> None:
    broker = broker_factory("club", [1])
    secret = tmp_path / "club.pw"
    secret.write_text(broker.passwords["club"] + "\n")
    said = []
    for _ in range(2):
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "club", "--tables", "1", "--db",
             str(tmp_path / "club.db"), "--broker", broker.url, "--password-file",
             str(secret), "--port", "0", "--host", "127.0.0.1"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            lines: list[str] = []
            while not any("pages du club :" in line for line in lines) and len(lines) < 10:
                lines.append(proc.stdout.readline())
            said.append(lines[-1])
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
            if proc.stdout:
                proc.stdout.close()
    made = re.search(r"code PIN de l'organisateur (\d+)", said[0])
    assert made and len(made.group(1)) == 6, said
    assert "celui gardé d'avant" in said[1] and made.group(1) not in said[1]
    app, store = _app(tmp_path)
    assert app.test_client().post("/login", data={"pin": made.group(1)}).status_code == 302
    store.close()
