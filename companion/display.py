"""Host side of the score display: the bus on one side, the Pico's serial line on the other.

``DisplayDriver(bus, port=None)`` runs in its own thread. It subscribes to
the service's bus (topics ``state``, ``alert``, and ``display`` for
``{"kind": "show_pin", "pin": "1234"}`` or ``{"kind": "hide_pin"}``), turns what it
hears into frames of ``firmware.protocol`` and sends them to the Pico found by
USB id 2e8a:0005, by the udev name ``/dev/belote-display`` or at a configured
port (a pseudo terminal from the emulator, say).

What keeps the service safe: the bus never waits for a subscriber (bounded
queue, oldest dropped), and every serial error, a missing display, a display
that answers late or not at all, ends in this thread, which closes the port
and looks for the display again. The driver sends one frame at a time and
waits for its ACK; on a timeout it sends again, always the latest state
rather than a backlog, with a timeout that doubles up to MAX_ACK_TIMEOUT so
that a slow display is not flooded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import serial
from serial.tools import list_ports

from companion.bus import Bus
from companion.i18n import _
from firmware import protocol
from scorer.cards import SEATS, TEAMS
from scorer.cards import team_of as seat_team

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A
PICO_PID = 0x0005  # MicroPython's USB serial on the RP2040
UDEV_NAME = "/dev/belote-display"  # hardware/99-belote-display.rules makes this link
PORT_ENV = "BELOTE_DISPLAY_PORT"
BAUDRATE = 115200  # ignored by USB CDC, used by a real UART or adapter
ALERT_KEEP_S = 10.0  # an alert not delivered by then is stale: drop it
PIN_KEEP_S = 30.0
MAX_ACK_TIMEOUT = 2.0
RECENT_SEQS = 32  # sent frames remembered so that a late ACK still counts


def find_port(configured: str | None = None) -> str | None:
    """Where the display is: the configured port, $BELOTE_DISPLAY_PORT, the udev
    name, or the first serial port with the Pico's USB id; None when none is found."""
    if configured:
        return configured
    if os.environ.get(PORT_ENV):
        return os.environ[PORT_ENV]
    if os.path.exists(UDEV_NAME):
        return UDEV_NAME
    for info in list_ports.comports():
        if info.vid == PICO_VID and info.pid == PICO_PID:
            return str(info.device)
    return None


def team_of(seat: str | None) -> str | None:
    """The team of ``seat``, None when an alert names no seat (or not one of ours)."""
    return seat_team(seat) if seat in SEATS else None


