"""Entry point on the Pico: USB serial <-> DisplayApp <-> two TM1637s and the LED.

MicroPython runs ``main.py`` at boot. Pins (see hardware/wiring.md): NS display
CLK GP2 / DIO GP3, EW display CLK GP4 / DIO GP5, alert LED GP15 (through 330 ohm).

Maintenance: the firmware ignores Ctrl-C and runs under a watchdog, so a tool
cannot break into it. A MAINT frame (``belote-table display flash`` sends one)
leaves a flag file and restarts the Pico; the next boot sees the flag, removes
it, and stays at the REPL without the watchdog, for mpremote to copy files.
"""

import os
import select
import sys
import time

import machine
import micropython
from app import DisplayApp
from tm1637 import TM1637

NS_PINS = (2, 3)
EW_PINS = (4, 5)
LED_PIN = 15
# Longest the RP2040 watchdog allows is about 8.3 s; a stuck loop restarts the Pico.
WATCHDOG_MS = 8000
READ_CHUNK = 64
MAINTENANCE_FLAG = "maintenance"


def run():
    # The host's frames may contain any byte, Ctrl-C (0x03) included: it must be
    # data, not a KeyboardInterrupt that drops the Pico to the REPL.
    micropython.kbd_intr(-1)
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    led = machine.Pin(LED_PIN, machine.Pin.OUT, value=0)
    app = DisplayApp(TM1637(*NS_PINS), TM1637(*EW_PINS), led, time.ticks_ms(),
                     ticks_diff=time.ticks_diff)
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    stdout.write(app.start(time.ticks_ms()))
    while True:
        wdt.feed()
        data = b""
        # Wait up to 20 ms for a byte, then take what is there without blocking.
        while len(data) < READ_CHUNK and poll.poll(20 if not data else 0):
            byte = stdin.read(1)
            if not byte:
                break  # end of input: only on a PC test harness, never on USB
            data += byte
        now = time.ticks_ms()
        if data:
            reply = app.feed(data, now)
            if reply:
                stdout.write(reply)
            if app.maintenance_requested:
                with open(MAINTENANCE_FLAG, "w") as flag:
                    flag.write("1")
                time.sleep_ms(100)  # let the ACK leave before USB goes away
                machine.reset()
        else:
            app.tick(now)


def maintenance_boot():
    """True (and the flag removed) when this boot was asked for by a MAINT frame."""
    try:
        os.remove(MAINTENANCE_FLAG)
    except OSError:
        return False
    return True


if maintenance_boot():
    print("belote-display: maintenance mode, REPL open; reset to start the firmware")
else:
    run()
