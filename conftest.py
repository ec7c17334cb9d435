"""pytest's collection at the project root: the doctests of every package run
(``--doctest-modules`` over ``testpaths``), except the modules that import the
Pico's own ``machine`` and run only there."""

collect_ignore = ["firmware/main.py", "firmware/tm1637.py"]
