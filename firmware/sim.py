"""A simulated score display for the PC: stands in for the TM1637s and the LED.

``SimDisplay`` keeps the segment bytes it was given and can say which text
they spell (for tests) or draw them as big seven-segment ASCII art (for the
emulator in a terminal). Pure code: it runs under MicroPython too.

>>> d = SimDisplay()
>>> d.show_text("120", colon=True)
>>> d.text(), d.colon
(' 120', True)
>>> print("\\n".join(render_row(d.segs, d.colon)))
                  ----    ----
             | o      |  |    |
                  ----
             | o |       |    |
                  ----    ----
"""

try:
    from firmware import segments
except ImportError:
    import segments


class SimDisplay(segments.SegmentDisplay):
    """A display that remembers what it shows instead of lighting anything."""

    def __init__(self):
        super().__init__()
        self.writes = 0

    def show(self, segs):
        if len(segs) != segments.DIGITS:
            raise ValueError(f"show: {len(segs)} digits, the display has {segments.DIGITS}")
        self.segs = list(segs)
        self.writes += 1

    @property
    def colon(self):
        return bool(self.segs[1] & segments.SEG_DP)

    def text(self):
        """The four characters shown, blanks included."""
        return segments.decode(self.segs)


class SimLed:
    """The alert LED, with the ``value()`` method of ``machine.Pin``."""

    def __init__(self):
        self.on = False

    def value(self, v=None):
        if v is None:
            return 1 if self.on else 0
        self.on = bool(v)
        return None


def _digit_rows(bits):
    def seg(mask, mark):
        return mark if bits & mask else " "

    h = "----"
    return [
        " " + (h if bits & segments.SEG_A else "    ") + " ",
        seg(segments.SEG_F, "|") + "    " + seg(segments.SEG_B, "|"),
        " " + (h if bits & segments.SEG_G else "    ") + " ",
        seg(segments.SEG_E, "|") + "    " + seg(segments.SEG_C, "|"),
        " " + (h if bits & segments.SEG_D else "    ") + " ",
    ]


def render_row(segs, colon=False):
    """Five lines of text drawing four digits (six columns each) and the colon."""
    digits = [_digit_rows(b & 0x7F) for b in segs]
    dot = " o " if colon else "   "
    dots = ["   ", dot, "   ", dot, "   "]
    lines = []
    for row in range(5):
        parts = [digits[0][row], digits[1][row], dots[row], digits[2][row], digits[3][row]]
        lines.append("  ".join(parts[:2]) + parts[2] + "  ".join(parts[3:]))
    return [line.rstrip() for line in lines]
