"""Cards put down out of turn (issue 72): the fold keeps every card it is given,
plays each at its seat's turn, and folding the same cards again after an undo
gives back exactly the game as it was (same tricks, renonces and score)."""

from __future__ import annotations

import random

from scorer.events import (
    BidMade,
    CardCorrected,
    CardPlayed,
    ContractSet,
    EntryUndone,
    Event,
    GameStarted,
)
from scorer.game import replay
from scorer.simulate import simulate_game


def _shuffled_within_seats(events: list[Event], rng: random.Random) -> list[Event]:
    """The same events with each hand's cards stored in another order, each seat's
    own cards still in the order it played them (as a camera stores cards that
    settle early or late): the other events of the hand come first."""
    out: list[Event] = []
    block: list[Event] = []

    def flush() -> None:
        cards = [e for e in block if isinstance(e, CardPlayed)]
        others = [e for e in block if not isinstance(e, CardPlayed)]
        queues = {s: [e for e in cards if e.seat == s] for s in "NESW"}
        merged: list[Event] = []
        while any(queues.values()):
            seat = rng.choice([s for s, q in queues.items() if q])
            merged.append(queues[seat].pop(0))
        out.extend(others + merged)
        block.clear()

    for e in events:
        if isinstance(e, CardPlayed) or (block and not isinstance(e, BidMade | ContractSet)):
            block.append(e)
        else:
            if block:
                flush()
            out.append(e)
    if block:
        flush()
    return out


def test_cards_stored_in_any_order_within_each_seat_fold_to_the_same_game():
    for seed in range(6):
        events = simulate_game(seed, hands=3)
        want = replay(events).to_json()
        for k in range(3):
            stored = _shuffled_within_seats(events, random.Random(seed * 10 + k))
            assert stored != events or k > 0
            state = replay(stored)
            assert state.to_json() == want
            assert state.pending == [] and state.unplaced == []


def test_an_out_of_turn_card_waits_for_its_turn_and_is_kept_when_it_never_comes():
    start = [GameStarted(dealer="N"), ContractSet(taker="W", value=80, trump="H")]
    state = replay(start + [CardPlayed("E", "9S")])   # W leads: E's card waits
    assert state.played == [] and state.to_play == "W"
    assert [(e.seat, e.card) for e, _, _ in state.pending] == [("E", "9S")]
    state = state.apply(CardPlayed("W", "7S")).apply(CardPlayed("S", "8S"))
    assert [c for c in state.to_json()["played"]] == ["7S", "8S", "9S"]  # E's in its place
    assert state.pending == [] and state.to_play == "N"
    # A card put down during the auction (the contract undone) waits for the play.
    undone = replay(start + [CardPlayed("W", "7S"), EntryUndone(index=1)])
    assert undone.phase == "bidding" and undone.played == []
    assert [(e.seat, e.card) for e, _, _ in undone.pending] == [("W", "7S")]
    again = undone.apply(ContractSet(taker="W", value=80, trump="H"))
    assert again.to_json()["played"] == ["7S"] and again.pending == []
    # The hand passed out instead: the card never had a turn; kept apart, not lost.
    passed = undone
    for seat in ("W", "S", "E", "N"):
        passed = passed.apply(BidMade(seat, "pass"))
    assert passed.hand_no == 2 and passed.pending == []
    assert passed.unplaced == [{"hand_no": 1, "seat": "W", "card": "7S", "index": 2}]


def test_a_wrong_correction_then_its_undo_gives_back_the_game_exactly():
    """The issue's case in the fold alone: trick 1's winner changed by a mistaken
    correction, the camera's next cards stored as they were put down, the
    correction undone."""
    events = simulate_game(5, hands=1)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    truth = replay(events)
    winner = truth.hands[0]["result"]["tricks"][0]["winner"]
    first = [events[i] for i in plays[:4]]
    assert isinstance(first[0], CardPlayed)
    # The correction: a card of trick 1 made the top trump (or another winner).
    cut = plays[4]
    before = replay(events[:cut])
    played = set(before.to_json()["played"])
    loser = next(e for e in first if e.seat != winner)
    trump = before.contract["trump"] if before.contract else "H"
    suit = trump if trump in "SHDC" else "S"
    new = next(c for c in (f"J{suit}", f"9{suit}", f"A{suit}", f"T{suit}", f"K{suit}")
               if c not in played)
    correction = CardCorrected(seat=loser.seat, trick=1, new=new)
    wrong = before.apply(correction)
    assert wrong.tricks[0][3] != winner
    # The camera goes on: the rest of the hand as it was put down.
    stream = events[:cut] + [correction] + events[cut:]
    during = replay(stream)
    assert len(during.events) == len(stream)
    # Every card is in the game, placed or waiting: none lost.
    placed = sum(len(h["record"]["plays"]) for h in during.hands) + len(during.played)
    assert placed + len(during.pending) + len(during.unplaced) == 32
    # Undo the correction: exactly the game as played, cards, renonces and score.
    after = replay(stream + [EntryUndone(index=cut)])
    assert after.to_json() == truth.to_json()
    assert after.pending == [] and after.unplaced == []
