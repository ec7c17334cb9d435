"""FFB 10 (calcul du score): every cell of the 10.2 table in both methods, its
notes 1 and 2, the 10.3 rounding, the 10.4 game end and its two worked examples,
and the 11.3 Tout Atout example.

Source: Règles officielles de la belote contrée, FFB, 27.01.2016, 10.1 to 10.4, 11.3.
"""

from __future__ import annotations

import pytest

from scorer.events import ContractSet, GameStarted, TallyEntered
from scorer.game import replay
from scorer.rules import Rules
from scorer.scoring import contract_made, round_ten, score_hand

PF = Rules.from_preset("ffb")
PFD = Rules.from_preset("ffb-pfd")
NOBEL = {"NS": 0, "EW": 0}


def hand(rules, value, points_ns, *, double=1, tricks_ns=5, belote=NOBEL, trump="H"):
    """N (NS) takes ``value``; NS made ``points_ns`` of 162 (252 on a capot)."""
    total = 252 if tricks_ns in (0, 8) else 162
    points = {"NS": points_ns, "EW": total - points_ns}
    return score_hand(rules, "N", value, trump, double, points,
                      {"NS": tricks_ns, "EW": 8 - tricks_ns}, belote)


def test_10_1_a_team_totals_tricks_dix_de_der_and_belote():
    # 62 card points + 20 belote = 82 >= 80: made although the defence has 100.
    assert hand(PF, 80, 62, belote={"NS": 1, "EW": 0})["made"] is True


def test_10_1_1_made_even_if_the_defence_has_more_points():
    assert contract_made(PF, "NS", 80, "H", {"NS": 80, "EW": 82}, {"NS": 4, "EW": 4}, NOBEL)


def test_english_rendering_preset_also_needs_more_than_the_defence():
    en = Rules.from_preset("ffb-en")
    assert not contract_made(en, "NS", 80, "H", {"NS": 80, "EW": 82}, {"NS": 4, "EW": 4}, NOBEL)


def test_10_1_2_fall_below_the_bid():
    assert hand(PF, 100, 99)["made"] is False


@pytest.mark.parametrize("rules,takers,defence", [(PF, 100 + 20, 60), (PFD, 100 + 90 + 20, 60)])
def test_10_2_made_standard(rules, takers, defence):
    # 97 -> 100 and 65 -> 70 in points faits; + the 90 asked in pfd
    r = hand(rules, 90, 103, belote={"NS": 1, "EW": 0})
    assert (r["made"], r["score"]) == (True, {"NS": takers, "EW": defence})


def test_10_2_made_standard_defence_keeps_its_belote():
    r = hand(PF, 90, 103, belote={"NS": 0, "EW": 1})
    assert r["score"] == {"NS": 100, "EW": 60 + 20}


@pytest.mark.parametrize("rules,double,takers", [
    (PF, 2, 320 + 40), (PF, 4, 640 + 40),
    (PFD, 2, 320 + 90 * 2 + 40), (PFD, 4, 640 + 90 * 4 + 40)])
def test_10_2_made_contre_and_surcontre_takers_take_both_belotes(rules, double, takers):
    r = hand(rules, 90, 103, double=double, belote={"NS": 1, "EW": 1})
    assert r["score"] == {"NS": takers, "EW": 0}


@pytest.mark.parametrize("double,takers", [(1, 500), (2, 1000), (4, 2000)])
def test_10_2_capot_bid_and_made(double, takers):
    for rules in (PF, PFD):
        r = hand(rules, "capot", 252, double=double, tricks_ns=8, belote={"NS": 1, "EW": 0})
        assert (r["made"], r["score"]) == (True, {"NS": takers + 20, "EW": 0})


def test_10_2_capot_made_standard_defence_keeps_its_belote():
    r = hand(PF, "capot", 252, tricks_ns=8, belote={"NS": 0, "EW": 1})
    assert r["score"] == {"NS": 500, "EW": 20}


@pytest.mark.parametrize("rules,defence", [(PF, 160 + 20), (PFD, 160 + 100 + 20)])
def test_10_2_fall_standard_belote_goes_to_the_defence(rules, defence):
    r = hand(rules, 100, 70, belote={"NS": 1, "EW": 0})
    assert (r["made"], r["score"]) == (False, {"NS": 0, "EW": defence})


@pytest.mark.parametrize("rules,defence", [(PF, 160 + 20), (PFD, 160 + 80 + 20)])
def test_10_2_capot_by_the_defence_is_a_plain_fall_for_the_takers(rules, defence):
    # The table has no line for a capot made by the defence: the takers fell, the
    # defence scores 160 (+ the contract) and both belotes, not 250.
    r = hand(rules, 80, 0, tricks_ns=0, belote={"NS": 1, "EW": 0})
    assert (r["made"], r["score"]) == (False, {"NS": 0, "EW": defence})


@pytest.mark.parametrize("rules,double,defence", [
    (PF, 2, 320), (PF, 4, 640), (PFD, 2, 320 + 200), (PFD, 4, 640 + 400)])
def test_10_2_fall_contre_and_surcontre(rules, double, defence):
    r = hand(rules, 100, 70, double=double, belote={"NS": 0, "EW": 1})
    assert r["score"] == {"NS": 0, "EW": defence + 20}


@pytest.mark.parametrize("double,defence", [(1, 500), (2, 1000), (4, 2000)])
def test_10_2_capot_bid_and_failed(double, defence):
    r = hand(PF, "capot", 150, double=double, tricks_ns=7, belote={"NS": 1, "EW": 0})
    assert (r["made"], r["score"]) == (False, {"NS": 0, "EW": defence + 20})


