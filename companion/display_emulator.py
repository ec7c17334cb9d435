"""The score display emulated on a pseudo terminal: the firmware's own logic
(``firmware.app`` with the simulated displays of ``firmware.sim``) served on a pty,
which the display driver opens like a Pico's serial port.

Used by the demo and ``belote-table run`` (``cli.outputs``), the tests, and
``belote-table display-emulator``, which draws it in a terminal::

    emu = Emulator(link="/tmp/belote-display")
    path = emu.start()          # the pty's path; the driver opens it like a serial port
    emu.shown()                 # {"NS": " 120", "EW": "  80", "led": False, ...}
    emu.reboot()                # as if the watchdog restarted the Pico
    emu.stop()                  # as if the cable were pulled
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from firmware.app import DisplayApp
from firmware.sim import SimDisplay, SimLed, render_row


def _now_ms() -> int:
    return int(time.monotonic() * 1000)


class Emulator:
    """The firmware's DisplayApp served on a pseudo terminal, in a thread.

    ``latency`` (seconds) delays every chunk the emulator reads, to play a
    slow display. ``on_change`` is called with ``shown()`` whenever the
    picture changes.
    """

    def __init__(self, link: str | None = None, latency: float = 0.0,
                 on_change: Callable[[dict[str, Any]], None] | None = None,
                 **timings: int) -> None:
        self.link = link
        self.timings = timings  # banner_ms, silence_ms: see firmware.scoreboard
        self.latency = latency
        self.on_change = on_change
        self.ns = SimDisplay()
        self.ew = SimDisplay()
        self.led = SimLed()
        self.app: DisplayApp | None = None
        self.path: str | None = None
        self.received = 0
        self._master = -1
        self._slave = -1
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Open the pty, boot the firmware logic, and return the pty's path."""
        if self._thread is not None:
            raise RuntimeError("emulator: already started")
        master, slave = os.openpty()
        # Raw mode at once: otherwise the line discipline echoes our own
        # output back to us and turns newlines into CR LF before a driver opens it.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.path = os.ttyname(slave)
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)
            os.symlink(self.path, self.link)
        self._boot()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="display-emulator", daemon=True)
        self._thread.start()
        return self.path

    def stop(self) -> None:
        """Close the pty (the driver sees the cable pulled) and end the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        if self.link and self.path:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == self.path:
                    os.unlink(self.link)
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    def __enter__(self) -> Emulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def shown(self) -> dict[str, Any]:
        """What the displays show now: the texts, the colons and the LED."""
        with self._lock:
            return {"NS": self.ns.text(), "EW": self.ew.text(), "ns_colon": self.ns.colon,
                    "ew_colon": self.ew.colon, "led": self.led.on}

    def drawing(self) -> str:
        """Both displays as big seven-segment digits, NS above EW, and the LED."""
        with self._lock:
            rows = [f"NS{'':4}{'(*) renonce' if self.led.on else '( )'}"]
            rows += ["  " + line for line in render_row(self.ns.segs, self.ns.colon)]
            rows += ["", "EW"]
            rows += ["  " + line for line in render_row(self.ew.segs, self.ew.colon)]
        return "\n".join(rows)

    def reboot(self) -> None:
        """Restart the firmware behind the open line, as the Pico's watchdog does:
        it forgets what it was shown, draws its boot banner and says HELLO again."""
        if self._thread is None:
            raise RuntimeError("emulator: not started")
        self._boot()

    def _boot(self) -> None:
        """A fresh firmware: boot banner on the digits, HELLO on the line."""
        with self._lock:
            self.app = DisplayApp(self.ns, self.ew, self.led, _now_ms(), **self.timings)
            hello = self.app.start(_now_ms())
        self._write(hello)
        self._changed()

    def inject(self, data: bytes) -> None:
        """Send raw bytes toward the host, as line noise from the display would."""
        self._write(data)

    def _write(self, data: bytes) -> None:
        if not data:
            return
        try:
            os.write(self._master, data)
        except BlockingIOError:
            pass  # nobody reads the line and its buffer is full: a real USB port drops too
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.shown())

    def _run(self) -> None:
        assert self.app is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.05)
            data = b""
            if ready:
                try:
                    data = os.read(self._master, 1024)
                except (BlockingIOError, InterruptedError):
                    data = b""
                except OSError:
                    data = b""
                    time.sleep(0.05)  # EIO while no one has the other end open
            if data and self.latency:
                time.sleep(self.latency)
            with self._lock:
                before = self.app.shown
                if data:
                    self.received += len(data)
                    reply = self.app.feed(data, _now_ms())
                else:
                    reply = b""
                    self.app.tick(_now_ms())
                changed = self.app.shown != before
            self._write(reply)
            if changed:
                self._changed()
