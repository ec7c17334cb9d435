"""FFB 5 (le jeu de la carte): turn order, trick winner, and each rule of 5.2,
with the house-rule settings and the Sans Atout / Tout Atout orders (FFB 11).

Source: Règles officielles de la belote contrée, FFB, 27.01.2016, 5.1 and 5.2.
"""

from __future__ import annotations

import pytest

from scorer.events import CardPlayed, ContractSet, GameStarted
from scorer.game import IllegalEventError, can_play, legal_plays, replay, verify_play


def trick_state(trump: str, *cards: str, rules: str = "ffb", settings=None):
    """Hearts/spades/... trump, dealer N: W leads, then S, E, N."""
    events = [GameStarted(rules=rules, settings=settings or {}, dealer="N"),
              ContractSet(taker="W", value=80, trump=trump)]
    state = replay(events)
    for card in cards:
        state = state.apply(CardPlayed(state.to_play, card))
    return state


def test_5_1_right_of_dealer_leads_and_play_goes_counterclockwise():
    state = trick_state("H")
    assert state.to_play == "W"
    assert trick_state("H", "7S").to_play == "S"
    assert trick_state("H", "7S", "8S", "9S").to_play == "N"


def test_5_1_trick_winner_leads_the_next_trick():
    # W leads 7S, S 8S, E AS, N 9S: E wins with the ace (plain order A T K Q J 9 8 7)
    state = trick_state("H", "7S", "8S", "AS", "9S")
    assert state.tricks[0][3] == "E" and state.to_play == "E" and state.trick_no == 2


def test_5_1_highest_trump_wins_else_highest_of_led_suit():
    state = trick_state("H", "AS", "7H", "TS", "JS")
    assert state.tricks[0][3] == "S"
    state = trick_state("H", "7H", "JH", "9H", "AH")  # trump order J 9 A T K Q 8 7
    assert state.tricks[0][3] == "S"


def test_5_1_out_of_turn_play_is_refused():
    state = trick_state("H")
    with pytest.raises(IllegalEventError, match="N played out of turn, W to play"):
        verify_play(state, CardPlayed("N", "7S"))


def test_card_already_played_is_refused():
    state = trick_state("H", "7S")
    assert not can_play(state, CardPlayed("S", "7S"))


def test_5_2_1_must_follow_the_led_suit():
    state = trick_state("H", "KS")
    assert legal_plays(["7S", "AD", "JH"], state) == ["7S"]


def test_5_2_1_on_a_trump_lead_go_higher_if_possible_even_over_partner():
    # W leads 9H (trump), S plays... S is W's opponent; E is W's partner: E must beat 9H.
    state = trick_state("H", "9H", "7H")
    assert legal_plays(["AH", "JH", "8H"], state) == ["JH"]
    # unable to go higher: any trump
    assert sorted(legal_plays(["AH", "8H", "7D"], state)) == ["8H", "AH"]


def test_5_2_2_1_no_led_suit_and_partner_not_master_must_trump():
    state = trick_state("H", "KS")  # S has no spade, partner N has not played
    assert legal_plays(["7H", "AD", "AC"], state) == ["7H"]
    # without a trump, free discard
    assert sorted(legal_plays(["AD", "AC"], state)) == ["AC", "AD"]


def test_5_2_2_2_opponent_has_cut_overtrump_if_possible_else_discard_freely():
    state = trick_state("H", "KS", "8H")  # S cut; E (W's partner) has no spade
    assert legal_plays(["7H", "JH", "AD"], state) == ["JH"]
    assert sorted(legal_plays(["7H", "AD"], state)) == ["7H", "AD"]


def test_5_2_2_3_partner_master_free_discard_even_a_lower_trump():
    state = trick_state("H", "KS", "9H", "7S")  # S cut with 9H, E follows; N's partner S master
    assert sorted(legal_plays(["7H", "AD"], state)) == ["7H", "AD"]
    state = trick_state("H", "KS", "7S", "AS")  # E (W's partner)... W led KS, S 7S, E AS
    # N: partner S not master (E's ace holds); N has no spade: must trump
    assert legal_plays(["7H", "AD"], state) == ["7H"]


