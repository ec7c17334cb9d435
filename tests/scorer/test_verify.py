"""One legality question: what the service asks of every entry (``verify_event``),
what the tests and the simulator ask with the hand known (``verify_play``,
``can_play``, ``legal_plays``) and what the fold replays (``GameState.legal_plays``)
give the same answer, card by card, over whole simulated games.

Source: the seeded simulator (``scorer.simulate``), each player's hand read back
from the cards that player put down in the hand.
"""

from __future__ import annotations

import pytest

from scorer.cards import CARD_CODES, SEATS
from scorer.events import CardPlayed, GameStarted
from scorer.game import (
    GameState,
    IllegalEventError,
    can_apply,
    can_play,
    legal_plays,
    replay,
    verify_event,
    verify_play,
)
from scorer.simulate import simulate_game


def _hands_of(events: list) -> list[dict[str, list[str]]]:
    """Each hand's cards per seat, as the seat put them down."""
    hands: list[dict[str, list[str]]] = []
    for e in events:
        if isinstance(e, CardPlayed):
            if not hands or sum(map(len, hands[-1].values())) == 32:
                hands.append({s: [] for s in SEATS})
            assert e.card is not None
            hands[-1][e.seat].append(e.card)
    return hands


@pytest.mark.parametrize(("seed", "rules"), [(1, "ffb"), (2, "ffb-sata"), (3, "classic")])
def test_the_service_the_tests_and_the_fold_ask_one_question(seed, rules):
    events = simulate_game(seed, hands=3, rules=rules)
    dealt = iter(_hands_of(events))
    state = replay(events[:1])
    assert isinstance(events[0], GameStarted)
    held: dict[str, list[str]] = {}
    checked = 0
    for event in events[1:]:
        if isinstance(event, CardPlayed):
            if not state.played and not state.trick:
                held = {s: list(cards) for s, cards in next(dealt).items()}
            seat = state.to_play
            assert seat is not None
            # Without the hands (camera, web page): verify_event asks verify_play.
            for other in SEATS:
                for code in CARD_CODES[::5]:
                    probe = CardPlayed(other, code)
                    assert can_apply(state, probe) == can_play(state, probe)
            # With the hand known: legal_plays is the cards can_play lets through,
            # the fold's own answer is the same, and the card put down is one of them.
            hand = held[seat]
            legal = legal_plays(hand, state)
            assert legal == [c for c in sorted(hand, key=CARD_CODES.index)
                             if can_play(state, CardPlayed(seat, c), hand)]
            assert legal == GameState.legal_plays(state, hand)
            assert event.card in legal
            held[seat].remove(str(event.card))
            checked += 1
        verify_event(state, event)
        state = state.apply(event)
    assert checked >= 32


def test_a_renonce_is_refused_with_the_hand_known_and_named_by_its_rule():
    events = simulate_game(4, hands=1, inject_renonce=True)
    hands = _hands_of(events)[0]
    state = replay(events[:1])
    for event in events[1:]:
        if isinstance(event, CardPlayed) and event.card is not None:
            hand = hands[event.seat]
            if not can_play(state, event, hand):
                with pytest.raises(IllegalEventError, match=r"renonce \((follow|trump|"
                                                            r"overtrump|undertrump)\)"):
                    verify_play(state, event, hand)
                verify_event(state, event)  # without the hand, the card may go down
                break
            hand.remove(event.card)
        state = state.apply(event)
    else:
        pytest.fail("the simulated hand held no renonce")
