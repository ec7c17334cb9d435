"""Fixtures of the score display's host-side tests (``companion.display`` and its
commands): an emulator on a real pseudo terminal, and a helper that waits for
the display to show something."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.display import DisplayDriver
from companion.display_emulator import Emulator

ROOT = Path(__file__).resolve().parents[3]


def wait_until(check: Callable[[], Any], timeout: float = 6.0, every: float = 0.02) -> Any:
    """Poll ``check`` until it returns something true; fail with the last value after timeout."""
    deadline = time.monotonic() + timeout
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(every)
        value = check()
    return value


def state(ns: int, ew: int, dealer: str = "N", renonces: list[dict[str, Any]] | None = None,
          contract: dict[str, Any] | None = None) -> dict[str, Any]:
    """A GameState JSON as the service publishes it (the keys the display reads)."""
    return {"phase": "play", "scores": {"NS": ns, "EW": ew}, "dealer": dealer,
            "teams": {"NS": "Nous", "EW": "Eux"}, "contract": contract,
            "renonces": renonces or [], "winner": None}


def shows(emu: Emulator, ns: int, ew: int) -> Callable[[], bool]:
    want = (f"{ns:>4}", f"{ew:>4}")

    def check() -> bool:
        s = emu.shown()
        return (s["NS"], s["EW"]) == want

    return check


@pytest.fixture
def link(tmp_path: Path) -> str:
    """A stable name for the emulator's pty, as the udev rule gives a real Pico."""
    return str(tmp_path / "belote-display")


@pytest.fixture
def emulator(link: str) -> Iterator[Emulator]:
    emu = Emulator(link=link, banner_ms=100)
    emu.start()
    yield emu
    emu.stop()


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
def driver(bus: Bus, link: str) -> Iterator[DisplayDriver]:
    drv = DisplayDriver(bus, port=link, ack_timeout=0.2, heartbeat=0.5, dead_after=2.0,
                        reconnect_delay=0.1).start()
    yield drv
    drv.stop()
