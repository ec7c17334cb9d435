"""Classic belote (preset ``classic``): the turned card, two rounds of taking,
the redeal, the undertrump obligation, chute ("dedans"), litige held over, capot 252,
and the belote kept by its holder.

Source: ../shared/rules/belote-classique-regles-officielles-resume.fr.md and
belote-classique.fr.txt (preset ``classic-82``).
"""

from __future__ import annotations

import pytest

from scorer.events import BidMade, CardPlayed, CardTurned, ContractSet, GameStarted, TallyEntered
from scorer.game import IllegalEventError, can_apply, legal_plays, replay, verify_event
from scorer.rules import Rules
from scorer.scoring import score_hand


def classic(*bids: str, turned: str = "9H", rules: str = "classic"):
    state = replay([GameStarted(rules=rules, dealer="N"), CardTurned(card=turned)])
    for bid in bids:
        e = BidMade(state.to_speak, bid)
        verify_event(state, e)
        state = state.apply(e)
    return state


def test_bids_wait_for_the_turned_card():
    state = replay([GameStarted(rules="classic", dealer="N")])
    with pytest.raises(IllegalEventError, match="turn the card"):
        verify_event(state, BidMade("W", "take"))
    assert not can_apply(replay([GameStarted(dealer="N")]), CardTurned(card="9H"))


def test_first_round_take_is_the_turned_suit():
    state = classic("pass", "take")
    assert state.contract == {"taker": "S", "value": None, "trump": "H", "double": 1}
    assert state.to_play == "W"  # the dealer's right leads


def test_first_round_cannot_name_another_suit():
    assert not can_apply(classic(), BidMade("W", "take:S"))


def test_second_round_names_another_suit():
    state = classic("pass", "pass", "pass", "pass")
    assert not can_apply(state, BidMade("W", "take"))
    assert not can_apply(state, BidMade("W", "take:H"))
    state = state.apply(BidMade("W", "take:S"))
    assert state.contract["trump"] == "S" and state.contract["taker"] == "W"


def test_two_rounds_of_passes_redeal_by_the_next_dealer():
    state = classic(*["pass"] * 8)
    assert state.hand_no == 2 and state.dealer == "W" and state.scores == {"NS": 0, "EW": 0}
    assert state.to_speak is None and state.turned is None


def test_contree_bids_are_refused_in_classic():
    assert not can_apply(classic(), BidMade("W", "80H"))


def test_must_overtrump_else_undertrump_when_cutting():
    state = replay([GameStarted(rules="classic", dealer="N"),
                    ContractSet(taker="W", value=None, trump="H"),
                    CardPlayed("W", "AS"), CardPlayed("S", "JH")])
    # E (W's partner) void in spades: S (opponent) cut with JH; E cannot go over: must undertrump
    assert legal_plays(["7H", "AD"], state) == ["7H"]


R = Rules.from_preset("classic")
NOBEL = {"NS": 0, "EW": 0}


def test_made_more_points_than_the_defence_both_score_their_points():
    r = score_hand(R, "N", None, "H", 1, {"NS": 90, "EW": 72}, {"NS": 5, "EW": 3}, NOBEL)
    assert (r["made"], r["score"]) == (True, {"NS": 90, "EW": 72})


def test_dedans_gives_162_to_the_defence_and_the_belote_stays():
    r = score_hand(R, "N", None, "H", 1, {"NS": 70, "EW": 92}, {"NS": 4, "EW": 4},
                   {"NS": 1, "EW": 0})
    # NS 70 + 20 = 90 < 92: dedans; the belote cannot be taken
    assert (r["made"], r["score"]) == (False, {"NS": 20, "EW": 162})


def test_capot_scores_252():
    r = score_hand(R, "N", None, "H", 1, {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0},
                   {"NS": 0, "EW": 1})
    assert r["score"] == {"NS": 252, "EW": 20}


def test_litige_81_81_the_takers_points_go_to_the_next_hands_winners():
    state = replay([
        GameStarted(rules="classic", dealer="N"),
        ContractSet(taker="W", value=None, trump="H"),
        TallyEntered(points={"NS": 81, "EW": 81}, tricks={"NS": 4, "EW": 4}),
    ])
    assert state.hands[0]["result"]["made"] is None
    assert state.scores == {"NS": 81, "EW": 0} and state.held_over == 81
    state = state.apply(ContractSet(taker="N", value=None, trump="S")).apply(
        TallyEntered(points={"NS": 100, "EW": 62}, tricks={"NS": 5, "EW": 3}))
    assert state.scores == {"NS": 81 + 100 + 81, "EW": 62} and state.held_over == 0


