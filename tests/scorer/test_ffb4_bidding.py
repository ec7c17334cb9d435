"""FFB 4 (les enchères), one test per numbered rule, and the FFB 11.1 bids.

Source: Règles officielles de la belote contrée, FFB, 27.01.2016, chapter 4.
"""

from __future__ import annotations

import pytest

from scorer.events import BidMade, GameStarted
from scorer.game import IllegalEventError, can_apply, replay, verify_event


def auction(*bids: str, dealer: str = "N", rules: str = "ffb", settings=None):
    """Replay bids in turn order from the dealer's right; return the state."""
    events = [GameStarted(rules=rules, settings=settings or {}, dealer=dealer)]
    state = replay(events)
    for bid in bids:
        seat = state.to_speak
        event = BidMade(seat, bid)
        verify_event(state, event)
        state = state.apply(event)
    return state


def test_4_1_contract_engages_the_takers_team():
    state = auction("80H", "pass", "pass", "pass")
    assert state.contract == {"taker": "W", "value": 80, "trump": "H", "double": 1}
    assert state.phase == "play"


def test_4_2_first_to_speak_is_right_of_dealer_counterclockwise():
    assert auction(dealer="N").to_speak == "W"
    assert auction(dealer="W").to_speak == "S"
    assert auction("pass", dealer="N").to_speak == "S"


def test_4_2_clockwise_setting_turns_the_other_way():
    assert auction(dealer="N", settings={"clockwise": True}).to_speak == "E"


def test_4_2_1_four_passes_end_the_hand_and_the_right_hand_player_deals():
    state = auction("pass", "pass", "pass", "pass", dealer="N")
    assert state.hand_no == 2 and state.dealer == "W" and state.phase == "bidding"
    assert state.scores == {"NS": 0, "EW": 0}
    assert state.hands[0]["result"]["contract"] is None
    assert state.to_speak == "S"


def test_4_2_1_a_player_who_passed_may_bid_later():
    state = auction("pass", "80H", "pass", "pass", "90S")  # W passed, then bids
    assert state.bids[-1] == ("W", "90S")


def test_4_2_2_bids_are_80_to_160_by_tens():
    state = auction()
    for bad in ("70H", "85H", "170H", "80X"):
        assert not can_apply(state, BidMade("W", bad))
    assert can_apply(state, BidMade("W", "160H"))


def test_4_2_2_a_bid_must_be_above_the_last():
    state = auction("90H")
    with pytest.raises(IllegalEventError, match="not above 90H"):
        verify_event(state, BidMade("S", "90S"))
    assert can_apply(state, BidMade("S", "100S"))


def test_4_2_2_capot_is_above_160_and_nothing_is_above_capot():
    state = auction("160H", "capotS")
    assert not can_apply(state, BidMade("E", "capotH"))
    assert can_apply(state, BidMade("E", "contre"))
    assert can_apply(state, BidMade("E", "pass"))


def test_4_2_2_the_auction_ends_when_it_comes_back_to_the_last_bidder():
    state = auction("80H", "90S", "pass", "pass")
    assert state.phase == "bidding" and state.to_speak == "W"
    state = state.apply(BidMade("W", "pass"))
    assert state.contract == {"taker": "S", "value": 90, "trump": "S", "double": 1}


def test_4_2_2_bid_out_of_turn_is_refused():
    state = auction()
    with pytest.raises(IllegalEventError, match="S spoke out of turn, W to speak"):
        verify_event(state, BidMade("S", "80H"))


def test_4_2_3_only_an_opponent_may_contre_on_their_turn():
    state = auction("80H")  # W bid; S (opponent) speaks
    assert can_apply(state, BidMade("S", "contre"))
    state = auction("80H", "pass")  # E, W's partner, speaks
    with pytest.raises(IllegalEventError, match="own team"):
        verify_event(state, BidMade("E", "contre"))
    # "à la volée": N is an opponent but it is not N's turn
    assert not can_apply(auction("80H"), BidMade("N", "contre"))


def test_4_2_3_contre_freezes_the_contract():
    state = auction("80H", "contre")
    assert not can_apply(state, BidMade("E", "90H"))


