"""Bids and contracts: their notation and checks, for contrée (FFB 4.2) and
classic belote. The one bid parser (``Bid.parse``) and the one contract check
(``verify_contract``) of the project: the web's entries and labels, the hand
records and the fold all use these.

>>> Bid.parse("80H")
Bid('80H')
>>> Bid.parse("capotS").value, Bid.parse("120NT").trump
('capot', 'NT')
>>> Bid.parse("85H")
Traceback (most recent call last):
...
scorer.bidding.InvalidBidError: not a bid: '85H' (80..160 by tens, or capot, then S H D C NT AT)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from scorer.cards import SUITS, TRUMPS
from scorer.errors import FieldError, ScorerError

PASS: Final = "pass"
CONTRE: Final = "contre"
SURCONTRE: Final = "surcontre"
TAKE: Final = "take"
#: A contract's ``double``: 1, 2 (contré), 4 (surcontré).
DOUBLES: Final = (1, 2, 4)
# Two-letter modes first, so that "120NT" is not read as a bid in some suit "T".
_SUFFIXES: Final = tuple(sorted(TRUMPS, key=len, reverse=True))


class InvalidBidError(ScorerError):
    """A bid that is not in the notation of docs/design.md."""


class InvalidContractError(FieldError, InvalidBidError):
    """A contract field that no rule set allows: ``field`` names it, ``reason`` says why."""


@dataclass(frozen=True, slots=True)
class Bid:
    """One spoken bid. ``kind`` is pass, value, contre, surcontre or take.

    ``value`` is an int 80..160 or ``"capot"``; ``trump`` a suit, NT or AT,
    or for a classic first-round ``take`` None (the turned card's suit).
    """

    kind: str
    value: int | str | None = None
    trump: str | None = None

    @classmethod
    def parse(cls, text: str) -> Bid:
        if not isinstance(text, str):
            raise InvalidBidError("bid.not_bid", value=text)
        t = text.strip()
        low = t.lower()
        if low in (PASS, CONTRE, SURCONTRE):
            return _SIMPLE[low]
        if low == TAKE:
            return Bid(TAKE)
        if low.startswith("take:") and t[5:].upper() in SUITS:
            return Bid(TAKE, None, t[5:].upper())
        up = t.upper()
        for trump in _SUFFIXES:
            if up.endswith(trump):
                head = up[: -len(trump)]
                if head == "CAPOT":
                    return Bid("value", "capot", trump)
                # isascii: "²".isdigit() is true but int("²") fails.
                if (head.isascii() and head.isdigit() and len(head) <= 3
                        and 80 <= int(head) <= 160 and int(head) % 10 == 0):
                    return Bid("value", int(head), trump)
                break
        raise InvalidBidError("bid.not_notation", value=text)

    def __str__(self) -> str:
        if self.kind == "value":
            return f"{self.value}{self.trump}"
        if self.kind == TAKE and self.trump:
            return f"take:{self.trump}"
        return self.kind

    def __repr__(self) -> str:
        return f"Bid('{self}')"

    @property
    def rank(self) -> int:
        """Order of value bids: capot above 160 (FFB 4.2.2)."""
        return 170 if self.value == "capot" else int(self.value or 0)


_SIMPLE: Final = {PASS: Bid(PASS), CONTRE: Bid(CONTRE), SURCONTRE: Bid(SURCONTRE)}


def verify_contract(value: object, trump: object, double: object, min_bid: int = 80,
                    max_bid: int = 160, valued: bool = True) -> None:
    """Raise ``InvalidContractError`` if a contract entered as such cannot be.

    ``value`` is ``"capot"`` or a multiple of ten from ``min_bid`` to
    ``max_bid`` (the rule set's range); ``valued=False`` (classic belote, where
    the taker names no value) leaves it unchecked. ``trump`` is a trump mode,
    ``double`` one of :data:`DOUBLES`.

    >>> verify_contract(90, "NT", 2)
    >>> verify_contract(85, "H", 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.bidding.InvalidContractError: value: not a contract value: 85 (capot, or 80 to 160 ...
    >>> verify_contract("capot", "H", 3)
    Traceback (most recent call last):
    ...
    scorer.bidding.InvalidContractError: double: 3 is not 1, 2 (contré) or 4 (surcontré)
    """
    if valued and not (value == "capot" or (
            isinstance(value, int) and not isinstance(value, bool)
            and min_bid <= value <= max_bid and value % 10 == 0)):
        raise InvalidContractError("value", "contract.value", value=value, low=min_bid,
                                   high=max_bid)
    if trump not in TRUMPS:
        raise InvalidContractError("trump", "contract.trump", value=trump, trumps=" ".join(TRUMPS))
    if double not in DOUBLES or isinstance(double, bool):
        raise InvalidContractError("double", "contract.double", value=double)
