"""Helpers for the rules-engine tests: deal given hands and play them out.

They are fixtures (not imports) because pytest runs with --import-mode=importlib.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scorer.events import BidMade, ContractSet, Event, GameStarted
from scorer.game import GameState, replay

Hands = dict[str, str]


def _play_out(hands: Hands, dealer: str = "N", bids: list[str] | None = None,
              contract: dict[str, Any] | None = None, rules: str = "ffb",
              settings: dict[str, Any] | None = None,
              force: dict[tuple[int, str], str] | None = None,
              pick: Callable[[list[str]], str] = lambda legal: legal[0],
              belote: tuple[str, ...] = ()) -> dict[str, Any]:
    """Play ``hands`` (seat -> 8 cards, space separated) through the engine:
    each player puts down ``pick(legal cards)`` unless ``force[(trick, seat)]``
    names the card. Returns the docs/design.md hand record."""
    cards = {s: h.split() for s, h in hands.items()}
    assert sorted(c for h in cards.values() for c in h) == sorted(
        r + s for s in "SHDC" for r in "789TJQKA"), "the four hands must make the deck"
    events: list[Event] = [GameStarted(rules=rules, settings=dict(settings or {}),
                                       dealer=dealer)]
    state: GameState = replay(events)
    if contract is not None:
        events.append(ContractSet(**contract))
    for bid in bids or []:
        assert state.to_speak is not None
        events.append(BidMade(state.to_speak, bid))
        state = replay(events)
    state = replay(events)
    plays = []
    force = force or {}
    while state.phase == "play" and len(plays) < 32:
        seat = state.to_play
        assert seat is not None
        card = force.get((state.trick_no, seat)) or pick(state.legal_plays(cards[seat]))
        cards[seat].remove(card)
        plays.append(f"{seat}:{card}")
        state = state.apply(_card(seat, card))
    record: dict[str, Any] = {"rules": rules if not settings else {"preset": rules, **settings},
                              "dealer": dealer, "bids": list(bids or []), "plays": plays,
                              "belote": list(belote)}
    if contract is not None:
        record["contract"] = contract
    return record


def _card(seat: str, card: str) -> Event:
    from scorer.events import CardPlayed
    return CardPlayed(seat=seat, card=card)


@pytest.fixture
def play_out() -> Callable[..., dict[str, Any]]:
    return _play_out


# A deal used by several tests: N holds the top hearts (trump) with K+Q.
DEAL_A: Hands = {
    "N": "JH 9H AH TH KH QH AS TS",
    "E": "7S 8S 9S JS QS KS 7D 8D",
    "S": "9D TD JD QD KD AD 7C 8C",
    "W": "7H 8H 9C TC JC QC KC AC",
}


@pytest.fixture
def deal_a() -> Hands:
    return dict(DEAL_A)
