"""A seeded simulator of whole games: random legal plays and plausible bids.

Used by ``make demo``, the virtual table and the property tests. The same seed
always gives the same events.

>>> from scorer.game import replay
>>> events = simulate_game(7, hands=2)
>>> events == simulate_game(7, hands=2)
True
>>> state = replay(events)
>>> len(state.hands) >= 2
True
"""

from __future__ import annotations

import random
from typing import Any

from scorer import tricks as T
from scorer.cards import CARD_CODES, SEATS, team_of
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardPlayed,
    CardTurned,
    Event,
    GameStarted,
)
from scorer.game import GameState
from scorer.rules import Rules

_KQ = tuple((1 << (s * 8 + 5)) | (1 << (s * 8 + 6)) for s in range(4))


def _strength(hand: int, mode: int) -> int:
    """A rough count of what ``hand`` brings at ``mode``: card points, trumps held."""
    pts = sum(T.POINTS[mode][c] for c in T.cards_in(hand))
    trumps = bin(hand & T.TRUMPS[mode]).count("1") if mode < 4 else 0
    return pts + 8 * trumps


def _contree_bid(rng: random.Random, state: GameState, hand: int) -> str:
    rules = state.rules
    high = state._high
    if state._double > 1:
        return "surcontre" if rng.random() < 0.2 else "pass"
    modes = range(6) if rules.sans_tout_atout else range(4)
    best_mode = max(modes, key=lambda m: _strength(hand, m) * (162 / 258 if m == T.AT else 1))
    estimate = _strength(hand, best_mode) * (162 / 258 if best_mode == T.AT else 1)
    if rules.sans_tout_atout and rng.random() < 0.25:
        # Sans Atout / Tout Atout are rare by strength alone; keep them in the games.
        best_mode = rng.choice((T.NT, T.AT))
    value = int(estimate // 10 * 10) + rng.choice((-10, 0, 0, 10))
    floor = 80 if high is None else high.rank + 10
    seat = state.to_speak
    if (high is not None and state._high_seat is not None and seat is not None
            and team_of(seat) != team_of(state._high_seat)
            and rng.random() < 0.06):
        return "contre"
    if state._high_seat == seat or value < floor or floor > rules.max_bid:
        return "pass"
    if value > rules.max_bid or (value >= 100 and rng.random() < 0.1):
        return f"capot{T.TRUMP_CODES[best_mode]}"
    return f"{max(value, floor)}{T.TRUMP_CODES[best_mode]}"


def simulate_hand(rng: random.Random, state: GameState, inject_renonce: bool = False
                  ) -> tuple[list[Event], GameState]:
    """Deal, bid and play one hand from ``state``; returns its events and the
    state after them. With ``inject_renonce``, one player breaks FFB 5.2 once
    (when the deal gives a chance to)."""
    events: list[Event] = []

    def emit(e: Event) -> None:
        nonlocal state
        events.append(e)
        state._fold(e)

    hand_no = state.hand_no
    while state.hand_no == hand_no and state.phase == "bidding":
        deck = list(range(32))
        rng.shuffle(deck)
        hands = dict.fromkeys(SEATS, 0)
        order = [state._next[state.dealer]]
        while len(order) < 4:
            order.append(state._next[order[-1]])
        if state.rules.game == "classic":
            for i, seat in enumerate(order):
                for c in deck[5 * i: 5 * i + 5]:
                    hands[seat] |= 1 << c
            turned = deck[20]
            emit(CardTurned(card=CARD_CODES[turned]))
            while state.phase == "bidding" and state.hand_no == hand_no:
                speaker = state.to_speak
                assert speaker is not None
                h = hands[speaker] | 1 << turned
                suit = T.SUIT_OF[turned]
                if state._round == 1:
                    bid = "take" if _strength(h, suit) > 60 + rng.randrange(20) else "pass"
                else:
                    own = hands[speaker]
                    other = max((s for s in range(4) if s != suit),
                                key=lambda s: _strength(own, s))
                    bid = (f"take:{T.TRUMP_CODES[other]}"
                           if _strength(own, other) > 45 + rng.randrange(20)
                           else "pass")
                emit(BidMade(seat=speaker, bid=bid))
            if state.phase == "play":
                assert state.contract is not None
                taker = state.contract["taker"]
                rest = iter(deck[21:])
                hands[taker] |= 1 << turned
                for seat in order:
                    for _ in range(2 if seat == taker else 3):
                        hands[seat] |= 1 << next(rest)
        else:
            for i, seat in enumerate(order):
                for c in deck[8 * i: 8 * i + 8]:
                    hands[seat] |= 1 << c
            while state.phase == "bidding" and state.hand_no == hand_no:
                speaker = state.to_speak
                assert speaker is not None
                emit(BidMade(seat=speaker, bid=_contree_bid(rng, state, hands[speaker])))
        if state.hand_no != hand_no:
            return events, state  # passed out: the hand is over with no points
    injected = not inject_renonce
    r = state.rules
    while state.hand_no == hand_no and state.phase == "play":
        player = state.to_play
        assert player is not None
        hand = hands[player]
        legal = T.legal_plays(hand, state.trick, state.mode, r.must_undertrump,
                              r.partner_master_free)
        illegal = [c for c in T.cards_in(hand) if c not in legal]
        if not injected and illegal and rng.random() < 0.5:
            card = rng.choice(illegal)
            injected = True
        else:
            card = rng.choice(legal)
        if state.mode != T.NT and r.belote == "announced":
            suit = T.SUIT_OF[card]
            kq = _KQ[suit]
            if ((state.mode == T.AT or suit == state.mode) and kq & (1 << card)
                    and hand & kq == kq):
                emit(BeloteAnnounced(seat=player))
        hands[player] &= ~(1 << card)
        emit(CardPlayed(seat=player, card=CARD_CODES[card]))
    return events, state


def simulate_game(seed: int, hands: int = 1, rules: str = "ffb", inject_renonce: bool = False,
                  settings: dict[str, Any] | None = None, dealer: str = "N") -> list[Event]:
    """A game of ``hands`` hands (fewer if it ends sooner), seeded.

    With ``inject_renonce``, the first hand that gives a chance holds exactly
    one illegal play.
    """
    rng = random.Random(seed)
    Rules.from_preset(rules, settings)  # reject bad names before dealing
    start = GameStarted(rules=rules, settings=dict(settings or {}), dealer=dealer)
    state = GameState()
    state._fold(start)
    events: list[Event] = [start]
    played = 0
    pending = inject_renonce
    while played < hands and state.phase != "over":
        before = len(state.renonces) + sum(len(h["result"].get("renonces", []))
                                           for h in state.hands)
        new, state = simulate_hand(rng, state, inject_renonce=pending)
        events += new
        if any(isinstance(e, CardPlayed) for e in new):
            played += 1
            after = sum(len(h["result"].get("renonces", [])) for h in state.hands)
            if pending and any(isinstance(e, CardPlayed) for e in new) and after > before:
                pending = False
    return events
