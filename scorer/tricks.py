"""Card order, card points, trick winner and the one legality rule (FFB 5.2).

Cards are numbered 0..31 here (``suit * 8 + rank``, the order of
``scorer.cards.CARD_CODES``) and hands are bit masks, so that the fold over a
game's events does table look-ups, not object work.

A trump mode is a suit index 0..3 (``S H D C``), ``NT`` (sans atout, 4) or
``AT`` (tout atout, 5).

Legality is expressed one way only: :func:`forbidden` gives, for a card put
down in a trick, the cards whose presence in the player's hand would have made
that play illegal, each part with the rule it breaks. A known hand is checked by
testing it against that mask (:func:`legal_plays`); an unknown hand is proven
wrong later, when the player puts down one of those cards (a renonce).

>>> card_index("JH"), card_code(15)
(12, 'AH')
>>> [card_code(c) for c in legal_plays(mask_of(["7S", "AH", "8C"]), [card_index("KH")], 1)]
['AH']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from scorer import cards
from scorer.cards import CARD_CODES, RANKS

NT: Final = 4
AT: Final = 5
# The trump modes in their numbered order (scorer.cards.TRUMPS).
TRUMP_CODES: Final = cards.TRUMPS

# Order from weakest to strongest (FFB 6).
_TRUMP_ORDER: Final = ("7", "8", "Q", "K", "T", "A", "9", "J")
_PLAIN_ORDER: Final = ("7", "8", "9", "J", "Q", "K", "T", "A")
_TRUMP_POINTS: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
_PLAIN_POINTS: Final = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
# FFB 11.2: at Sans Atout the ace is worth 19 (so that the deck still makes 152 + 10).
_NT_POINTS: Final = {**_PLAIN_POINTS, "A": 19}

_INDEX: Final = {code: i for i, code in enumerate(CARD_CODES)}
SUIT_OF: Final = tuple(i // 8 for i in range(32))
SUIT_MASK: Final = tuple(sum(1 << (s * 8 + r) for r in range(8)) for s in range(4))
ALL_CARDS: Final = (1 << 32) - 1


def card_index(code: str) -> int:
    """The number of a card written in the project's notation."""
    return _INDEX[code]


def card_code(index: int) -> str:
    return CARD_CODES[index]


def mask_of(codes: Sequence[str]) -> int:
    m = 0
    for c in codes:
        m |= 1 << _INDEX[c]
    return m


def cards_in(mask: int) -> list[int]:
    return [i for i in range(32) if mask >> i & 1]


def trump_mode(code: str) -> int:
    """``"H"`` -> 1, ``"NT"`` -> 4, ``"AT"`` -> 5."""
    return TRUMP_CODES.index(code)


def _is_trump(mode: int, card: int) -> bool:
    return mode == AT or SUIT_OF[card] == mode


def _build_tables() -> tuple[list[list[int]], list[list[int]], list[int], list[list[int]]]:
    strength: list[list[int]] = []   # [mode][card]: order within its suit, +8 for a trump
    points: list[list[int]] = []     # [mode][card]
    trumps: list[int] = []           # [mode]: mask of the trump cards
    higher: list[list[int]] = []     # [mode][card]: cards of the same suit that beat it
    for mode in range(6):
        st, pt = [], []
        for card in range(32):
            rank = RANKS[card % 8]
            if _is_trump(mode, card):
                st.append(8 + _TRUMP_ORDER.index(rank))
                pt.append(_TRUMP_POINTS[rank])
            else:
                st.append(_PLAIN_ORDER.index(rank))
                pt.append(_NT_POINTS[rank] if mode == NT else _PLAIN_POINTS[rank])
        strength.append(st)
        points.append(pt)
        trumps.append(ALL_CARDS if mode == AT else SUIT_MASK[mode] if mode < 4 else 0)
        higher.append([sum(1 << o for o in range(32)
                           if SUIT_OF[o] == SUIT_OF[c] and st[o] > st[c]) for c in range(32)])
    return strength, points, trumps, higher


STRENGTH, POINTS, TRUMPS, HIGHER = _build_tables()
# KEYS[mode][led suit][card]: how strongly the card bids for the trick, -1 if it cannot win.
KEYS: Final = [[[STRENGTH[m][c] if SUIT_OF[c] == led or SUIT_OF[c] == m else -1
                 for c in range(32)] for led in range(4)] for m in range(6)]


def winning_position(cards: Sequence[int], mode: int) -> int:
    """Position in the trick (0 = lead) of the card that holds it (FFB 5.1).

    >>> winning_position([card_index(c) for c in ("7H", "AH", "8S", "TH")], 0)
    2
    >>> winning_position([card_index(c) for c in ("7H", "AH", "8S", "TH")], AT)
    1
    """
    st = STRENGTH[mode]
    led = SUIT_OF[cards[0]]
    trump_suit = mode if mode < 4 else -1
    best, best_key = 0, st[cards[0]]
    for pos in range(1, len(cards)):
        c = cards[pos]
        s = SUIT_OF[c]
        if s in (led, trump_suit):
            k = st[c]
            if k > best_key:
                best, best_key = pos, k
    return best


# Rule names of docs/design.md, indexed by the part of the forbidden mask they check.
FOLLOW, TRUMP, OVERTRUMP, UNDERTRUMP = "follow", "trump", "overtrump", "undertrump"


