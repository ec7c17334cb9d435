"""The display's firmware logic: frames in, acks out, the displays kept up to date.

``DisplayApp`` knows nothing of pins or serial ports: ``feed(data, now)``
takes the bytes that came in and returns the bytes to send back; ``tick(now)``
redraws the displays when what they should show has changed. ``main.py``
wires it to the Pico's USB serial line, the TM1637 displays and the LED; the
emulator (``cli.cmd_display_emulator``) wires it to a pseudo terminal
and ``sim.SimDisplay``. Both run this same code.
"""

try:
    from firmware import protocol, segments
    from firmware.scoreboard import Scoreboard
except ImportError:  # on the Pico the modules lie flat in the root folder
    import protocol
    import segments
    from scoreboard import Scoreboard

FIRMWARE_VERSION = "1.0.0"


def _safe_reason(text):
    # A NAK carries the reason back to the host; it must itself be a valid payload.
    out = ""
    for ch in text:
        code = ord(ch)
        out += "?" if code < 0x20 or code > 0x7E or ch in "@*" else ch
    return out[:72]


class DisplayApp:
    """One score display: two 4-digit displays (NS, EW) and an alert LED."""

    def __init__(self, ns_display, ew_display, led, now, ticks_diff=None,
                 firmware_version=FIRMWARE_VERSION, **timings):
        self.ns_display = ns_display
        self.ew_display = ew_display
        self.led = led
        self.firmware_version = firmware_version
        # timings: banner_ms, silence_ms (shorter in tests)
        self.board = Scoreboard(now, ticks_diff, **timings)
        self.reader = protocol.LineReader()
        self.seq = 0
        self.frames = 0  # frames accepted
        self.refused = 0  # frames answered with NAK
        self.shown = None
        # Set by a MAINT frame: main.py then restarts the Pico with the REPL open
        # (the firmware otherwise ignores Ctrl-C, so mpremote could not get in).
        self.maintenance_requested = False

    def _frame(self, kind, payload=""):
        line = protocol.encode_frame(self.seq, kind, payload)
        self.seq = protocol.next_seq(self.seq)
        return line

    def start(self, now):
        """The announcement to send at boot, and the first drawing."""
        self.tick(now)
        return self._frame(protocol.HELLO, protocol.hello_payload(self.firmware_version))

    def feed(self, data, now):
        """Handle the bytes received; return the bytes to answer with."""
        out = b""
        for frame in self.reader.feed(data):
            out += self.handle(frame, now)
        self.tick(now)
        return out

    def handle(self, frame, now):
        """Act on one frame from the host; return the reply (ACK, NAK or HELLO)."""
        kind = frame.kind
        if kind in (protocol.ACK, protocol.NAK):
            return b""  # the host does not ack our acks; nothing to do
        self.board.heard(now)
        try:
            if kind == protocol.HELLO:
                self.frames += 1
                return self._frame(protocol.HELLO,
                                   protocol.hello_payload(self.firmware_version))
            if kind == protocol.STATE:
                self.board.set_state(protocol.parse_state(frame.payload), now)
            elif kind == protocol.ALERT:
                what, _, team = frame.payload.partition(" ")
                if what != "renonce":
                    raise ValueError(f"ALERT: unknown alert {what!r}")
                self.board.alert(team, now)
            elif kind == protocol.PIN:
                self.board.show_pin(None if frame.payload == "-" else frame.payload, now)
            elif kind == protocol.MAINT:
                self.maintenance_requested = True
            elif kind != protocol.PING:
                raise ValueError(f"kind {kind!r} unknown")
        except ValueError as exc:
            self.refused += 1
            return self._frame(protocol.NAK, f"{frame.seq} " + _safe_reason(str(exc)))
        self.frames += 1
        return self._frame(protocol.ACK, str(frame.seq))

    def tick(self, now):
        """Redraw the displays if what they should show changed since last time."""
        view = self.board.view(now)
        if view == self.shown:
            return
        ns_text, ew_text, ns_colon, ew_colon, led = view
        self.ns_display.show(segments.encode(ns_text, ns_colon))
        self.ew_display.show(segments.encode(ew_text, ew_colon))
        self.led.value(1 if led else 0)
        self.shown = view