def test_other_text_needs_82_and_a_fall_leaves_the_defence_its_points():
    r82 = Rules.from_preset("classic-82")
    made = score_hand(r82, "N", None, "H", 1, {"NS": 82, "EW": 80}, {"NS": 4, "EW": 4}, NOBEL)
    assert made["made"] is True
    fall = score_hand(r82, "N", None, "H", 1, {"NS": 81, "EW": 81}, {"NS": 4, "EW": 4}, NOBEL)
    assert (fall["made"], fall["score"]) == (False, {"NS": 0, "EW": 81})


def test_capot_by_the_defence_scores_252_and_the_takers_keep_only_their_belote():
    r = score_hand(R, "N", None, "H", 1, {"NS": 0, "EW": 252}, {"NS": 0, "EW": 8},
                   {"NS": 1, "EW": 0})
    assert (r["made"], r["score"]) == (False, {"NS": 20, "EW": 252})


def test_litige_waits_through_a_redeal_and_goes_to_the_defence_on_a_dedans():
    state = replay([
        GameStarted(rules="classic", dealer="N"),
        ContractSet(taker="W", value=None, trump="H"),
        TallyEntered(points={"NS": 81, "EW": 81}, tricks={"NS": 4, "EW": 4}),
        # hand 2 (dealer W): two rounds of passes, a redeal; nobody won it
        CardTurned(card="9H"), *[BidMade(s, "pass") for s in "SENW" * 2],
    ])
    assert state.hand_no == 3 and state.dealer == "S"
    assert state.scores == {"NS": 81, "EW": 0} and state.held_over == 81
    # hand 3 (dealer S): E takes spades and falls; the defence (NS) wins the hand
    state = state.apply(CardTurned(card="7S")).apply(BidMade("E", "take"))
    assert state.contract == {"taker": "E", "value": None, "trump": "S", "double": 1}
    state = state.apply(TallyEntered(points={"NS": 100, "EW": 62}, tricks={"NS": 5, "EW": 3}))
    assert state.hands[-1]["result"]["made"] is False
    assert state.scores == {"NS": 81 + 162 + 81, "EW": 0} and state.held_over == 0


def test_two_litiges_in_a_row_add_up_for_the_next_winners():
    litige = TallyEntered(points={"NS": 81, "EW": 81}, tricks={"NS": 4, "EW": 4})
    state = replay([GameStarted(rules="classic", dealer="N"),
                    ContractSet(taker="W", value=None, trump="H"), litige,
                    ContractSet(taker="N", value=None, trump="D"), litige])
    # first: NS (defence) score 81; second: EW (defence) score 81; 162 wait
    assert state.scores == {"NS": 81, "EW": 81} and state.held_over == 162
    state = state.apply(ContractSet(taker="S", value=None, trump="C")).apply(
        TallyEntered(points={"NS": 90, "EW": 72}, tricks={"NS": 5, "EW": 3}))
    assert state.scores == {"NS": 81 + 90 + 162, "EW": 81 + 72}


def test_classic_record_with_a_turned_card_scores_like_the_live_game():
    from scorer.record import InvalidRecordError, score_record
    from scorer.simulate import simulate_game
    state = replay(simulate_game(3, hands=4, rules="classic"))
    played = [h for h in state.hands if h["result"]["contract"] is not None]
    assert played and all("turned" in h["record"] for h in played)
    for h in played:
        r = score_record(h["record"])
        assert r["score"] == h["result"]["score"] and r["made"] == h["result"]["made"]
    rec = dict(played[0]["record"])
    rec["turned"] = None
    with pytest.raises(InvalidRecordError, match=r"^turned: the turned card must be named"):
        score_record(rec)
    del rec["turned"]
    with pytest.raises(InvalidRecordError, match=r"^turned: a classic belote record names"):
        score_record(rec)


def test_eight_passes_record_scores_nothing():
    from scorer.record import score_record
    r = score_record({"rules": "classic", "dealer": "N", "turned": "JD", "bids": ["pass"] * 8})
    assert r["contract"] is None and r["score"] == {"NS": 0, "EW": 0}