def forbidden(card: int, trick: Sequence[int], mode: int, must_undertrump: bool = False,
              partner_master_free: bool = True) -> list[tuple[int, str]]:
    """The cards that, held, would have made playing ``card`` on ``trick`` illegal.

    ``trick`` is the cards already in the trick, from the lead. Returns parts
    ``(mask, rule)``; an empty list means the card was legal whatever the hand.

    >>> trick = [card_index("KH"), card_index("8S")]          # hearts led, spades trump, cut
    >>> [(cards_in(m), r) for m, r in forbidden(card_index("7S"), trick, 0)]
    [([8, 9, 10, 11, 12, 13, 14, 15], 'follow'), ([2, 3, 4, 5, 6, 7], 'overtrump')]
    """
    if not trick:
        return []
    win = winning_position(trick, mode)
    return forbidden_at(card, SUIT_OF[trick[0]], trick[win], win, len(trick), mode,
                        must_undertrump, partner_master_free)


def forbidden_at(card: int, led: int, top: int, win: int, n: int, mode: int,
                 must_undertrump: bool, partner_master_free: bool) -> list[tuple[int, str]]:
    """:func:`forbidden` from the trick's context: the led suit, the card that
    holds the trick and its position ``win``, ``n`` cards down (the fold keeps these)."""
    suit = SUIT_OF[card]
    st = STRENGTH[mode]
    if suit == led:
        # FFB 5.2.1: on a trump lead (every lead at Tout Atout) go higher if one can.
        if (led == mode or mode == AT) and SUIT_OF[top] == led and st[card] < st[top]:
            return [(HIGHER[mode][top], OVERTRUMP)]
        return []
    parts = [(SUIT_MASK[led], FOLLOW)]
    if mode >= 4 or led == mode:
        # No cutting at Sans Atout or Tout Atout; a trump lead not followed is a plain renonce.
        return parts
    # The partner played two places before us; master if their card holds the trick.
    if partner_master_free and n >= 2 and win == n - 2:
        return parts
    trumps = TRUMPS[mode]
    if SUIT_OF[top] == mode:
        # FFB 5.2.2: an opponent has cut; overtrump if possible, else discard freely.
        if suit == mode and st[card] > st[top]:
            return parts
        parts.append((HIGHER[mode][top], OVERTRUMP))
        if must_undertrump and suit != mode:
            parts.append((trumps & ~HIGHER[mode][top], UNDERTRUMP))
        return parts
    # FFB 5.2.1: nobody has cut yet; cut if one can.
    if suit != mode:
        parts.append((trumps, TRUMP))
    return parts


# One table per (mode, must undertrump, partner master free), built on first use:
# forbidden_at for every led suit, card holding the trick, partner master or not, card.
_TABLES: dict[tuple[int, bool, bool], list[tuple[int, list[tuple[int, str]]] | None]] = {}


def forbidden_table(mode: int, must_undertrump: bool, partner_master_free: bool
                    ) -> list[tuple[int, list[tuple[int, str]]] | None]:
    """:func:`forbidden_at` precomputed, indexed by ``table_index``; each entry is
    ``(mask of all parts, parts)`` or None when the card is legal whatever the hand.

    >>> table = forbidden_table(0, False, True)
    >>> kh, s8, s7 = card_index("KH"), card_index("8S"), card_index("7S")
    >>> table[table_index(1, s8, False, s7)][1] == forbidden(s7, [kh, s8], 0)
    True
    """
    key = (mode, must_undertrump, partner_master_free)
    table = _TABLES.get(key)
    if table is None:
        table = []
        for led in range(4):
            for top in range(32):
                for master in (False, True):
                    # partner master <=> the card that holds is two places back
                    n, win = (3, 1) if master else (1, 0)
                    for card in range(32):
                        parts = forbidden_at(card, led, top, win, n, mode, must_undertrump,
                                             partner_master_free)
                        m = 0
                        for part, _ in parts:
                            m |= part
                        table.append((m, parts) if parts else None)
        _TABLES[key] = table
    return table


def table_index(led: int, top: int, partner_master: bool, card: int) -> int:
    return ((led * 32 + top) * 2 + partner_master) * 32 + card


def forbidden_mask(card: int, trick: Sequence[int], mode: int, must_undertrump: bool = False,
                   partner_master_free: bool = True) -> int:
    m = 0
    for part, _ in forbidden(card, trick, mode, must_undertrump, partner_master_free):
        m |= part
    return m


def legal_plays(hand: int, trick: Sequence[int], mode: int, must_undertrump: bool = False,
                partner_master_free: bool = True) -> list[int]:
    """The cards of ``hand`` (a mask) that may be put on ``trick``."""
    return [c for c in cards_in(hand)
            if not hand & forbidden_mask(c, trick, mode, must_undertrump, partner_master_free)]


def trick_points(cards: Sequence[int], mode: int) -> int:
    pts = POINTS[mode]
    return sum(pts[c] for c in cards)


__all__ = ["AT", "KEYS", "NT", "POINTS", "TRUMP_CODES", "card_code", "card_index", "cards_in",
           "forbidden", "forbidden_at", "forbidden_table", "legal_plays", "mask_of",
           "table_index", "trick_points", "trump_mode", "winning_position"]
