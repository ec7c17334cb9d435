"""Pin driver for a TM1637 4-digit seven-segment module (Pico only: uses ``machine``).

The TM1637 speaks a two-wire bus close to I2C but without addresses and with
bytes sent least significant bit first, so it is bit-banged on two GPIO pins.
All the deciding of what to show is elsewhere (``scoreboard``, ``segments``):
this file only moves bits, and is the one part the PC tests cannot run.
"""

from time import sleep_us

from machine import Pin

try:
    from firmware.segments import DIGITS, SegmentDisplay
except ImportError:
    from segments import DIGITS, SegmentDisplay

CMD_DATA_AUTO = 0x40  # write display data, address auto-increment
CMD_ADDRESS = 0xC0  # first digit's address
CMD_DISPLAY_ON = 0x88  # display on, OR'ed with brightness 0..7
BIT_DELAY_US = 5  # the chip is good to about 250 kHz; 5 us leaves margin on long wires


class TM1637(SegmentDisplay):
    """One module on pins ``clk`` and ``dio`` (GPIO numbers)."""

    def __init__(self, clk, dio, brightness=3):
        super().__init__()
        self.clk = Pin(clk, Pin.OUT, value=1)
        self.dio = Pin(dio, Pin.OUT, value=1)
        self.brightness = brightness & 7

    def _start(self):
        self.dio.value(0)
        sleep_us(BIT_DELAY_US)
        self.clk.value(0)
        sleep_us(BIT_DELAY_US)

    def _stop(self):
        self.dio.value(0)
        sleep_us(BIT_DELAY_US)
        self.clk.value(1)
        sleep_us(BIT_DELAY_US)
        self.dio.value(1)

    def _write_byte(self, byte):
        for i in range(8):
            self.dio.value((byte >> i) & 1)
            sleep_us(BIT_DELAY_US)
            self.clk.value(1)
            sleep_us(BIT_DELAY_US)
            self.clk.value(0)
        # Ninth clock: the chip pulls DIO low to acknowledge. A missing module
        # must not hang the firmware, so the ack is clocked but not waited for.
        self.dio.init(Pin.IN)
        sleep_us(BIT_DELAY_US)
        self.clk.value(1)
        sleep_us(BIT_DELAY_US)
        self.clk.value(0)
        self.dio.init(Pin.OUT, value=0)

    def _command(self, *data):
        self._start()
        for byte in data:
            self._write_byte(byte)
        self._stop()

    def show(self, segs):
        if len(segs) != DIGITS:
            raise ValueError(f"show: {len(segs)} digits, the display has {DIGITS}")
        self.segs = list(segs)
        self._command(CMD_DATA_AUTO)
        self._command(CMD_ADDRESS, *segs)
        self._command(CMD_DISPLAY_ON | self.brightness)
