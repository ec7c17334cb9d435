"""Seven-segment encoding: text to the segment bytes a 4-digit display takes.

Pure code (MicroPython and CPython). Bit 0 is segment a (top), then b, c, d,
e, f clockwise, bit 6 is g (middle) and bit 7 the colon or decimal point, the
order the TM1637 chip uses. ``SegmentDisplay`` is the interface the firmware
draws on; ``tm1637.TM1637`` drives the real chip and ``sim.SimDisplay``
stands in for it on the PC.

>>> [hex(b) for b in encode("12-4")]
['0x6', '0x5b', '0x40', '0x66']
>>> decode(encode("bELo"))
'bELo'
"""

SEG_A = 0x01
SEG_B = 0x02
SEG_C = 0x04
SEG_D = 0x08
SEG_E = 0x10
SEG_F = 0x20
SEG_G = 0x40
SEG_DP = 0x80  # the colon on the common 4-digit TM1637 module (bit 7 of digit 2)

DIGITS = 4

# One shape per character. Letters have one case only where the other cannot
# be drawn (no "M", "W", "X" on seven segments); lookups try both cases.
FONT = {
    " ": 0x00, "-": 0x40, "_": 0x08, "=": 0x48,
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66,
    "5": 0x6D, "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F,
    "A": 0x77, "b": 0x7C, "C": 0x39, "c": 0x58, "d": 0x5E, "E": 0x79, "F": 0x71,
    "G": 0x3D, "H": 0x76, "h": 0x74, "I": 0x30, "J": 0x1E, "L": 0x38, "n": 0x54,
    "o": 0x5C, "O": 0x3F, "P": 0x73, "q": 0x67, "r": 0x50, "S": 0x6D, "t": 0x78,
    "U": 0x3E, "u": 0x1C, "y": 0x6E,
}

_SHAPES = {}
for _ch, _bits in FONT.items():
    # Where two characters share a shape ("5"/"S", "0"/"O"), decode gives the first.
    if _bits not in _SHAPES:
        _SHAPES[_bits] = _ch


def glyph(ch):
    """The segment bits for one character; ValueError names a character with no shape."""
    bits = FONT.get(ch)
    if bits is None:
        bits = FONT.get(ch.lower())
    if bits is None:
        bits = FONT.get(ch.upper())
    if bits is None:
        raise ValueError(f"segments: no seven-segment shape for {ch!r}")
    return bits


def encode(text, colon=False):
    """Four segment bytes for ``text`` (at most four characters, padded right-aligned).

    ``colon`` lights the colon between the second and third digits.
    """
    if len(text) > DIGITS:
        raise ValueError(f"segments: {text!r} is longer than {DIGITS} digits")
    text = " " * (DIGITS - len(text)) + text
    out = [glyph(ch) for ch in text]
    if colon:
        out[1] |= SEG_DP
    return out


def decode(segs):
    """The text a row of segment bytes shows ("?" for a shape with no character)."""
    return "".join(_SHAPES.get(b & ~SEG_DP & 0xFF, "?") for b in segs)


def number(value):
    """A score as at most four characters: 9999 at most, -999 at least.

    >>> number(120), number(12345), number(-40)
    ('120', '9999', '-40')
    """
    if value > 9999:
        value = 9999
    if value < -999:
        value = -999
    return str(value)


class SegmentDisplay:
    """A 4-digit seven-segment display. Subclasses implement ``show(segs)``."""

    def __init__(self):
        self.segs = [0] * DIGITS

    def show(self, segs):
        """Light these four segment bytes."""
        raise NotImplementedError

    def show_text(self, text, colon=False):
        self.show(encode(text, colon))
