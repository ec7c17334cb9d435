"""A simulated RP2040 ``machine`` module for running firmware/main.py under the
MicroPython unix port (whose own ``machine`` has no Pin or WDT).

Every pin change is written to stderr as ``P<gpio>=<0|1>;`` so the test can
decode the TM1637 bit stream the real pin driver produces; the watchdog and
reset are reported the same way (``W<ms>;``, ``RESET;``).
"""

import sys


def _out(text):
    sys.stderr.write(text)


class Pin:
    IN = 0
    OUT = 1

    def __init__(self, gpio, mode=-1, value=None):
        self.gpio = gpio
        self.level = 0
        self.init(mode, value=value)

    def init(self, mode=-1, value=None):
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        _out(f"P{self.gpio}={self.level};")
        return None


class WDT:
    def __init__(self, timeout=5000):
        self.fed = False
        _out(f"W{timeout};")

    def feed(self):
        if not self.fed:
            self.fed = True
            _out("F;")


def reset():
    _out("RESET;")
    raise SystemExit(0)
