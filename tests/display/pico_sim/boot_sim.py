"""Boot firmware/main.py on the simulated Pico: put the simulated ``machine`` in
place of the unix port's, then import main as MicroPython does at power-on."""

import sys

import pico_machine

sys.modules["machine"] = pico_machine

import main  # noqa: E402,F401  (runs the firmware)