def test_house_rule_must_undertrump_when_unable_to_overtrump():
    state = trick_state("H", "KS", "JH", settings={"must_undertrump": True})
    assert legal_plays(["7H", "AD"], state) == ["7H"]


def test_house_rule_partner_master_not_free():
    # Partner S holds the trick with a trump: N must still overtrump when able.
    state = trick_state("H", "KS", "9H", "7S", settings={"partner_master_free": False})
    assert legal_plays(["JH", "AD"], state) == ["JH"]
    assert sorted(legal_plays(["JH", "AD"], trick_state("H", "KS", "9H", "7S"))) == ["AD", "JH"]


def test_11_2_sans_atout_no_cutting_and_ace_highest():
    state = trick_state("NT", "KS")
    assert sorted(legal_plays(["7H", "AD"], state)) == ["7H", "AD"]
    state = trick_state("NT", "KS", "JH", "AS", "TS")
    assert state.tricks[0][3] == "E" and state.tricks[0][4] == 4 + 2 + 19 + 10


def test_11_3_tout_atout_follow_and_go_higher_no_cutting():
    state = trick_state("AT", "9S")
    assert legal_plays(["7S", "JS", "AH"], state) == ["JS"]
    assert sorted(legal_plays(["7H", "AD"], state)) == ["7H", "AD"]
    state = trick_state("AT", "9S", "JH", "8S", "7S")
    assert state.tricks[0][3] == "W"  # no cutting: the led suit wins
    assert state.tricks[0][4] == 14 + 20


def test_verify_play_with_a_known_hand_names_the_rule_broken():
    state = trick_state("H", "KS", "8H")  # S cut; E must overtrump with JH
    with pytest.raises(IllegalEventError, match=r"E played AD: renonce \(overtrump\), "
                                                r"holding JH"):
        verify_play(state, CardPlayed("E", "AD"), hand=["7H", "JH", "AD"])
    with pytest.raises(IllegalEventError, match="E does not hold 9C"):
        verify_play(state, CardPlayed("E", "9C"), hand=["7H", "JH", "AD"])
    assert can_play(state, CardPlayed("E", "JH"), hand=["7H", "JH", "AD"])
    # the same answer as legal_plays, card by card
    hand = ["7H", "JH", "AD", "TS"]
    assert [c for c in hand if can_play(state, CardPlayed("E", c), hand)] == \
        legal_plays(hand, state) == ["TS"]


@pytest.mark.parametrize("mode,order,points", [
    ("H", "J 9 A T K Q 8 7", (20, 14, 11, 10, 4, 3, 0, 0)),      # FFB 6, à l'atout
    ("S", "A T K Q J 9 8 7", (11, 10, 4, 3, 2, 0, 0, 0)),        # FFB 6, hors atout
    ("NT", "A T K Q J 9 8 7", (19, 10, 4, 3, 2, 0, 0, 0)),       # FFB 11.2
    ("AT", "J 9 A T K Q 8 7", (20, 14, 11, 10, 4, 3, 0, 0)),     # FFB 11.3
])
def test_6_order_and_value_of_the_hearts(mode, order, points):
    from scorer import tricks as T
    m = T.trump_mode(mode)
    hearts = [T.card_index(rank + "H") for rank in order.split()]
    assert [T.POINTS[m][c] for c in hearts] == list(points)
    # each card beats every card listed after it when both are in the trick
    for i, high in enumerate(hearts):
        for low in hearts[i + 1:]:
            assert T.winning_position([low, high], m) == 1
            assert T.winning_position([high, low], m) == 0


@pytest.mark.parametrize("mode,total", [("H", 162), ("NT", 162), ("AT", 258)])
def test_6_9_1_the_deck_makes_162_with_dix_de_der_and_258_at_tout_atout(mode, total):
    from scorer import tricks as T
    assert T.trick_points(range(32), T.trump_mode(mode)) + 10 == total
