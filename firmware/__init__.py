"""Firmware of the table's score display (MicroPython on a Raspberry Pi Pico).

The modules here are copied flat onto the Pico (``protocol.py``, ``segments.py``,
``scoreboard.py``, ``app.py``, ``tm1637.py``, ``main.py``). On the PC the same
files form this package, so the host driver imports ``firmware.protocol`` and
the emulator runs ``firmware.app`` with the simulated display of
``firmware.sim``: one protocol module, one display logic, on both sides.
"""
