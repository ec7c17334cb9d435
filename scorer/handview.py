"""The hand-record view: a finished hand as docs/design.md's record and result.

The fold (``scorer.fold``) hands each finished hand's values over to a
:class:`FinishedHand`; ``GameState.hands`` shows them as
``{"hand_no", "dealer", "record", "result"}``, built on first read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorer import tricks as T
from scorer.cards import TEAMS

if TYPE_CHECKING:
    from scorer.fold import GameState

# A finished trick: (leader, seats, cards (-1 unknown), winner or None, points or None)
Trick = tuple[str, list[str], list[int], str | None, int | None]


def code_of(card: int) -> str | None:
    """A card number in the notation, None for an unknown card (-1).

    >>> code_of(12), code_of(-1)
    ('JH', None)
    """
    return None if card < 0 else T.card_code(card)


def trick_json(t: Trick) -> dict[str, Any]:
    """A finished trick as docs/design.md writes it in a result."""
    leader, seats, cards, winner, points = t
    return {"leader": leader, "cards": [code_of(c) for c in cards], "seats": list(seats),
            "winner": winner, "points": points}


class FinishedHand:
    """What a finished hand keeps; its JSON form (``build``) is made when first
    read, so that replaying a long game does not build dictionaries nobody looks at."""

    __slots__ = ("hand_no", "dealer", "preset", "settings", "turned", "bids", "contract",
                 "tricks", "belote", "tally", "card_points", "tricks_won", "renonces",
                 "result", "belotes")

    def __init__(self, s: GameState, result: dict[str, object] | None,
                 belotes: dict[str, int] | None = None) -> None:
        # The per-hand containers are replaced, not cleared, at the next hand: keep them.
        self.hand_no, self.dealer = s.hand_no, s.dealer
        self.preset, self.settings, self.turned = s.preset, s.settings, s.turned
        self.bids, self.contract, self.tricks = s.bids, s.contract, s.tricks
        self.belote, self.tally = s.belote, s._tally_entry
        self.card_points, self.tricks_won = s.card_points, s.tricks_won
        self.renonces = s.renonces
        self.result, self.belotes = result, belotes

    def build(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "rules": self.preset if not self.settings else {"preset": self.preset,
                                                            **self.settings},
            "dealer": self.dealer,
        }
        if self.turned is not None:
            rec["turned"] = self.turned
        rec["bids"] = [b for _, b in self.bids]
        if not self.bids and self.contract:
            rec["contract"] = dict(self.contract)
        if self.tally is not None:
            t = self.tally
            rec["tally"] = {**t.points, "tricks": dict(t.tricks), "belote": t.belote}
        elif self.contract is not None:
            rec["plays"] = [f"{s}:{code_of(c) or '?'}" for _, seats, cards, _, _ in self.tricks
                            for s, c in zip(seats, cards, strict=True)]
            rec["belote"] = list(self.belote)
        if self.result is None or self.contract is None:
            result: dict[str, Any] = {
                "contract": None, "tricks": [], "points": {"NS": 0, "EW": 0},
                "tricks_won": {"NS": 0, "EW": 0}, "belote": None,
                "belotes": {"NS": 0, "EW": 0}, "made": None,
                "score": {"NS": 0, "EW": 0}, "renonces": [], "parts": {"NS": [], "EW": []}}
        else:
            belotes = self.belotes or {"NS": 0, "EW": 0}
            result = {
                "contract": dict(self.contract),
                "tricks": [trick_json(t) for t in self.tricks],
                "points": dict(self.card_points),
                "tricks_won": dict(self.tricks_won),
                "belote": next((t for t in TEAMS if belotes[t]), None),
                "belotes": dict(belotes),
                "made": self.result.get("made"),
                "score": dict(self.result["score"]),  # type: ignore[call-overload]
                "renonces": [dict(r) for r in self.renonces],
                # What each team's score is made of (scorer.scoring.Sheet): derived
                # here, never stored in the hand record.
                "parts": {t: [dict(p) for p in ps]
                          for t, ps in self.result["parts"].items()},  # type: ignore[attr-defined]
            }
            if "held_over" in self.result:
                result["held_over"] = self.result["held_over"]
            if self.result.get("cancelled"):
                result["cancelled"] = True
        return {"hand_no": self.hand_no, "dealer": self.dealer, "record": rec,
                "result": result}
