"""Black decks: a drawn style printed on black paper, every sign in one ink, gold or
silver, as ``benchmarks/lights.py`` and ``vision.lab.rule_cases`` draw them."""

from __future__ import annotations

from vision.lab import render

BLACK_PAPER = (28, 26, 24)
INKS = {"gold": (60, 180, 215), "silver": (200, 200, 200)}  # BGR
#: The four styles ``benchmarks/lights.py`` reports in black (seeds 9851...).
BLACK_BASES = ("fr-grimaud", "fr-printed-serif", "fr-ducale", "en-bicycle")


def black_style(base: str, ink: str) -> str:
    """The name of ``base`` printed on black paper in one ``ink`` (registered)."""
    style = render.with_style(render.get_style(base), name=f"{base}-black-{ink}",
                              paper=BLACK_PAPER, red=INKS[ink], black=INKS[ink])
    render.register_style(style)
    return style.name


def other_bases() -> tuple[str, ...]:
    """The other drawn styles, printed in black beside ``BLACK_BASES`` (``lights.py
    --other-frames``), in order: style k of a draw from seed s is drawn from s + k."""
    return tuple(st.name for st in (*render.STYLES, *render.PRINTED_FRENCH)
                 if st.name not in BLACK_BASES)
