"""The game as a fold over events: apply equals replay, undo and correction
events re-derive everything after them, verification reasons, and the
``to_json`` contract of docs/INTERFACES.md."""

from __future__ import annotations

import json

import pytest

from scorer.events import (
    BidMade,
    CardCorrected,
    CardPlayed,
    ContractSet,
    EntryUndone,
    GameStarted,
    event_from_json,
)
from scorer.game import GameState, IllegalEventError, can_apply, replay, verify_event
from scorer.rules import UnknownSettingError
from scorer.simulate import simulate_game

INTERFACE_KEYS = {
    "phase", "rules", "preset", "target", "teams", "players", "scores", "hand_no", "dealer",
    "bids", "to_speak", "turned", "contract", "trick_no", "current_trick", "to_play",
    "tricks", "tricks_won", "card_points", "belote", "renonces", "unknown", "played",
    "hands", "winner", "ended"}


def test_apply_step_by_step_equals_replay_and_leaves_the_old_state_alone():
    events = simulate_game(11, hands=3)
    state = GameState()
    for i, e in enumerate(events):
        before = json.dumps(state.to_json())
        verify_event(state, e)
        new = state.apply(e)
        assert json.dumps(state.to_json()) == before
        state = new
        if i % 9 == 0:
            assert new == replay(events[: i + 1])
    assert state == replay(events)
    assert state != replay(events[:-1])


def test_to_json_has_the_interface_keys_and_is_json():
    state = replay(simulate_game(3, hands=1)[:12])
    data = state.to_json()
    assert set(data) == INTERFACE_KEYS
    assert json.loads(json.dumps(data)) == data
    assert set(data["current_trick"]) == {"leader", "cards"}


def test_events_round_trip_through_json():
    for e in simulate_game(5, hands=2):
        assert event_from_json(json.loads(json.dumps(e.to_json()))) == e


def test_entry_undone_cancels_an_event_by_its_index():
    events = [GameStarted(dealer="N"), BidMade("W", "80H"), BidMade("S", "90S")]
    state = replay(events + [EntryUndone(index=2)])
    assert state.bids == [("W", "80H")] and state.to_speak == "S"
    assert not can_apply(state, EntryUndone(index=2))       # already undone
    assert not can_apply(state, EntryUndone(index=3))       # an undo is not undone
    assert not can_apply(state, EntryUndone(index=9))
    state = state.apply(BidMade("S", "100S"))
    assert state.bids == [("W", "80H"), ("S", "100S")]


def test_card_corrected_rederives_the_trick_winner_and_what_follows():
    events = [GameStarted(dealer="N"), ContractSet(taker="W", value=80, trump="H"),
              CardPlayed("W", "7S"), CardPlayed("S", "8S"), CardPlayed("E", "9S"),
              CardPlayed("N", "AS")]
    state = replay(events)
    assert state.tricks[0][3] == "N" and state.to_play == "N"
    # E's card was the king, not the 9: N's ace still holds the trick
    state = state.apply(CardCorrected(seat="E", trick=1, new="KS"))
    assert state.tricks[0][3] == "N"
    # and N's was the queen: now E wins, and E leads the next trick
    state = state.apply(CardCorrected(seat="N", trick=1, new="QS"))
    assert state.tricks[0][3] == "E" and state.to_play == "E"
    assert state.to_json()["played"] == ["7S", "8S", "KS", "QS"]
    assert state.card_points == {"NS": 0, "EW": 4 + 3}


def test_correction_to_a_card_already_played_is_refused():
    events = [GameStarted(dealer="N"), ContractSet(taker="W", value=80, trump="H"),
              CardPlayed("W", "7S"), CardPlayed("S", "8S")]
    state = replay(events)
    with pytest.raises(IllegalEventError, match="already been played"):
        verify_event(state, CardCorrected(seat="S", trick=1, new="7S"))
    with pytest.raises(IllegalEventError, match="no card of E in trick 1"):
        verify_event(state, CardCorrected(seat="E", trick=1, new="AS"))


def test_game_started_once_and_nothing_before_it():
    with pytest.raises(IllegalEventError, match="has not started"):
        verify_event(GameState(), BidMade("W", "80H"))
    with pytest.raises(IllegalEventError, match="already started"):
        verify_event(replay([GameStarted()]), GameStarted())
    with pytest.raises(IllegalEventError, match="unknown setting 'foo'"):
        verify_event(GameState(), GameStarted(settings={"foo": 1}))


def test_a_finished_game_refuses_more_play():
    events = simulate_game(4, hands=40)
    state = replay(events)
    assert state.phase == "over" and state.winner in ("NS", "EW")
    assert state.scores[state.winner] >= 1000
    assert not can_apply(state, BidMade(state.dealer, "pass"))


def test_undoing_the_bid_that_closed_the_auction_leaves_the_later_cards_out():
    events = [GameStarted(dealer="N"), BidMade("W", "80H"), BidMade("S", "pass"),
              BidMade("E", "pass"), BidMade("N", "pass"), CardPlayed("W", "7S"),
              CardPlayed("S", "8S")]
    state = replay(events + [EntryUndone(index=4)])
    assert state.phase == "bidding" and state.to_speak == "N"
    assert state.trick == [] and state.played == []
    # N now bids: the auction goes on; the stream is replayed the same way every time
    state = state.apply(BidMade("N", "90S"))
    assert state.bids[-1] == ("N", "90S") and state == replay(state.events)


def test_replay_of_an_unverified_stream_says_which_event_does_not_fit():
    with pytest.raises(IllegalEventError, match=r"^event 1 \(BidMade\): "):
        replay([GameStarted(dealer="N"), BidMade("W", "surcontre")])
    # Cards put down before the play are no misfit: they wait for their turn.
    state = replay([GameStarted(dealer="N"), CardPlayed("W", "7S"), CardPlayed("S", "8H")])
    assert state.played == [] and [(e.seat, e.card) for e, _, _ in state.pending] == [
        ("W", "7S"), ("S", "8H")]
    with pytest.raises(UnknownSettingError, match=r"^unknown rule preset 'nope'"):
        replay([GameStarted(rules="nope")])


def test_a_finished_hand_is_corrected_by_hand_number_and_only_to_a_card_not_seen():
    events = simulate_game(13, hands=2)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    first = plays[0]  # hand 1, trick 1, the leader's card: make it unread
    seat, card = events[first].seat, events[first].card
    events[first] = CardPlayed(seat, None)
    state = replay(events)
    assert state.hand_no >= 2 and state.hands[0]["result"]["tricks"][0]["winner"] is None
    other = next(e.card for e in events[plays[1]:plays[31]] if isinstance(e, CardPlayed))
    with pytest.raises(IllegalEventError, match=f"{other} has already been played in hand 1"):
        verify_event(state, CardCorrected(seat=seat, trick=1, new=other, hand=1))
    fix = CardCorrected(seat=seat, trick=1, new=card, hand=1)
    verify_event(state, fix)
    fixed = state.apply(fix)
    assert fixed.hands[0]["result"]["tricks"][0]["winner"] is not None
    assert fixed.hands[0]["result"] == replay(simulate_game(13, hands=2)).hands[0]["result"]
