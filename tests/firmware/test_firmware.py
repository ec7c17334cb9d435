"""The firmware's pure modules (protocol, segments, scoreboard, app, simulator) under
the real MicroPython unix port and under CPython, their doctests, and properties of
the protocol checked with hypothesis against CPython's own CRC."""

from __future__ import annotations

import binascii
import doctest
import importlib
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
CHECKS = ROOT / "tests" / "firmware" / "firmware_checks.py"


def _load_checks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("firmware_checks", CHECKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK_MODULE = _load_checks()


def test_every_firmware_check_passes_under_micropython(micropython):
    env = {**os.environ, "MICROPYPATH": str(FIRMWARE)}
    run = subprocess.run([micropython, str(CHECKS)], env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    names = [name for name, _ in CHECK_MODULE.all_checks()]
    assert run.stdout.split("\n")[:-2] == [f"ok {name}" for name in names]
    assert f"passed {len(names)}" in run.stdout


@pytest.mark.parametrize("name", [name for name, _ in CHECK_MODULE.all_checks()])
def test_firmware_check_under_cpython(name):
    getattr(CHECK_MODULE, name)()


@pytest.mark.parametrize("module", ["protocol", "segments", "scoreboard", "sim"])
def test_firmware_doctests(module):
    mod = importlib.import_module(f"firmware.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0


def test_firmware_notation_is_the_scorers_copy():
    """MicroPython cannot import the scorer, so the firmware keeps its own copy
    of the seats, teams and trump modes: it must say what the scorer says."""
    from firmware import scoreboard
    from scorer import cards

    assert protocol.SEATS == cards.SEATS
    assert protocol.TEAMS == cards.TEAMS
    assert protocol.TRUMPS == cards.TRUMPS
    assert [protocol.team_of(s) for s in cards.SEATS] == [cards.team_of(s) for s in cards.SEATS]
    assert scoreboard.team_of is protocol.team_of
    assert set(scoreboard.TRUMP_GLYPH) == set(cards.TRUMPS)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_crc_matches_cpython_crc_hqx(data):
    assert protocol.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


payload_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                              exclude_characters="@*"), max_size=60)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9999), st.sampled_from(protocol.KINDS),
                          payload_text), min_size=1, max_size=8),
       st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"@", b"#")), min_size=8,
                max_size=8),
       st.integers(1, 17))
def test_reader_finds_every_frame_whatever_the_noise_and_chunking(frames, noise, chunk):
    # Noise between frames (never an "@", the one byte that starts a frame) and any
    # chunking of the stream: every frame comes out, in order, and nothing else.
    stream = b""
    for (seq, kind, payload), junk in zip(frames, noise, strict=False):
        stream += junk + protocol.encode_frame(seq, kind, payload.strip())
    reader = protocol.LineReader()
    got = []
    for i in range(0, len(stream), chunk):
        got += reader.feed(stream[i:i + chunk])
    assert got == [protocol.Frame(s, k, p.strip()) for s, k, p in frames]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 9999), payload_text, st.integers(0, 200), st.integers(0, 255))
def test_any_single_byte_change_is_rejected(seq, payload, where, value):
    line = protocol.encode_frame(seq, "STATE", payload.strip())[:-1]
    where %= len(line)
    if line[where] == value or value in (0x0A, 0x40):
        return  # no change, or a byte that ends or starts a line (a different line)
    bad = line[:where] + bytes([value]) + line[where + 1:]
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_frame(bad)


def test_decode_refuses_with_the_reason():
    with pytest.raises(protocol.ProtocolError, match="begin with @"):
        protocol.decode_frame(b"12 PING*0000")
    with pytest.raises(protocol.ProtocolError, match="four hex digits"):
        protocol.decode_frame(b"@12 PING*00")
    with pytest.raises(protocol.ProtocolError, match="not hex"):
        protocol.decode_frame(b"@12 PING*ZZZZ")
    good = protocol.encode_frame(12, "PING")[:-1]
    with pytest.raises(protocol.ProtocolError, match="checksum"):
        protocol.decode_frame(good.lower().replace(b"ping", b"PING"))  # lower-case hex


def test_protocol_md_examples_are_valid_frames():
    text = (FIRMWARE / "PROTOCOL.md").read_text(encoding="utf-8")
    examples = re.findall(r"^    (@\d+ .*)$", text, flags=re.MULTILINE)
    assert len(examples) >= 8
    for line in examples:
        frame = protocol.decode_frame(line.encode())
        assert frame.kind in protocol.KINDS
        if frame.kind == "STATE":
            assert protocol.parse_state(frame.payload)["ns"] == 120
