"""Host driver and emulator over a real pseudo terminal.

The driver subscribes to a real Bus; the emulator runs the firmware's own
DisplayApp on a pty (os.openpty). Scores must arrive, and garbage bytes, a
truncated frame, a bad checksum, a slow display and a pulled-and-replugged
display must all end with the right score shown, while publishing on the bus
never waits for the display.
"""

from __future__ import annotations

import os
import select
import time
import tty

import pytest

from companion import display
from companion.display import PICO_PID, PICO_VID, PORT_ENV, DisplayDriver, find_port
from companion.display_emulator import Emulator
from firmware import protocol

from .conftest import shows, state, wait_until

pytestmark = pytest.mark.timeout(60)


def test_scores_arrive_with_the_dealer_colon(bus, emulator, driver):
    bus.publish("state", state(120, 80, dealer="E"))
    assert wait_until(shows(emulator, 120, 80))
    assert emulator.shown()["ew_colon"] and not emulator.shown()["ns_colon"]
    assert wait_until(lambda: driver.status()["state_shown"])
    status = driver.status()
    assert (status["link"], status["firmware"], status["protocol"]) == ("ok", "1.0.0", "1")
    bus.publish("state", state(250, 80, dealer="S"))
    assert wait_until(shows(emulator, 250, 80))
    assert emulator.shown()["ns_colon"]


def test_the_driver_picks_up_the_state_published_before_it_started(bus, emulator, link):
    bus.publish("state", state(42, 7))
    drv = DisplayDriver(bus, port=link, ack_timeout=0.2, reconnect_delay=0.1).start()
    try:
        assert wait_until(shows(emulator, 42, 7))
    finally:
        drv.stop()


def test_garbage_toward_the_display_is_skipped(bus, emulator, driver):
    bus.publish("state", state(10, 20))
    assert wait_until(shows(emulator, 10, 20))
    # A second writer on the same line: Ctrl-C bytes, binary junk, an overlong line.
    fd = os.open(emulator.path, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, b"\x03\x03\x00\xff\xfe junk\r\n" + b"Z" * 500 + b"\n\x03")
    finally:
        os.close(fd)
    assert wait_until(lambda: emulator.app.reader.errors >= 2)
    bus.publish("state", state(30, 20))
    assert wait_until(shows(emulator, 30, 20))


def test_garbage_toward_the_host_is_skipped(bus, emulator, driver):
    bus.publish("state", state(10, 20))
    assert wait_until(shows(emulator, 10, 20))
    emulator.inject(b"\x00\xffboot noise\r\n" + b"x" * 400 + b"\n@3 ACK")  # last one truncated
    bus.publish("state", state(11, 20))
    assert wait_until(shows(emulator, 11, 20))
    assert wait_until(lambda: driver.status()["rx_errors"] >= 2)
    assert driver.status()["link"] == "ok"


