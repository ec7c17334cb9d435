"""The typed view of a game (scorer.view): frozen records whose JSON is word for
word ``GameState.to_json()``, and ``apply`` reporting the renonces an event proved.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorer.events import (
    BidMade,
    CardCorrected,
    CardPlayed,
    ContractSet,
    EntryUndone,
    GameEnded,
    GameStarted,
    TallyEntered,
)
from scorer.fold import GameState, replay
from scorer.record import record_to_events
from scorer.simulate import simulate_game
from scorer.view import Contract, GameView, Renonce, UnknownCard

CONTRACT_N = {"taker": "N", "value": 80, "trump": "H"}


def _streams() -> list[list]:
    """Games of every kind: contrée and classic, renonces, passed-out hands,
    tallies, an organiser's end, undone entries."""
    streams = [simulate_game(seed, hands=3, inject_renonce=seed % 2 == 0) for seed in range(12)]
    streams += [simulate_game(seed, hands=2, rules="classic") for seed in range(4)]
    start = [GameStarted(dealer="N")]
    streams.append(start + [BidMade(s, "pass") for s in "ESWN"] + [ContractSet("W", 90, "S")]
                   + [TallyEntered(points={"NS": 40, "EW": 122}, tricks={"NS": 2, "EW": 6},
                                   belote="EW"), GameEnded()])
    game = simulate_game(5, hands=2)
    streams.append(game + [EntryUndone(index=len(game) - 1)])
    return streams


def test_the_view_says_what_to_json_says_after_every_event():
    checked = 0
    for stream in _streams():
        state = GameState()
        for event in stream:
            state = state.apply(event)
            view = state.view()
            assert view.to_json() == state.to_json()
            assert GameView.from_json(view.to_json()) == view
            checked += 1
    assert checked > 1000


def test_the_records_are_frozen():
    state = replay(simulate_game(3, hands=2, inject_renonce=True))
    view = state.view()
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.phase = "over"  # type: ignore[misc]
    with pytest.raises(TypeError):
        view.scores["NS"] = 1  # type: ignore[index]
    hand = view.hands[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.result.made = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        hand.record["dealer"] = "E"  # type: ignore[index]
    assert isinstance(view.hands, tuple) and isinstance(hand.result.tricks, tuple)
    # The view is a copy: the state's next event does not change it.
    before = view.to_json()
    state.apply(BidMade(state.to_speak or "N", "pass"))
    assert view.to_json() == before


def test_fields_read_as_the_json_said():
    state = replay([GameStarted(dealer="N", teams={"NS": "Les As", "EW": "EW"}),
                    ContractSet("W", 80, "H", 2), CardPlayed("W", "7S"), CardPlayed("S", None)])
    view = state.view()
    assert view.contract == Contract(taker="W", value=80, trump="H", double=2)
    assert view.teams["NS"] == "Les As" and view.target == state.rules.target == 1000
    assert [(p.seat, p.card) for p in view.current] == [("W", "7S"), ("S", None)]
    assert view.unknown == (UnknownCard(seat="S", trick=1),)
    assert view.played == ("7S", None) and view.to_play == "E" and view.leader == "W"


def test_apply_reports_the_renonce_a_card_proves_and_nothing_else(play_out, deal_a):
    # W discards 9C on N's ace of spades holding trumps; 7H in trick 2 proves it.
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    state = GameState()
    reported = []
    for event in record_to_events(rec):
        state = state.apply(event)
        reported += [(event, r) for r in state.proven]
    assert reported == [(CardPlayed("W", "7H"),
                         Renonce(seat="W", trick=1, rule="trump", proof_trick=2,
                                 proof_card="7H", hand_no=1))]
    assert state.view().hands[0].result.renonces == (reported[0][1],)


def test_a_correction_reports_the_renonce_it_reveals(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    events = record_to_events(rec)
    first_w = next(i for i, e in enumerate(events)
                   if isinstance(e, CardPlayed) and e.seat == "W")
    events[first_w] = CardPlayed("W", None)
    state = replay(events)
    assert state.view().all_renonces() == ()
    fixed = state.apply(CardCorrected(seat="W", trick=1, new="9C", hand=1))
    assert fixed.proven == (Renonce("W", 1, "trump", 2, "7H", hand_no=1),)
    # Undoing the correction proves nothing new.
    assert fixed.apply(EntryUndone(index=len(events))).proven == ()


def test_proven_is_exactly_what_the_game_knows_more_after_each_event():
    found = 0
    for seed in range(30):
        state = GameState()
        for event in simulate_game(seed, hands=2, inject_renonce=True):
            old = state
            state = state.apply(event)
            fresh = set(state.view().all_renonces()) - set(old.view().all_renonces())
            assert set(state.proven) == fresh and len(state.proven) == len(fresh)
            found += len(fresh)
    assert found >= 20
