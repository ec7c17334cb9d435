"""Bids: their notation and the auctions of contrée (FFB 4.2) and classic belote.

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

PASS: Final = "pass"
CONTRE: Final = "contre"
SURCONTRE: Final = "surcontre"
TAKE: Final = "take"
TRUMPS: Final = ("S", "H", "D", "C", "NT", "AT")


class InvalidBidError(ValueError):
    """A bid that is not in the notation of DESIGN.md."""


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
            raise InvalidBidError(f"not a bid: {text!r}")
        t = text.strip()
        low = t.lower()
        if low in (PASS, CONTRE, SURCONTRE):
            return _SIMPLE[low]
        if low == TAKE:
            return Bid(TAKE)
        if low.startswith("take:") and t[5:].upper() in TRUMPS[:4]:
            return Bid(TAKE, None, t[5:].upper())
        up = t.upper()
        for trump in ("NT", "AT", "S", "H", "D", "C"):
            if up.endswith(trump):
                head = up[: -len(trump)]
                if head == "CAPOT":
                    return Bid("value", "capot", trump)
                if head.isdigit() and 80 <= int(head) <= 160 and int(head) % 10 == 0:
                    return Bid("value", int(head), trump)
                break
        raise InvalidBidError(
            f"not a bid: {text!r} (80..160 by tens, or capot, then S H D C NT AT)")

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
