"""The ``micropython`` module as firmware/main.py sees it on the simulated Pico:
the unix port's own, with ``kbd_intr`` reported on stderr (``K<char>;``) so the
test can check that Ctrl-C is turned into plain data before anything is read."""

import sys

import micropython as _real

const = _real.const


def kbd_intr(chr):
    sys.stderr.write(f"K{chr};")
    _real.kbd_intr(chr)
