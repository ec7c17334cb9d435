"""Boot firmware/main.py on the simulated Pico: put the simulated ``machine`` (and a
``micropython`` that reports ``kbd_intr``) in place of the unix port's, then import
main as MicroPython does at power-on."""

import sys

import pico_machine
import pico_micropython

sys.modules["machine"] = pico_machine
sys.modules["micropython"] = pico_micropython

import main  # noqa: E402,F401  (runs the firmware)
