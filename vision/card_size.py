"""Whether the cards in a frame are of a size the card reader reads.

``belote-table calibrate`` asks it of the frame it calibrates on, so that an
organiser moves the camera before the game rather than after a card waits
unread. ``benchmarks/card_size.py`` measures the reader at each card size
(``benchmarks/card_size.json``); the bounds are taken from there and ship with the
classifier (``vision.settings.ReaderSettings``: ``card_share``, ``card_good_from``,
``index_per_card``).
"""

from __future__ import annotations

from typing import Any

from vision.settings import shipped_settings

# The shipped model's bounds, for the benchmarks that name them (the check reads its
# reader's settings): the cards' share of the frame's height the reader was trained on,
# and where from it reads every card of the card-size benchmark's frames.
CARD_SHARE = shipped_settings().card_share
GOOD_FROM = shipped_settings().card_good_from


def N_(message: str) -> str:
    """Marks a message for the command line's catalog (``companion.i18n``, which the
    reader's runtime cannot import): the command that prints it translates it."""
    return message


def check_card_size(frame: Any) -> tuple[bool, str, dict[str, Any]]:
    """Whether the cards in ``frame`` are of a size the card reader reads, and a line for
    the organiser saying so (or what to do): an English template and its fields, which
    the command translates (``_(template) % fields``). False when none is seen, or too
    small or too large."""
    from vision.reader import CardReader

    reader = CardReader()
    tuned = reader.settings
    sides, needed = reader.index_sizes(frame)
    low, high = tuned.card_share
    good = tuned.card_good_from
    bounds = {"low": f"{100 * low:.0f}", "high": f"{100 * high:.0f}",
              "good": f"{100 * good:.0f}"}
    if not sides:
        return False, N_("cards: none seen. Put a card down in front of each seat and "
                         "calibrate again: the card reader needs each card to fill %(low)s to "
                         "%(high)s %% of the frame's height (hardware/camera-mount.md)"), bounds
    card = sides[len(sides) // 2] / tuned.index_per_card
    unreadable = sum(s < needed for s in sides)
    fields = {**bounds, "card": f"{100 * card:.0f}", "n": len(sides), "unreadable": unreadable}
    if card < low:
        return False, N_("cards: about %(card)s %% of the frame's height (%(n)s corner indices "
                         "seen): TOO SMALL to be read. Bring the camera lower or zoom in (run "
                         "--zoom, hardware/camera-mount.md)"), fields
    if card < good:
        return False, N_("cards: about %(card)s %% of the frame's height (%(n)s corner indices "
                         "seen): SMALL: a few cards in a hundred may wait unread. Zoom in a "
                         "little or bring the camera lower, to %(good)s %% or more (run --zoom, "
                         "hardware/camera-mount.md)"), fields
    if card > high:
        return False, N_("cards: about %(card)s %% of the frame's height (%(n)s corner indices "
                         "seen): TOO LARGE: the played cards may leave the frame. Raise the "
                         "camera or zoom out (hardware/camera-mount.md)"), fields
    if unreadable:
        return True, N_("cards: about %(card)s %% of the frame's height (%(n)s corner indices "
                        "seen; the card reader reads cards best from %(good)s to %(high)s %%): "
                        "good; %(unreadable)s of the indices are too small to read: cards at "
                        "the edge of the frame or half hidden?"), fields
    return True, N_("cards: about %(card)s %% of the frame's height (%(n)s corner indices seen; "
                    "the card reader reads cards best from %(good)s to %(high)s %%): good"), fields


def check_light(frame: Any) -> tuple[str, dict[str, Any]] | None:
    """A line for the organiser when a coloured lamp tints the cards' paper in ``frame``
    (``vision.paper.paper_gains``): such frames are read as a black-and-white camera's.
    None under a white enough light, or on a grey frame."""
    from vision.paper import paper_gains

    if frame.ndim != 3 or paper_gains(frame) is None:
        return None
    return N_("light: a coloured lamp tints the cards' white paper. The cards are read as "
              "with a black-and-white camera: more of them wait a moment before they are "
              "named. A white light over the table reads better."), {}