class FakeDisplay:
    """The display's end of a raw pty, spoken by hand: frames the host sends, and
    answers chosen by the test (a real emulator would answer everything correctly)."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.reader = protocol.LineReader()
        self.seq = 0

    def frames(self, timeout: float = 2.0) -> list[protocol.Frame]:
        got: list[protocol.Frame] = []
        deadline = time.monotonic() + timeout
        while not got and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                got = self.reader.feed(os.read(self.master, 4096))
        return got

    def say(self, kind: str, payload: str = "", corrupt: bool = False) -> None:
        line = protocol.encode_frame(self.seq, kind, payload)
        self.seq = protocol.next_seq(self.seq)
        if corrupt:  # the same frame with another (well-formed) checksum
            crc = int(line[-5:-1], 16) ^ 0x0100
            line = line[:-5] + b"%04X\n" % crc
        os.write(self.master, line)

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_an_ack_with_a_bad_checksum_does_not_count(bus):
    fake = FakeDisplay()
    drv = DisplayDriver(bus, port=fake.path, ack_timeout=0.3, dead_after=5.0,
                        reconnect_delay=0.05).start()
    try:
        bus.publish("state", state(20, 10))
        hello = fake.frames()
        assert hello and hello[0].kind == "HELLO"
        fake.say("HELLO", "belote-display fw=1.0.0 proto=1")
        sent = wait_until(lambda: [f for f in fake.frames(0.1) if f.kind == "STATE"])
        assert sent and protocol.parse_state(sent[0].payload)["ns"] == 20
        fake.say("ACK", str(sent[0].seq), corrupt=True)  # the right ACK, a wrong checksum
        # Not acked: the driver sends the STATE again after its timeout.
        again = wait_until(lambda: [f for f in fake.frames(0.1) if f.kind == "STATE"])
        assert again and again[0].payload == sent[0].payload and again[0].seq != sent[0].seq
        status = drv.status()
        assert not status["state_shown"] and status["retries"] >= 1
        assert status["rx_errors"] >= 1 and "checksum" in status["last_error"]
        fake.say("ACK", str(again[0].seq))
        assert wait_until(lambda: drv.status()["state_shown"])
    finally:
        drv.stop()
        fake.close()


def test_truncated_frame_and_bad_checksum_change_nothing(bus, emulator, driver):
    bus.publish("state", state(100, 60))
    assert wait_until(shows(emulator, 100, 60))
    forged = protocol.encode_frame(77, "STATE", "ns=999 ew=999")
    forged = forged.replace(b"ns=999", b"ns=998")  # one byte changed, checksum now wrong
    fd = os.open(emulator.path, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, forged + b"@78 STATE ns=555 ew=5")  # and a frame cut short
    finally:
        os.close(fd)
    assert wait_until(lambda: "checksum" in emulator.app.reader.last_error
                      or emulator.app.reader.errors >= 2)
    time.sleep(0.3)
    assert (emulator.shown()["NS"], emulator.shown()["EW"]) == (" 100", "  60")
    bus.publish("state", state(120, 60))
    assert wait_until(shows(emulator, 120, 60))
    assert emulator.app.reader.errors >= 2


def test_a_slow_display_gets_the_latest_state_not_a_backlog(bus, link):
    emu = Emulator(link=link, latency=0.5, banner_ms=100)
    emu.start()
    drv = DisplayDriver(bus, port=link, ack_timeout=0.1, dead_after=5.0,
                        reconnect_delay=0.1).start()
    try:
        for ns in range(0, 400, 10):  # forty states in a burst
            bus.publish("state", state(ns, 5))
            time.sleep(0.01)
        assert wait_until(shows(emu, 390, 5), timeout=15)
        status = drv.status()
        assert status["retries"] >= 1 and status["link"] == "ok"
        # Far fewer STATE frames than states published: the backlog was skipped.
        assert emu.app.frames < 25
    finally:
        drv.stop()
        emu.stop()


def test_unplug_and_replug_shows_the_state_published_meanwhile(bus, link):
    emu = Emulator(link=link, banner_ms=100)
    emu.start()
    drv = DisplayDriver(bus, port=link, ack_timeout=0.2, reconnect_delay=0.1).start()
    other = bus.subscribe()
    try:
        bus.publish("state", state(80, 0))
        assert wait_until(shows(emu, 80, 0))
        emu.stop()  # cable pulled
        assert wait_until(lambda: drv.status()["link"] == "searching")
        for ns in (160, 240, 330):
            bus.publish("state", state(ns, 90))
        # The service never waits on the display (the bus never blocks a publisher,
        # tests/test_bus.py): the states were taken while no display was there.
        assert drv.status()["link"] == "searching"
        assert bus.last["state"].data == state(330, 90)
        emu = Emulator(link=link, banner_ms=100)  # plugged back: a fresh, blank display
        emu.start()
        assert wait_until(shows(emu, 330, 90), timeout=10)
        assert drv.status()["connects"] >= 2
        got = [other.get(timeout=1) for _ in range(4)]
        assert [m.data["scores"]["NS"] for m in got if m] == [80, 160, 240, 330]
    finally:
        drv.stop()
        emu.stop()


def test_a_display_restarted_behind_the_open_port_gets_the_state_again(bus, emulator, driver):
    bus.publish("state", state(140, 30))
    assert wait_until(shows(emulator, 140, 30))
    assert wait_until(lambda: driver.status()["state_shown"])
    connects = driver.status()["connects"]
    emulator.reboot()  # the watchdog restarted it: blank, banner, HELLO; the port stayed open
    assert emulator.shown()["NS"] == "bELo"
    # Nothing new on the bus: the driver must notice the HELLO and send the state again.
    assert wait_until(shows(emulator, 140, 30))
    assert driver.status()["connects"] == connects
    assert driver.status()["link"] == "ok"


def test_renonce_alert_blinks_the_offending_team(bus, emulator, driver):
    bus.publish("state", state(50, 70))
    assert wait_until(shows(emulator, 50, 70))
    bus.publish("alert", {"kind": "renonce", "seat": "W", "trick": 3})
    bus.publish("state", state(50, 70, renonces=[{"seat": "W", "trick": 3}]))
    seen = set()
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        s = emulator.shown()
        seen.add((s["NS"], s["EW"], s["led"]))
        time.sleep(0.02)
    assert ("  50", "  70", True) in seen and ("  50", "    ", False) in seen
    assert all(ns == "  50" for ns, _, _ in seen)


def test_pin_shown_on_request(bus, emulator, driver):
    bus.publish("state", state(50, 70))
    assert wait_until(shows(emulator, 50, 70))
    bus.publish("display", {"kind": "show_pin", "pin": "4821"})
    assert wait_until(lambda: (emulator.shown()["NS"], emulator.shown()["EW"])
                      == (" PIn", "4821"))
    bus.publish("display", {"kind": "show_pin", "pin": "12ab"})  # refused, nothing changes
    time.sleep(0.3)
    assert emulator.shown()["EW"] == "4821"
    assert "12ab" in driver.status()["last_error"]
    bus.publish("display", {"kind": "hide_pin"})
    assert wait_until(shows(emulator, 50, 70))


def test_no_display_at_all_neither_blocks_nor_crashes(bus, tmp_path):
    drv = DisplayDriver(bus, port=str(tmp_path / "nothing-here"), reconnect_delay=0.05).start()
    try:
        for ns in range(300):
            bus.publish("state", state(ns, 0))
        # Every state was taken, none waited on a display (see tests/test_bus.py).
        assert bus.last["state"].data == state(299, 0)
        time.sleep(0.3)
        assert drv.status()["link"] == "searching"
        assert "nothing-here" in drv.status()["last_error"]
    finally:
        drv.stop()
        # Stopped for good: its thread has ended and the link says so.
        assert drv._thread is not None and not drv._thread.is_alive()
        assert drv.status()["link"] == "off"


def test_a_mute_device_is_dropped_and_retried(bus):
    master, slave = os.openpty()  # a port where nothing ever answers
    try:
        drv = DisplayDriver(bus, port=os.ttyname(slave), ack_timeout=0.05, dead_after=0.5,
                            reconnect_delay=0.05).start()
        bus.publish("state", state(1, 2))
        assert wait_until(lambda: drv.status()["connects"] >= 2, timeout=5)
        assert drv.status()["link"] != "ok"
        assert "no answer" in drv.status()["last_error"]
        drv.stop()
    finally:
        os.close(master)
        os.close(slave)


def test_a_display_with_another_protocol_is_marked_incompatible(bus):
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        drv = DisplayDriver(bus, port=os.ttyname(slave), reconnect_delay=0.05).start()
        time.sleep(0.3)
        os.write(master, protocol.encode_frame(0, "HELLO", "belote-display fw=9.0 proto=9"))
        assert wait_until(lambda: drv.status()["link"] == "incompatible")
        assert "protocol 9" in drv.status()["last_error"]
        drv.stop()
    finally:
        os.close(master)
        os.close(slave)


def test_find_port_prefers_the_configured_then_the_environment(monkeypatch):
    monkeypatch.setenv("BELOTE_DISPLAY_PORT", "/dev/ttyACM7")
    assert find_port("/dev/pts/9") == "/dev/pts/9"
    assert find_port() == "/dev/ttyACM7"


class FakePortInfo:
    """What ``serial.tools.list_ports.comports()`` lists for one port."""

    def __init__(self, device: str, vid: int | None, pid: int | None) -> None:
        self.device, self.vid, self.pid = device, vid, pid


def test_find_port_by_udev_name_then_by_usb_id(monkeypatch, tmp_path):
    monkeypatch.delenv(PORT_ENV, raising=False)
    udev = tmp_path / "belote-display"
    monkeypatch.setattr(display, "UDEV_NAME", str(udev))
    ports = [FakePortInfo("/dev/ttyS0", None, None),
             FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001),  # an FTDI adapter
             FakePortInfo("/dev/ttyACM3", 0x2E8A, 0x0005)]  # the Pico
    monkeypatch.setattr(display.list_ports, "comports", lambda: list(ports))
    assert find_port() == "/dev/ttyACM3"
    udev.touch()  # the udev rule's link exists: it wins over the scan
    assert find_port() == str(udev)
    udev.unlink()
    ports.pop()
    assert find_port() is None


def test_a_pico_found_by_usb_id_is_found_again_under_a_new_name_after_replug(bus, monkeypatch,
                                                                             tmp_path):
    # No configured port, no udev link: the driver scans for 2e8a:0005 at each attempt,
    # and a Pico plugged back often comes back as another ttyACM number.
    monkeypatch.delenv(PORT_ENV, raising=False)
    monkeypatch.setattr(display, "UDEV_NAME", str(tmp_path / "no-udev-link"))
    plugged: list[FakePortInfo] = []
    monkeypatch.setattr(display.list_ports, "comports", lambda: list(plugged))
    first = Emulator(banner_ms=100)
    second = Emulator(banner_ms=100)
    drv = DisplayDriver(bus, ack_timeout=0.2, reconnect_delay=0.1).start()
    try:
        time.sleep(0.3)
        assert drv.status()["link"] == "searching"  # nothing plugged yet
        plugged.append(FakePortInfo(first.start(), PICO_VID, PICO_PID))
        bus.publish("state", state(60, 20))
        assert wait_until(shows(first, 60, 20))
        assert drv.status()["port"] == first.path
        new_path = second.start()  # opened now so that it has another name than the first
        assert new_path != first.path
        first.stop()  # pulled out
        plugged.clear()
        assert wait_until(lambda: drv.status()["link"] == "searching")
        bus.publish("state", state(70, 20))
        plugged.append(FakePortInfo(new_path, PICO_VID, PICO_PID))  # plugged back
        assert wait_until(shows(second, 70, 20), timeout=10)
        assert drv.status()["port"] == new_path and drv.status()["link"] == "ok"
    finally:
        drv.stop()
        first.stop()
        second.stop()


def test_the_display_shows_dashes_when_the_service_goes_quiet(bus, link):
    emu = Emulator(link=link, banner_ms=100, silence_ms=1500)
    emu.start()
    drv = DisplayDriver(bus, port=link, ack_timeout=0.2, heartbeat=0.3,
                        reconnect_delay=0.1).start()
    try:
        bus.publish("state", state(90, 40))
        assert wait_until(shows(emu, 90, 40))
        time.sleep(2.5)  # nothing new published: the heartbeat alone keeps the scores up
        assert shows(emu, 90, 40)()
        drv.stop()  # the service is gone
        assert wait_until(lambda: (emu.shown()["NS"], emu.shown()["EW"]) == ("----", "----"),
                          timeout=5)
    finally:
        drv.stop()
        emu.stop()


def test_emulator_draws_both_displays_in_big_digits(bus, emulator, driver):
    bus.publish("state", state(8, 1, dealer="N"))
    assert wait_until(shows(emulator, 8, 1))
    lines = emulator.drawing().splitlines()
    assert lines[0].startswith("NS") and "EW" in lines
    ns_rows, ew_rows = lines[1:6], lines[8:13]
    # "   8": the last digit has all seven segments; "   1": only the right-hand bars
    assert ns_rows[0].rstrip().endswith("----") and ns_rows[2].rstrip().endswith("----")
    assert ns_rows[1].rstrip().endswith("|    |") and " o " in ns_rows[1]  # dealer N: colon
    assert "----" not in "".join(ew_rows) and ew_rows[1].rstrip().endswith("|")


@pytest.mark.hardware
def test_a_real_pico_answers_hello():
    from serial.tools import list_ports

    from companion.display import PICO_PID, PICO_VID, probe

    ports = [p.device for p in list_ports.comports() if (p.vid, p.pid) == (PICO_VID, PICO_PID)]
    if not ports:
        pytest.skip("no Pico (USB 2e8a:0005) plugged in")
    hello = probe(ports[0], timeout=5)
    assert hello["name"] == "belote-display" and hello["proto"] == "1"
