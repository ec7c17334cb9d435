"""CSV a spreadsheet opens as data, never as formulas (issue 74).

Excel (French or not) and LibreOffice read a cell starting with ``=``, ``+``,
``-`` or ``@`` (or a tab or carriage return, which they skip first) as a
formula: a team named ``=HYPERLINK("http://...","Gagnants")`` would become a
link, or worse, in the club's spreadsheet. Every text cell so starting is
written with a leading apostrophe, the spreadsheets' own mark for "this is
text"; numbers stay numbers (a score of -20 is the number -20, written as it
is), and every other text is written unchanged.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """``value`` as a CSV cell: text that a spreadsheet would take for a
    formula gets a leading apostrophe; anything else is left as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class Writer:
    """``csv.writer`` whose rows go through :func:`cell`."""

    def __init__(self, out: Any, **options: Any) -> None:
        self._writer = csv.writer(out, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: Any, **options: Any) -> Writer:
    """A CSV writer (``csv.writer``'s options) that writes no formula."""
    return Writer(out, **options)