def test_10_2_note_1_contre_adds_160_instead_of_320_in_pfd():
    rules = Rules.from_preset("ffb-pfd-note1")
    assert hand(rules, 90, 103, double=2)["score"] == {"NS": 160 + 180, "EW": 0}
    assert hand(rules, 90, 103, double=4)["score"] == {"NS": 160 + 360, "EW": 0}


def test_10_2_note_2_contre_team_making_a_capot_scores_420_in_points_faits():
    assert hand(PF, 90, 252, double=2, tricks_ns=8)["score"] == {"NS": 420, "EW": 0}
    assert hand(PFD, 90, 252, double=2, tricks_ns=8)["score"] == {"NS": 320 + 180, "EW": 0}


def test_10_3_rounding_to_the_nearest_ten():
    assert (round_ten(85), round_ten(84), round_ten(5), round_ten(4)) == (90, 80, 10, 0)


def test_10_3_the_contract_is_judged_on_unrounded_points():
    assert hand(PF, 80, 79)["made"] is False  # 79 would round to 80


def test_unannounced_capot_scores_252_rounded_in_ffb_and_250_flat_for_the_club():
    assert hand(PF, 80, 252, tricks_ns=8)["score"] == {"NS": 250, "EW": 0}
    club = Rules.from_preset("club")
    assert hand(club, 80, 252, tricks_ns=8)["score"] == {"NS": 250, "EW": 0}
    assert hand(club, 100, 120)["score"] == {"NS": 100, "EW": 40}


def test_club_variant_contre_multiplies_the_contract():
    rules = Rules.from_preset("club-variant")
    assert hand(rules, 110, 120, double=2)["score"] == {"NS": 220, "EW": 0}
    assert hand(rules, 110, 100, double=4)["score"] == {"NS": 0, "EW": 440}
    assert hand(rules, 110, 120)["score"] == {"NS": 110, "EW": 0}


def _game(rules, target, *hands):
    """Tallied hands: (taker, value, points NS, tricks NS, belote team)."""
    events = [GameStarted(rules=rules, settings={"target": target}, dealer="N")]
    for taker, value, pts, tricks, belote in hands:
        total = 252 if tricks in (0, 8) else 162
        events += [ContractSet(taker=taker, value=value, trump="H"),
                   TallyEntered(points={"NS": pts, "EW": total - pts},
                                tricks={"NS": tricks, "EW": 8 - tricks}, belote=belote)]
    return replay(events)


def test_10_4_example_1_points_faits_rounded_points_win_the_game():
    # NS reach 1880 in tallied hands, then make 117 points on a 110 contract.
    s = _game("ffb", 2000, *[("N", "capot", 252, 8, None)] * 3,
              ("S", 160, 180 - 20, 7, "NS"),   # 160 + 20 belote = 180 -> 1680
              ("W", 80, 40, 2, None),          # 1720
              ("E", 80, 40, 2, None),          # 1760
              ("W", 80, 40, 2, None),          # 1800
              ("E", 80, 80, 4, None))          # 1880
    assert s.scores["NS"] == 1880 and s.winner is None
    s = s.apply(ContractSet(taker="S", value=110, trump="H")).apply(
        TallyEntered(points={"NS": 117, "EW": 45}, tricks={"NS": 6, "EW": 2}))
    assert s.scores["NS"] == 2000 and s.winner == "NS" and s.phase == "over"


def test_10_4_example_2_points_faits_demandes():
    s = _game("ffb-pfd", 2000, *[("N", "capot", 252, 8, None)] * 3,
              ("S", 80, 110, 6, None),   # 110 + 80 = 190 -> 1690
              ("E", 80, 80, 3, None))    # defence 80 -> 1770
    assert s.scores["NS"] == 1770
    s = s.apply(ContractSet(taker="S", value=110, trump="H")).apply(
        TallyEntered(points={"NS": 117, "EW": 45}, tricks={"NS": 6, "EW": 2}))
    assert s.scores["NS"] == 1770 + 120 + 110 and s.winner == "NS"


def test_10_4_both_over_the_target_the_higher_wins_and_a_tie_plays_on():
    s = _game("ffb", 100, ("N", 80, 102, 5, None))  # 100 / 60
    assert s.winner == "NS"
    s = _game("ffb", 70, ("N", 80, 91, 5, None))    # 90 / 70: both reach 70
    assert s.winner == "NS"
    s = _game("ffb", 80, ("N", 80, 83, 4, None))    # 80 / 80: tie, play on
    assert s.scores == {"NS": 80, "EW": 80} and s.winner is None and s.phase == "bidding"


def test_11_3_tout_atout_example_198_points_and_belote_make_140():
    rules = Rules.from_preset("ffb-sata")
    points, tricks = {"NS": 198, "EW": 60}, {"NS": 6, "EW": 2}
    assert contract_made(rules, "NS", 140, "AT", points, tricks, {"NS": 1, "EW": 0})
    assert not contract_made(rules, "NS", 140, "AT", points, tricks, NOBEL)
    r = score_hand(rules, "N", 140, "AT", 1, points, tricks, {"NS": 1, "EW": 0})
    # 198 x 162/258 = 124.3 -> 120, + 20 belote; 60 x 162/258 = 37.7 -> 40
    assert (r["made"], r["score"]) == (True, {"NS": 140, "EW": 40})
