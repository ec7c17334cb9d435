"""The ``belote-table`` dispatcher: help, unknown commands, and a fast start."""

from __future__ import annotations

import subprocess
import sys

from companion.cli import COMMANDS, main


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_unknown_command_exits_2(capsys):
    assert main(["nonsense"]) == 2
    assert "unknown command 'nonsense'" in capsys.readouterr().err


def test_dispatcher_imports_no_heavy_library():
    code = (
        "import sys, companion.cli, scorer.cards, scorer.events\n"
        "heavy = {'numpy', 'cv2', 'onnxruntime', 'flask'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
