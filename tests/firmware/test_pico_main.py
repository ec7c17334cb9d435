"""firmware/main.py and the TM1637 pin driver, run by the real MicroPython unix
port on a simulated Pico (tests/firmware/pico_sim: a ``machine`` whose pins log
their changes). The test feeds the USB line (stdin), reads the answers (stdout),
and decodes the two-wire bit stream each display receives back into digits."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time

from firmware import protocol, segments

from .conftest import FIRMWARE, ROOT

SIM = ROOT / "tests" / "firmware" / "pico_sim"
NS_PINS, EW_PINS, LED_PIN = (2, 3), (4, 5), 15


def boot(micropython: str, cwd, *chunks: bytes, pause: float = 0.0
         ) -> subprocess.CompletedProcess[bytes]:
    """Boot the simulated Pico; once it has spoken its first line (its HELLO, so the
    boot banner's clock has started), write ``chunks`` to its USB line ``pause`` s apart."""
    env = {**os.environ, "MICROPYPATH": f"{FIRMWARE}:{SIM}"}
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([micropython, str(SIM / "boot_sim.py")], cwd=cwd, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdin is not None and proc.stdout is not None
        first = proc.stdout.readline()
        for i, chunk in enumerate(chunks):
            if i:
                time.sleep(pause)
            proc.stdin.write(chunk)
            proc.stdin.flush()
        out, _ = proc.communicate(timeout=30)
        err.seek(0)
        return subprocess.CompletedProcess(proc.args, proc.returncode, first + out, err.read())


def pin_events(trace: str) -> list[tuple[int, int]]:
    return [(int(g), int(v)) for g, v in re.findall(r"P(\d+)=(\d);", trace)]


def tm1637_commands(events: list[tuple[int, int]], clk: int, dio: int) -> list[list[int]]:
    """Decode start/stop conditions and LSB-first bytes (9 clocks, the 9th the ack)."""
    level = {clk: 1, dio: 1}
    commands: list[list[int]] = []
    current: list[int] | None = None
    bits: list[int] = []
    for gpio, value in events:
        if gpio not in level:
            continue
        before = level[gpio]
        level[gpio] = value
        if gpio == dio and level[clk] == 1 and before != value:
            if value == 0:  # start: DIO falls while CLK is high
                current, bits = [], []
            elif current is not None:  # stop: DIO rises while CLK is high
                commands.append(current)
                current = None
        elif gpio == clk and before == 0 and value == 1 and current is not None:
            bits.append(level[dio])
            if len(bits) == 9:
                current.append(sum(bit << i for i, bit in enumerate(bits[:8])))
                bits = []
    return commands


def shown(commands: list[list[int]]) -> list[int]:
    """The four digit bytes of the last display write (0xC0 address command)."""
    writes = [c[1:] for c in commands if c and c[0] == 0xC0]
    assert writes, commands
    return writes[-1]


def test_main_acks_frames_through_ctrl_c_noise_and_drives_the_displays(micropython, tmp_path):
    state = "ns=120 ew=80 dl=E tk=- ct=- tr=- db=1 rn=- ph=play wn=-"
    first = b"\x03\x03\x03junk\r\n" + protocol.encode_frame(1, "STATE", state)
    # After the 2 s boot banner; MAINT ends the run (the loop never stops by itself).
    then = b"\x03" + protocol.encode_frame(2, "PING") + protocol.encode_frame(3, "MAINT")
    run = boot(micropython, tmp_path, first, then, pause=2.2)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-500:]
    frames = protocol.LineReader().feed(run.stdout)
    assert [f.kind for f in frames] == ["HELLO", "ACK", "ACK", "ACK"]
    assert [f.payload for f in frames[1:]] == ["1", "2", "3"]
    trace = run.stderr.decode()
    # Ctrl-C made plain data (kbd_intr(-1)), then the watchdog armed, before anything
    # else: before the first byte is read or a pin is touched.
    assert trace.startswith("K-1;W8000;")
    assert "F;" in trace  # and fed by the loop
    events = pin_events(trace)
    ns = tm1637_commands(events, *NS_PINS)
    ew = tm1637_commands(events, *EW_PINS)
    # The first write is the boot banner, the last the scores; the colon marks the dealer (E).
    assert segments.decode(shown(ns[:3])) == "bELo"
    assert segments.decode(shown(ns)) == " 120" and not shown(ns)[1] & segments.SEG_DP
    assert segments.decode(shown(ew)) == "  80" and shown(ew)[1] & segments.SEG_DP
    # Each write: data command, address + 4 digits, display on at brightness 3.
    assert ns[-3:][0] == [0x40] and ns[-1] == [0x88 | 3]
    assert [v for g, v in events if g == LED_PIN][-1] == 0


def test_maint_frame_restarts_into_the_repl_and_the_next_boot_runs_again(micropython,
                                                                          tmp_path):
    run = boot(micropython, tmp_path, protocol.encode_frame(5, "MAINT"))
    assert protocol.LineReader().feed(run.stdout)[-1].payload == "5"
    assert run.stderr.decode().endswith("RESET;")
    assert (tmp_path / "maintenance").exists()
    again = boot(micropython, tmp_path)
    assert b"maintenance mode, REPL open" in again.stdout
    # No watchdog, and Ctrl-C left alone: mpremote can break in and has time to copy.
    assert "W" not in again.stderr.decode() and "K" not in again.stderr.decode()
    assert not (tmp_path / "maintenance").exists()  # one maintenance boot only
