"""The ``belote-table`` dispatcher: help, unknown commands, and a fast start."""

from __future__ import annotations

import json
import subprocess
import sys

from cli.main import COMMANDS, main


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_unknown_command_exits_2(capsys):
    assert main(["nonsense"]) == 2
    assert "commande inconnue 'nonsense'" in capsys.readouterr().err


def test_dispatcher_imports_no_heavy_library():
    code = (
        "import sys, cli.main, scorer.cards, scorer.events\n"
        "heavy = {'numpy', 'cv2', 'onnxruntime', 'flask'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_score_is_dispatched_in_process(tmp_path, capsys):
    record = {"rules": "ffb", "dealer": "N", "bids": ["pass", "80H", "pass", "pass", "pass"],
              "tally": {"NS": 117, "EW": 45, "tricks": {"NS": 6, "EW": 2}}}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    assert main(["score", str(good)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["contract"]["taker"] == "S" and result["score"] == {"NS": 120, "EW": 50}
    record["bids"] = ["pass", "85H"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    assert main(["score", str(good), str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"{bad} : bids[1] : 85H n'est pas une enchère"


def test_output_piped_into_head_ends_quietly(tmp_path):
    """``belote-table score ... | head -1``: no traceback when the reader stops early."""
    import json
    import subprocess
    import sys as _sys

    record = {"rules": "ffb", "dealer": "N", "bids": ["pass"] * 4, "plays": []}
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(record))
    script = ("import sys; from cli.main import main; "
              f"sys.exit(main(['score'] + [{str(hand)!r}] * 3000))")
    proc = subprocess.run(f"{_sys.executable} -c \"{script}\" | head -c 10",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert len(proc.stdout) == 10
    assert "Traceback" not in proc.stderr


def test_a_service_stopped_by_sigterm_ends_through_its_own_clean_up(monkeypatch):
    """SIGTERM (systemd's stop) reaches a running command as Ctrl-C does, so that its
    ``finally`` closes what it opened; a stop that comes before it serves exits 143."""
    import os
    import signal
    import time
    import types

    from cli import main as cli

    previous = signal.getsignal(signal.SIGTERM)
    closed: list[str] = []

    def serving(argv):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
            return 1  # not reached: the stop interrupts it
        except KeyboardInterrupt:
            return 0
        finally:
            closed.append("store")

    def starting(argv):
        os.kill(os.getpid(), signal.SIGTERM)
        return 1  # not reached

    try:
        for name, body, rc in (("run", serving, 0), ("club", starting, 143)):
            fake = types.ModuleType(f"fake_{name}")
            fake.main = body  # type: ignore[attr-defined]
            monkeypatch.setitem(sys.modules, fake.__name__, fake)
            monkeypatch.setitem(COMMANDS, name, (fake.__name__, "test"))
            assert cli.main([name]) == rc
            assert signal.getsignal(signal.SIGTERM) is previous  # the caller's again
        assert closed == ["store"]
    finally:
        signal.signal(signal.SIGTERM, previous)
