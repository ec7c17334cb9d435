"""Whether the cards in a frame are of a size the card reader reads.

``belote-table calibrate`` asks it of the frame it calibrates on, so that an
organiser moves the camera before the game rather than after a card waits
unread. ``benchmarks/card_size.py`` measures the reader at each card size
(``benchmarks/card_size.json``); the bounds below are taken from there.
"""

from __future__ import annotations

from typing import Any

# Cards as a share of the frame's height. The reader was trained on cards within
# these bounds: below the first, most corner indices are too small to be read; above
# the second, a card played at a seat's edge leaves the frame.
CARD_SHARE = (0.16, 0.40)
# From here up the reader reads every card of benchmarks/card_size.json's frames;
# between CARD_SHARE[0] and here it misses a few, so the organiser is told to zoom in.
GOOD_FROM = 0.23
# A corner index's box is about a quarter of its card's height on rendered frames, so
# the card's share is told from the indices' (the cards themselves may be half hidden).
INDEX_PER_CARD = 0.25


def check_card_size(frame: Any) -> tuple[bool, str]:
    """Whether the cards in ``frame`` are of a size the card reader reads, and a line for
    the organiser saying so (or what to do). False when none is seen, or too small or
    too large."""
    from vision.reader import CardReader

    sides, needed = CardReader().index_sizes(frame)
    low, high = CARD_SHARE
    if not sides:
        return False, ("cards: none seen. Put a card down in front of each seat and calibrate "
                       f"again: the card reader needs each card to fill {100 * low:.0f} to "
                       f"{100 * high:.0f} % of the frame's height (hardware/camera-mount.md)")
    card = sides[len(sides) // 2] / INDEX_PER_CARD
    unreadable = sum(s < needed for s in sides)
    size = (f"cards: about {100 * card:.0f} % of the frame's height ({len(sides)} corner "
            f"indices seen; the card reader reads cards best from {100 * GOOD_FROM:.0f} to "
            f"{100 * high:.0f} %)")
    if card < low:
        return False, (f"{size}: TOO SMALL to be read. Bring the camera lower or zoom in "
                       "(run --zoom, hardware/camera-mount.md)")
    if card < GOOD_FROM:
        return False, (f"{size}: SMALL: a few cards in a hundred may wait unread. Zoom in "
                       f"a little or bring the camera lower, to {100 * GOOD_FROM:.0f} % or more "
                       "(run --zoom, hardware/camera-mount.md)")
    if card > high:
        return False, (f"{size}: TOO LARGE: the played cards may leave the frame. Raise the "
                       "camera or zoom out (hardware/camera-mount.md)")
    if unreadable:
        return True, (f"{size}: good; {unreadable} of the indices are too small to read: "
                      "cards at the edge of the frame or half hidden?")
    return True, f"{size}: good"
