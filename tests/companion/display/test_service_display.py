"""The score display wired to the real table service: a simulated game goes through
the service (real SQLite store, real rules engine) while the emulator runs as its own
process on a pty; the emulator is killed (kill -9, the cable pulled) and started again
mid-game. Every event is still accepted at once and the display ends on the final score.
Also the ``display`` and ``display-emulator`` commands themselves."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

from cli import cmd_display
from companion.bus import Bus
from companion.display import DisplayDriver, request_maintenance
from companion.display_emulator import Emulator
from companion.service import TableService
from companion.store import Store
from firmware import protocol
from scorer.simulate import simulate_game

from .conftest import ROOT, wait_until

pytestmark = pytest.mark.timeout(90)
SHOWN = re.compile(r"NS '(.{4})' EO '(.{4})' LED (allumée|éteinte)")


class EmulatorProcess:
    """``belote-table display-emulator --plain`` as a child process; collects what it shows."""

    def __init__(self, link: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli.cmd_display_emulator", "--plain", "--link", link],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def last_shown(self) -> tuple[str, str] | None:
        for line in reversed(self.lines):
            m = SHOWN.search(line)
            if m:
                return m.group(1), m.group(2)
        return None

    def _reap(self) -> None:
        self.proc.wait(5)
        self._reader.join(5)
        assert self.proc.stdout is not None
        self.proc.stdout.close()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self._reap()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self._reap()


def shown_now(service: TableService) -> tuple[str, str]:
    scores = service.state_json()["scores"]
    return f"{scores['NS']:>4}", f"{scores['EW']:>4}"


@pytest.mark.slow
def test_a_game_goes_on_while_the_display_is_killed_and_restarted(tmp_path):
    link = str(tmp_path / "belote-display")
    store = Store(tmp_path / "table.db")
    bus = Bus()
    service = TableService(store, bus)
    emu = EmulatorProcess(link)
    driver = DisplayDriver(bus, port=link, ack_timeout=0.2, reconnect_delay=0.1,
                           on_status=lambda s: service.set_status(display=s["link"])).start()
    try:
        assert wait_until(lambda: emu.lines and "émulateur de l'afficheur sur /dev/"
                          in emu.lines[0])
        events = simulate_game(5, hands=2)
        half = len(events) // 2
        service.start_game(events[0], source="simulator")
        while_away: list[tuple[int, str]] = []  # (seq stored, the link's state then)
        for i, event in enumerate(events[1:], start=1):
            if i == half:
                # The display has caught up with the game, then vanishes mid-hand.
                assert wait_until(lambda e=emu: e.last_shown() == shown_now(service), timeout=10)
                emu.kill()
                assert wait_until(lambda: driver.status()["link"] != "ok", timeout=10)
            if i == half + 10:
                emu = EmulatorProcess(link)  # and comes back
            stored = service.submit(event, source="simulator")
            if half <= i < half + 10:
                while_away.append((stored.seq, driver.status()["link"]))
        # The display never held the service up: with no display at all, each entry
        # was stored and the game moved on (the service does not wait on the link).
        assert [seq for seq, _ in while_away] == list(range(half, half + 10))
        assert all(link != "ok" for _, link in while_away)
        want = shown_now(service)
        assert wait_until(lambda: emu.last_shown() == want, timeout=15), emu.lines[-5:]
        assert driver.status()["connects"] >= 2
        assert len(store.events(service.game_id)) == len(events)
        assert service.status()["display"] == "ok"
    finally:
        driver.stop()
        emu.stop()
        store.close()


@pytest.mark.slow
def test_a_renonce_in_the_service_blinks_the_offending_team_on_the_display(tmp_path):
    store = Store(tmp_path / "table.db")
    bus = Bus()
    service = TableService(store, bus)
    seen: list[dict[str, object]] = []
    emu = Emulator(banner_ms=100, on_change=seen.append)
    driver = DisplayDriver(bus, port=emu.start(), ack_timeout=0.2, reconnect_delay=0.1).start()
    alerts = bus.subscribe()
    try:
        events = simulate_game(3, hands=1, inject_renonce=True)
        service.start_game(events[0], source="simulator")
        renonce = None
        for event in events[1:]:
            service.submit(event, source="simulator")
            while (msg := alerts.get(timeout=0)) is not None:
                if msg.topic == "alert" and msg.data["kind"] == "renonce":
                    renonce = msg.data
            if renonce:
                break  # the moment the cards prove it; the hand is not over
        assert renonce is not None, "the simulated hand held no renonce"
        team = "NS" if renonce["seat"] in "NS" else "EW"
        other = "EW" if team == "NS" else "NS"
        want = dict(zip(("NS", "EW"), shown_now(service), strict=True))
        # A new contract shows on the taker's team for 3 s; the alert blinks for 10 s.
        time.sleep(3.2)
        seen.clear()
        time.sleep(1.5)
        views = {(v[team], v[other], v["led"]) for v in seen} | {
            (emu.shown()[team], emu.shown()[other], emu.shown()["led"])}
        # The offending team's digits blink with the LED; the other team's stay put.
        assert (want[team], want[other], True) in views
        assert ("    ", want[other], False) in views
        assert {v[1] for v in views} == {want[other]}
    finally:
        alerts.close()
        driver.stop()
        emu.stop()
        store.close()


def test_display_status_names_the_firmware(tmp_path, capsys):
    with Emulator(banner_ms=100) as emu:
        assert cmd_display.main(["status", "--port", emu.path, "--timeout", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{emu.path} : belote-display, micrologiciel 1.0.0, protocole 1" in out


def test_display_status_without_a_display_says_so(tmp_path, capsys):
    assert cmd_display.main(["status", "--port", str(tmp_path / "none"), "--timeout",
                             "0.5"]) == 1
    assert "could not open port" in capsys.readouterr().err


def test_display_flash_dry_run_lists_every_firmware_file(capsys):
    assert cmd_display.main(["flash", "--port", "/dev/ttyACM0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "mpremote connect /dev/ttyACM0 cp " in out
    assert out.rstrip().endswith(": + reset")
    for name in cmd_display.FIRMWARE_FILES:
        assert f"firmware/{name}" in out
    # main.py last, so that an interrupted copy never starts half a new firmware
    assert out.index("firmware/main.py") > out.index("firmware/tm1637.py")


def test_display_flash_asks_for_maintenance_then_runs_mpremote(tmp_path, monkeypatch, capsys):
    # A stand-in for mpremote on the PATH records how it is called.
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "mpremote"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with Emulator(banner_ms=100) as emu:
        assert cmd_display.main(["flash", "--port", emu.path]) == 0
        # The firmware ignores Ctrl-C: the MAINT frame is what lets mpremote in.
        assert emu.app is not None and emu.app.maintenance_requested
    assert "mode maintenance" in capsys.readouterr().out
    args = calls.read_text().split()
    assert args[:3] == ["connect", emu.path, "cp"]
    assert args[-3:] == [":", "+", "reset"]
    copied = [Path(a).name for a in args[3:-3]]
    assert copied == list(cmd_display.FIRMWARE_FILES)
    assert all(Path(a).is_file() for a in args[3:-3])


def test_display_flash_without_mpremote_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no mpremote program
    monkeypatch.setitem(sys.modules, "mpremote", None)  # and no module
    with Emulator(banner_ms=100) as emu:
        assert cmd_display.main(["flash", "--port", emu.path]) == 1
        assert emu.app is not None and not emu.app.maintenance_requested
    assert "pip install 'belote-table[firmware]'" in capsys.readouterr().err


def test_emulator_command_draws_big_digits_on_a_terminal():
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.cmd_display_emulator", "--seconds", "2.6"],
            cwd=ROOT, stdout=slave, stderr=subprocess.STDOUT)
        os.close(slave)
        slave = -1
        out = b""
        while True:
            ready, _, _ = select.select([master], [], [], 5)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(10) == 0
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)
    text = out.decode()
    assert "émulateur de l'afficheur sur /dev/" in text
    assert "\x1b[H\x1b[2J" in text  # redrawn in place
    # The boot banner "bELo" for 2 s, then dashes (no host): seven-segment art.
    screens = [_ns_rows(s) for s in text.split("\x1b[H\x1b[2J")[1:]]
    assert len(screens) >= 2
    banner, dashes = screens[0], screens[-1]
    assert banner[2].count("----") == 3  # the middle bars of b, E and o (not L)
    assert banner[4].count("----") == 4  # the bottom of b, E, L and o
    assert dashes[2].count("----") == 4 and "|" not in "".join(dashes)


def _ns_rows(screen: str) -> list[str]:
    lines = screen.replace("\r", "").splitlines()
    assert "EW" in lines
    first = next(i for i, line in enumerate(lines) if line.startswith("NS"))
    return lines[first + 1:first + 6]


def test_maintenance_request_reaches_the_firmware():
    with Emulator(banner_ms=100) as emu:
        assert request_maintenance(emu.path, timeout=3) is True
        assert emu.app is not None and emu.app.maintenance_requested


def test_maintenance_request_to_a_silent_port_says_no():
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        assert request_maintenance(os.ttyname(slave), timeout=0.5) is False
        # It asked (a MAINT frame went out), heard nothing, and gave up by itself.
        written = os.read(master, 4096)
        assert protocol.encode_frame(0, protocol.MAINT) in written
    finally:
        os.close(master)
        os.close(slave)


def test_display_status_does_not_steal_the_port_from_the_running_driver(tmp_path, capsys):
    bus = Bus()
    with Emulator(banner_ms=100) as emu:
        driver = DisplayDriver(bus, port=emu.path, reconnect_delay=0.1).start()
        try:
            assert wait_until(lambda: driver.status()["link"] == "ok")
            assert cmd_display.main(["status", "--port", emu.path, "--timeout", "1"]) == 1
            assert "lock" in capsys.readouterr().err
            assert driver.status()["link"] == "ok"
        finally:
            driver.stop()
