"""The end of a game besides its target (FFB 10.4): the organiser ends it now
(GameEnded), a fixed number of hands (setting ``hands``), a time limit
(setting ``minutes``, ended by the table service with GameEnded "time")."""

from __future__ import annotations

import pytest

from scorer.events import BidMade, GameEnded, GameStarted, InvalidEventError, event_from_json
from scorer.game import IllegalEventError, replay, verify_event
from scorer.simulate import simulate_game


def test_ending_now_drops_the_hand_in_play_and_the_higher_total_wins() -> None:
    events = simulate_game(3, hands=2)
    before = replay(events)
    mid_hand = events + [BidMade(seat=before.to_speak or "W", bid="pass")]
    state = replay(mid_hand + [GameEnded()])
    assert state.phase == "over" and state.ended == "organiser"
    assert state.scores == before.scores and len(state.hands) == 2
    ns, ew = state.scores["NS"], state.scores["EW"]
    assert state.winner == ("NS" if ns > ew else "EW" if ew > ns else None)
    assert state.bids == [] and state.to_speak is None
    with pytest.raises(IllegalEventError, match="the game is over"):
        verify_event(state, BidMade(seat="N", bid="pass"))


def test_ending_with_equal_totals_is_a_draw() -> None:
    state = replay([GameStarted(dealer="N"), GameEnded(reason="time")])
    assert state.phase == "over" and state.winner is None and state.ended == "time"
    with pytest.raises(IllegalEventError, match="a draw"):
        verify_event(state, GameEnded())


def test_a_game_of_a_fixed_number_of_hands_ends_after_them() -> None:
    events = simulate_game(3, hands=6, settings={"hands": 2})
    state = replay(events)
    assert len(state.hands) == 2 and state.phase == "over" and state.ended == "hands"
    free = replay(simulate_game(3, hands=3))
    assert len(free.hands) == 3 and free.ended is None


def test_game_ended_reads_back_and_refuses_an_unknown_reason() -> None:
    assert event_from_json({"type": "GameEnded", "reason": "time"}) == GameEnded(reason="time")
    with pytest.raises(InvalidEventError, match="reason"):
        GameEnded(reason="bored")