class DisplayDriver:
    """Keeps the score display showing the bus's latest state; see the module docstring.

    ``status()`` says how the link is; ``on_status`` (optional) is called with
    that dict whenever the link's state changes, e.g. to feed
    ``TableService.set_status(display=...)``.
    """

    def __init__(self, bus: Bus, port: str | None = None, *, ack_timeout: float = 0.3,
                 heartbeat: float = 1.0, dead_after: float = 4.0,
                 reconnect_delay: float = 0.5,
                 on_status: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.bus = bus
        self.port = port
        self.ack_timeout = ack_timeout
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.reconnect_delay = reconnect_delay
        self.on_status = on_status
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sub = bus.subscribe(maxsize=64)
        self._serial: serial.Serial | None = None
        self._reader = protocol.LineReader()
        self._seq = 0
        self._sent: dict[int, tuple[str, str]] = {}
        self._inflight: tuple[int, str, str, float] | None = None  # seq, kind, payload, sent at
        self._timeout = ack_timeout
        self._ready = False  # the display said HELLO with our protocol version
        self._last_rx = 0.0
        self._last_tx = 0.0
        self._next_connect = 0.0
        # What the display should show; STATE is latest-wins, kept across reconnects.
        self._want_state: str | None = None
        self._acked_state: str | None = None
        self._alert: tuple[str, float] | None = None
        self._pin: tuple[str, float] | None = None
        self._status: dict[str, Any] = {
            "link": "searching", "port": None, "firmware": None, "protocol": None,
            "frames_sent": 0, "frames_acked": 0, "retries": 0, "refused": 0,
            "rx_errors": 0, "connects": 0, "last_error": None,
        }
        last = bus.last.get("state")
        if last is not None:
            self._take("state", last.data)
        # A PIN the web page showed as the service started (a game's first PIN).
        shown = bus.last.get("display")
        if shown is not None:
            self._take("display", shown.data)

    # -- public -------------------------------------------------------------------------

    def start(self) -> DisplayDriver:
        """Start the driver's thread (returns self)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="display-driver",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        """Stop the thread, close the port and leave the bus."""
        self._stop.set()
        self._sub.close()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close("stopped")
        self._set(link="off")

    close = stop

    def status(self) -> dict[str, Any]:
        """The link's health: ``link`` is searching, connecting, ok, incompatible or off."""
        with self._lock:
            return {**self._status, "state_shown": self._want_state is not None
                    and self._want_state == self._acked_state}

    # -- bus ----------------------------------------------------------------------------

    def _take(self, topic: str, data: Any) -> None:
        now = time.monotonic()
        try:
            if topic == "state" and isinstance(data, dict):
                self._want_state = protocol.state_payload(data)
            elif topic == "alert" and isinstance(data, dict) and data.get("kind") == "renonce":
                team = data.get("team") or team_of(data.get("seat"))
                if team in TEAMS:
                    self._alert = (f"renonce {team}", now)
            elif (topic == "display" and isinstance(data, dict)
                  and data.get("kind") in ("show_pin", "hide_pin")):
                pin = str(data.get("pin") or "-") if data["kind"] == "show_pin" else "-"
                if pin != "-" and (not pin.isdigit() or len(pin) > 8):
                    raise ValueError(f"show_pin: pin {pin!r} is not 1 to 8 digits")
                self._pin = (pin, now)
        except (ValueError, TypeError, AttributeError) as exc:
            # A malformed message is the publisher's bug; the display keeps what it has.
            log.warning(_("display: ignored %s message: %s"), topic, exc)
            self._set(last_error=f"bus {topic}: {exc}")

    def _drain_bus(self, wait: float) -> None:
        msg = self._sub.get(timeout=wait) if wait > 0 else self._sub.get(timeout=0)
        count = 0
        while msg is not None and count < 256:
            self._take(msg.topic, msg.data)
            count += 1
            msg = self._sub.get(timeout=0)

    # -- thread -------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except (serial.SerialException, OSError) as exc:
                self._close(f"serial: {exc}")
            except Exception as exc:  # never let a bug here take the service down
                log.exception(_("display driver"))
                self._close(f"driver: {exc!r}")

    def _step(self) -> None:
        if self._serial is None:
            self._drain_bus(0.05)
            if time.monotonic() >= self._next_connect:
                self._connect()
            return
        self._drain_bus(0)
        self._receive()
        now = time.monotonic()
        if now - self._last_rx > self.dead_after:
            self._close(f"no answer from the display for {self.dead_after:.0f} s")
            return
        self._send_next(now)

    def _connect(self) -> None:
        self._next_connect = time.monotonic() + self.reconnect_delay
        port = find_port(self.port)
        if port is None:
            self._set(link="searching", port=None)
            return
        self._set(link="connecting", port=port)
        ser = serial.Serial(port, BAUDRATE, timeout=0.02, write_timeout=0.5, exclusive=True)
        with contextlib.suppress(serial.SerialException, OSError):
            ser.reset_input_buffer()
        self._serial = ser
        self._reader = protocol.LineReader()
        self._inflight = None
        self._sent.clear()
        self._ready = False
        self._timeout = self.ack_timeout
        self._acked_state = None  # a display that was away shows nothing we sent before
        self._last_rx = time.monotonic()
        with self._lock:
            self._status["connects"] += 1
        log.info(_("display: opened %s"), port)

    def _close(self, reason: str) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()
            log.info(_("display: closed (%s)"), reason)
        self._set(link="searching", last_error=reason)
        self._ready = False
        self._inflight = None
        self._next_connect = time.monotonic() + self.reconnect_delay

    def _receive(self) -> None:
        assert self._serial is not None
        data = self._serial.read(max(1, self._serial.in_waiting))
        if not data:
            return
        errors = self._reader.errors
        frames = self._reader.feed(data)
        if self._reader.errors != errors:
            with self._lock:
                self._status["rx_errors"] += self._reader.errors - errors
                self._status["last_error"] = f"from display: {self._reader.last_error}"
        for frame in frames:
            self._last_rx = time.monotonic()
            self._handle(frame)

    def _handle(self, frame: protocol.Frame) -> None:
        if frame.kind == protocol.HELLO:
            self._hello(frame.payload)
        elif frame.kind in (protocol.ACK, protocol.NAK):
            seq_text, _, reason = frame.payload.partition(" ")
            sent = self._sent.get(int(seq_text)) if seq_text.isdigit() else None
            if sent is None:
                return
            kind, payload = sent
            if frame.kind == protocol.NAK:
                log.warning(_("display refused %s %s: %s"), kind, payload, reason)
                with self._lock:
                    self._status["refused"] += 1
                    self._status["last_error"] = f"display refused {kind}: {reason}"
            else:
                with self._lock:
                    self._status["frames_acked"] += 1
            # A refused frame is settled too: sending it again would be refused again.
            self._settle(kind, payload)
            if self._inflight is not None and self._inflight[1:3] == (kind, payload):
                self._inflight = None
                self._timeout = self.ack_timeout

    def _hello(self, payload: str) -> None:
        try:
            name, fields = protocol.parse_hello(payload)
        except protocol.ProtocolError as exc:
            self._set(last_error=f"HELLO: {exc}")
            return
        version = fields.get("proto")
        if name != protocol.DISPLAY_NAME or version != str(protocol.PROTOCOL_VERSION):
            self._ready = False
            self._set(link="incompatible", firmware=fields.get("fw"), protocol=version,
                      last_error=f"display {name} speaks protocol {version}, "
                                 f"we speak {protocol.PROTOCOL_VERSION}")
            return
        if self._ready:
            # The display restarted behind an open port (watchdog): it has forgotten all.
            self._acked_state = None
        self._ready = True
        if self._inflight is not None and self._inflight[1] == protocol.HELLO:
            self._inflight = None
        self._set(link="ok", firmware=fields.get("fw"), protocol=version, last_error=None)

    def _settle(self, kind: str, payload: str) -> None:
        if kind == protocol.STATE:
            self._acked_state = payload
        elif kind == protocol.ALERT and self._alert and self._alert[0] == payload:
            self._alert = None
        elif kind == protocol.PIN and self._pin and self._pin[0] == payload:
            self._pin = None

    def _next_frame(self, now: float) -> tuple[str, str] | None:
        if not self._ready:
            return (protocol.HELLO, f"host proto={protocol.PROTOCOL_VERSION}")
        if self._pin is not None and now - self._pin[1] > PIN_KEEP_S:
            self._pin = None
        if self._alert is not None and now - self._alert[1] > ALERT_KEEP_S:
            self._alert = None
        if self._pin is not None:
            return (protocol.PIN, self._pin[0])
        if self._alert is not None:
            return (protocol.ALERT, self._alert[0])
        if self._want_state is not None and self._want_state != self._acked_state:
            return (protocol.STATE, self._want_state)
        if now - self._last_tx >= self.heartbeat:
            return (protocol.PING, "")
        return None

    def _send_next(self, now: float) -> None:
        if self._inflight is not None:
            if now - self._inflight[3] < self._timeout:
                return
            # No ACK in time: send again (the latest of its kind), waiting longer.
            self._timeout = min(self._timeout * 2, MAX_ACK_TIMEOUT)
            with self._lock:
                self._status["retries"] += 1
            self._inflight = None
        nxt = self._next_frame(now)
        if nxt is None:
            return
        kind, payload = nxt
        seq = self._seq
        self._seq = protocol.next_seq(seq)
        line = protocol.encode_frame(seq, kind, payload)
        self._sent[seq] = (kind, payload)
        if len(self._sent) > RECENT_SEQS:
            del self._sent[next(iter(self._sent))]
        self._inflight = (seq, kind, payload, now)
        self._last_tx = now
        assert self._serial is not None
        try:
            self._serial.write(line)
        except serial.SerialTimeoutException:
            # The display is not reading: count it as a lost frame, retried on timeout.
            self._set(last_error="write timed out")
        with self._lock:
            self._status["frames_sent"] += 1

    def _set(self, **parts: Any) -> None:
        with self._lock:
            changed = any(self._status.get(k) != v for k, v in parts.items())
            link_changed = "link" in parts and self._status.get("link") != parts["link"]
            self._status.update(parts)
            snapshot = dict(self._status)
        if changed and link_changed and self.on_status is not None:
            try:
                self.on_status(snapshot)
            except Exception:
                log.exception(_("display: on_status callback failed"))


def probe(port: str, timeout: float = 3.0) -> dict[str, str]:
    """Open ``port``, say HELLO, and return what the display answers
    (``{"name", "fw", "proto"}``); raises ``TimeoutError`` when nothing answers."""
    reader = protocol.LineReader()
    hello = protocol.encode_frame(0, protocol.HELLO, f"host proto={protocol.PROTOCOL_VERSION}")
    with serial.Serial(port, BAUDRATE, timeout=0.05, write_timeout=1.0, exclusive=True) as ser:
        ser.reset_input_buffer()
        deadline = time.monotonic() + timeout
        next_hello = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() >= next_hello:
                ser.write(hello)
                next_hello = time.monotonic() + 0.5
            for frame in reader.feed(ser.read(max(1, ser.in_waiting))):
                if frame.kind == protocol.HELLO:
                    name, fields = protocol.parse_hello(frame.payload)
                    return {"name": name, **fields}
    raise TimeoutError(f"{port}: no HELLO from the display within {timeout:g} s")


def request_maintenance(port: str, timeout: float = 2.0) -> bool:
    """Ask the display to restart with its REPL open (for mpremote); True when it acked.

    False means nothing answered: a Pico with MicroPython but no firmware yet,
    whose REPL is open anyway.
    """
    reader = protocol.LineReader()
    maint = protocol.encode_frame(0, protocol.MAINT)
    with serial.Serial(port, BAUDRATE, timeout=0.05, write_timeout=1.0, exclusive=True) as ser:
        ser.reset_input_buffer()
        deadline = time.monotonic() + timeout
        next_try = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() >= next_try:
                ser.write(maint)
                next_try = time.monotonic() + 0.5
            for frame in reader.feed(ser.read(max(1, ser.in_waiting))):
                if frame.kind == protocol.ACK and frame.payload == "0":
                    return True
    return False