def test_4_2_3_after_contre_only_the_contre_team_speaks():
    # W bids, S contres; E (contré) speaks, N (S's partner) is skipped, then W.
    state = auction("80H", "contre")
    assert state.to_speak == "E"
    state = state.apply(BidMade("E", "pass"))
    assert state.to_speak == "W"
    state = state.apply(BidMade("W", "pass"))
    assert state.contract == {"taker": "W", "value": 80, "trump": "H", "double": 2}


def test_4_2_3_design_record_contre_pass_pass_is_complete():
    state = auction("80H", "contre", "pass", "pass")
    assert state.phase == "play" and state.contract["double"] == 2


def test_4_2_3_contre_by_the_last_opponent_to_speak_then_the_contre_team_in_turn():
    # W bids, S and E pass, N contres on its turn: W then E speak, S says nothing.
    state = auction("80H", "pass", "pass", "contre")
    assert state.to_speak == "W"
    assert not can_apply(state, BidMade("S", "pass"))
    state = state.apply(BidMade("W", "pass"))
    assert state.to_speak == "E"
    assert can_apply(state, BidMade("E", "surcontre"))
    state = state.apply(BidMade("E", "pass"))
    assert state.contract == {"taker": "W", "value": 80, "trump": "H", "double": 2}


def test_4_2_3_nothing_to_contre_and_no_second_contre():
    with pytest.raises(IllegalEventError, match="nothing to contre"):
        verify_event(auction(), BidMade("W", "contre"))
    with pytest.raises(IllegalEventError, match="nothing to contre"):
        verify_event(auction("pass", "pass"), BidMade("E", "contre"))
    state = auction("80H", "contre")
    with pytest.raises(IllegalEventError, match="already contré"):
        verify_event(state, BidMade("E", "contre"))


def test_4_2_3_contre_on_a_bid_that_is_no_longer_the_last_is_refused():
    # W 80H, S 90S: E may contre S's bid (an opponent), not W's (its own team's).
    state = auction("80H", "90S")
    assert state.to_speak == "E" and can_apply(state, BidMade("E", "contre"))
    state = auction("80H", "90S", "pass")  # N, S's partner, cannot contre 90S
    with pytest.raises(IllegalEventError, match="own team"):
        verify_event(state, BidMade("N", "contre"))


def test_4_2_2_a_partner_may_raise_and_the_auction_never_returns_to_a_lone_bidder():
    # E raises its partner W (allowed); the bidder never speaks again over its own bid:
    # after three passes the auction is closed.
    state = auction("80H", "pass", "100H", "pass", "pass", "pass")
    assert state.contract == {"taker": "E", "value": 100, "trump": "H", "double": 1}
    with pytest.raises(IllegalEventError, match="outside the auction"):
        verify_event(state, BidMade("E", "110H"))


def test_4_2_4_surcontre_ends_the_auction_at_once():
    state = auction("80H", "contre", "surcontre")
    assert state.phase == "play"
    assert state.contract == {"taker": "W", "value": 80, "trump": "H", "double": 4}


def test_4_2_4_nothing_is_spoken_after_a_surcontre():
    state = auction("80H", "contre", "surcontre")
    for bid in ("pass", "90H", "contre", "surcontre"):
        assert not can_apply(state, BidMade("N", bid))
    assert state.to_play == "W" and state.to_speak is None


def test_4_2_4_only_the_contre_team_surcontres():
    state = auction("pass", "80S", "contre")  # S bid, E contred; W (opponent of S)...
    assert state.to_speak == "N"
    assert can_apply(state, BidMade("N", "surcontre"))
    assert not can_apply(auction("80H"), BidMade("S", "surcontre"))


def test_11_1_sans_atout_and_tout_atout_bids_only_when_the_rules_allow():
    assert not can_apply(auction(), BidMade("W", "120NT"))
    state = auction(rules="ffb-sata")
    assert can_apply(state, BidMade("W", "120NT"))
    state = auction("90AT", "pass", "pass", "pass", rules="ffb-sata")
    assert state.contract["trump"] == "AT"
