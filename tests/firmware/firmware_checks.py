"""Checks of the firmware's pure modules, written to run under MicroPython as well.

``test_firmware.py`` runs every ``check_*`` function here twice: under
CPython (imported as a module, one test each) and under the MicroPython unix
port (this file run as a script with firmware/ on its path). So no pytest,
no typing, only what both interpreters have.
"""

try:
    from firmware import protocol, segments
    from firmware.app import DisplayApp
    from firmware.scoreboard import Scoreboard
    from firmware.sim import SimDisplay, SimLed, render_row
except ImportError:
    import protocol
    import segments
    from app import DisplayApp
    from scoreboard import Scoreboard
    from sim import SimDisplay, SimLed, render_row

STATE = "ns=120 ew=80 dl=E tk=N ct=110 tr=H db=1 rn=- ph=play wn=-"


def raises(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type as exc:
        return str(exc)
    raise AssertionError("no " + exc_type.__name__ + " from " + repr(args))


def new_app(now=0):
    ns, ew, led = SimDisplay(), SimDisplay(), SimLed()
    return DisplayApp(ns, ew, led, now, banner_ms=2000, silence_ms=5000), ns, ew, led


def check_crc_known_value():
    assert protocol.crc16(b"123456789") == 0x29B1
    assert protocol.crc16(b"") == 0xFFFF


def check_frame_round_trip():
    line = protocol.encode_frame(42, "STATE", STATE)
    assert line.startswith(b"@42 STATE ns=120") and line.endswith(b"\n")
    frame = protocol.decode_frame(line[:-1])
    assert frame == protocol.Frame(42, "STATE", STATE)
    assert protocol.decode_frame(line[:-1] + b"\r") == frame


def check_encode_refuses_bad_parts():
    assert "seq" in raises(protocol.ProtocolError, protocol.encode_frame, 10000, "PING")
    assert "kind" in raises(protocol.ProtocolError, protocol.encode_frame, 1, "ping")
    assert "@" in raises(protocol.ProtocolError, protocol.encode_frame, 1, "PIN", "1@2")
    assert "longer" in raises(protocol.ProtocolError, protocol.encode_frame, 1, "PIN", "9" * 200)


def check_bad_checksum_is_refused():
    line = protocol.encode_frame(3, "STATE", STATE)[:-1]
    forged = line.replace(b"ns=120", b"ns=920")
    assert "checksum" in raises(protocol.ProtocolError, protocol.decode_frame, forged)
    reader = protocol.LineReader()
    assert reader.feed(forged + b"\n") == []
    assert reader.errors == 1 and "checksum" in reader.last_error


def check_reader_resynchronises_after_garbage_truncation_and_overlong_lines():
    good = [protocol.encode_frame(i, "PING") for i in range(4)]
    stream = (b"\x03\x03\xff junk\n" + good[0]
              + b"@17 STATE ns=1"  # cut short: the next @ starts over
              + good[1]
              + b"x" * 300 + b"\n"  # overlong garbage line
              + b"@" + b"9" * 300 + good[2]  # overlong frame, then a good one at once
              + good[3])
    reader = protocol.LineReader()
    frames = []
    # Byte by byte, as a slow UART delivers it: the result must not depend on chunking.
    for i in range(len(stream)):
        frames += reader.feed(stream[i:i + 1])
    assert [f.seq for f in frames] == [0, 1, 2, 3]
    assert reader.errors >= 4
    whole = protocol.LineReader()
    assert whole.feed(stream) == frames


def check_state_payload_parses_back():
    payload = protocol.state_payload({
        "scores": {"NS": 1020, "EW": 462}, "dealer": "W",
        "contract": {"taker": "S", "value": "capot", "trump": "AT", "double": 4},
        "renonces": [{"seat": "N"}, {"seat": "E"}], "phase": "play", "winner": "NS"})
    state = protocol.parse_state(payload)
    assert (state["ns"], state["ew"], state["dealer"], state["taker"]) == (1020, 462, "W", "S")
    assert (state["contract"], state["trump"], state["double"]) == ("cap", "AT", 4)
    assert state["renonce"] == ("NS", "EW") and state["winner"] == "NS"


def check_state_payload_refuses_bad_values():
    assert "ns" in raises(protocol.ProtocolError, protocol.parse_state, "ns=12a ew=0")
    assert "dl" in raises(protocol.ProtocolError, protocol.parse_state, "ns=1 ew=0 dl=X")
    assert "rn" in raises(protocol.ProtocolError, protocol.parse_state, "ns=1 ew=0 rn=NX")
    assert "key=value" in raises(protocol.ProtocolError, protocol.parse_state, "ns=1 junk")


def check_segments_spell_and_decode():
    assert segments.encode("8") == [0, 0, 0, 0x7F]
    assert segments.encode("12", colon=True)[1] & segments.SEG_DP
    assert segments.decode(segments.encode("PIn")) == " PIn"
    assert segments.number(123456) == "9999"
    assert "shape" in raises(ValueError, segments.glyph, "W")
    assert "longer" in raises(ValueError, segments.encode, "12345")


def check_app_boots_with_banner_and_hello():
    app, ns, ew, led = new_app()
    hello = app.start(0)
    frame = protocol.LineReader().feed(hello)[0]
    name, fields = protocol.parse_hello(frame.payload)
    assert frame.kind == "HELLO" and name == "belote-display"
    assert fields["proto"] == str(protocol.PROTOCOL_VERSION) and fields["fw"]
    assert (ns.text(), ew.text(), led.on) == ("bELo", "  tE", True)


def check_app_acks_state_and_shows_scores():
    app, ns, ew, led = new_app()
    app.start(0)
    reply = app.feed(protocol.encode_frame(5, "STATE", STATE), 2500)
    assert protocol.LineReader().feed(reply)[0].payload == "5"
    # New contract: the taker's team shows it for a while, then the score.
    assert (ns.text(), ew.text(), ew.colon, ns.colon) == ("110H", "  80", True, False)
    app.tick(6000)
    assert (ns.text(), ew.text(), led.on) == (" 120", "  80", False)


def check_app_answers_nak_to_a_bad_state_and_keeps_the_old_one():
    app, ns, ew, led = new_app()
    app.feed(protocol.encode_frame(1, "STATE", STATE), 3000)
    reply = app.feed(protocol.encode_frame(2, "STATE", "ns=-x ew=1"), 6000)
    frame = protocol.LineReader().feed(reply)[0]
    assert frame.kind == "NAK" and frame.payload.startswith("2 ")
    assert ns.text() == " 120" and app.refused == 1


def check_app_ignores_garbage_and_ctrl_c_bytes():
    app, ns, ew, led = new_app()
    reply = app.feed(b"\x03\x03\x04import machine\r\n\x03"
                     + protocol.encode_frame(9, "STATE", STATE), 6000)
    assert [f.kind for f in protocol.LineReader().feed(reply)] == ["ACK"]
    assert ew.text() == "  80" and app.reader.errors == 2  # the junk line, the lone ^C


def check_dashes_when_the_pi_is_silent():
    app, ns, ew, led = new_app()
    app.feed(protocol.encode_frame(1, "STATE", STATE), 3000)
    app.tick(7900)
    assert ns.text() == " 120"
    app.tick(8100)
    assert (ns.text(), ew.text()) == ("----", "----")
    app.feed(protocol.encode_frame(2, "PING"), 8200)
    assert ns.text() == " 120"


def check_renonce_blinks_the_team_and_the_led_then_leaves_the_led_on():
    app, ns, ew, led = new_app()
    app.feed(protocol.encode_frame(1, "STATE", STATE), 3000)
    app.feed(protocol.encode_frame(2, "STATE", STATE.replace("rn=-", "rn=EW")), 6000)
    seen = set()
    for t in range(6000, 8000, 50):
        app.feed(protocol.encode_frame(3, "PING"), t)
        seen.add((ns.text(), ew.text(), led.on))
    assert seen == {(" 120", "  80", True), (" 120", "    ", False)}
    app.feed(protocol.encode_frame(4, "PING"), 16100)
    assert (ew.text(), led.on) == ("  80", True)


def check_pin_shows_then_goes():
    app, ns, ew, led = new_app()
    app.feed(protocol.encode_frame(1, "STATE", STATE), 3000)
    app.feed(protocol.encode_frame(2, "PIN", "4821"), 6000)
    assert (ns.text(), ew.text()) == (" PIn", "4821")
    app.feed(protocol.encode_frame(3, "PIN", "-"), 6100)
    assert ns.text() == " 120"
    reply = app.feed(protocol.encode_frame(4, "PIN", "12ab"), 6200)
    assert protocol.LineReader().feed(reply)[0].kind == "NAK"


def check_maint_frame_is_acked_and_asks_for_maintenance():
    app, ns, ew, led = new_app()
    app.feed(protocol.encode_frame(1, "PING"), 3000)
    assert not app.maintenance_requested
    reply = app.feed(b"MAINT\n@2 MAINT*0000\n", 3100)  # noise and a forged one do nothing
    assert reply == b"" and not app.maintenance_requested
    reply = app.feed(protocol.encode_frame(3, "MAINT"), 3200)
    assert protocol.LineReader().feed(reply)[0].payload == "3"
    assert app.maintenance_requested


def check_simulator_draws_big_digits():
    display = SimDisplay()
    display.show_text("8", colon=True)
    rows = render_row(display.segs, display.colon)
    assert len(rows) == 5
    assert rows[0].endswith(" ---- ") or rows[0].endswith(" ----")
    assert rows[1].endswith("|    |") and " o " in rows[1]
    assert "show" in raises(ValueError, display.show, [0, 0])


def check_scoreboard_survives_tick_wrap():
    # On the Pico time.ticks_ms wraps at 2**30; ticks_diff handles it.
    period = 1 << 30

    def ticks_diff(a, b):
        return ((a - b + period // 2) % period) - period // 2

    board = Scoreboard(period - 1000, ticks_diff, banner_ms=2000)
    assert board.view(period - 500)[0] == "bELo"
    assert board.view(500)[0] == "bELo"
    assert board.view(1500)[0] == "----"


def all_checks():
    return [(name, fn) for name, fn in sorted(globals().items())
            if name.startswith("check_") and callable(fn)]


if __name__ == "__main__":
    done = 0
    for name, fn in all_checks():
        fn()
        print("ok", name)
        done += 1
    print("passed", done)
