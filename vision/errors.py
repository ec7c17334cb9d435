"""Refusals that a command can say in the organiser's language.

The reader's runtime speaks English and imports nothing of the command line (the
layers of tests/test_layout.py); an organiser reads French first. A
:class:`ExplainedError` keeps its English message's parts, the ``template`` and
the ``values`` that fill it, and the command that prints it looks the template
up in its catalog (``companion.i18n.reason``), which holds the French of every
template raised here (``pybabel extract`` finds them by the exceptions' names).
"""

from __future__ import annotations


class ExplainedError(ValueError):
    """A ``ValueError`` whose message is ``template % values``.

    >>> e = ExplainedError("%(path)s: no such folder", path="cards")
    >>> str(e), e.template, e.values
    ('cards: no such folder', '%(path)s: no such folder', {'path': 'cards'})
    """

    def __init__(self, template: str, **values: object) -> None:
        super().__init__(template % values if values else template)
        self.template, self.values = template, values
