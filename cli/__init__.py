"""The command line on top of the house: ``belote-table`` (``main``) and each of its
commands (``cmd_*``, the reader's own in ``cmd_vision``), and ``outputs``, which wires
a table's service to its pages, its display and the club for ``run`` and ``demo``."""
