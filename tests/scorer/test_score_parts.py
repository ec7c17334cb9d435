"""What each team's score for a hand is made of (``result["parts"]``): the lines
the scorer writes while it adds the score up, one table cell of FFB 10.2 at a
time (points, contract, chute, contré, capot, belote), a renonce under each
penalty setting, and a classic litige's points held over to the next winners.

Source: Règles officielles de la belote contrée, FFB, 27.01.2016, 10.2 (and its
notes 1 and 2), 10.3, 11.3; the club's house rules (``club``, ``club-variant``);
the classic belote summary (``classic``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.events import BidMade, CardTurned, ContractSet, GameStarted, TallyEntered
from scorer.game import replay
from scorer.record import score_record
from scorer.rules import PRESETS, Rules
from scorer.scoring import PART_KINDS, score_hand
from scorer.simulate import simulate_game

PF = Rules.from_preset("ffb")
PFD = Rules.from_preset("ffb-pfd")
CLASSIC = Rules.from_preset("classic")
NOBEL = {"NS": 0, "EW": 0}


def P(what: str, points: int, **figures: int) -> dict[str, Any]:
    return {"what": what, "points": points, **figures}


def hand(rules, value, points_ns, *, double=1, tricks_ns=5, belote=NOBEL, trump="H",
         renonce=None, held_over=0):
    """N (NS) takes ``value``; NS made ``points_ns`` of 162 (252 on a capot)."""
    total = 252 if tricks_ns in (0, 8) else 162
    return score_hand(rules, "N", value, trump, double,
                      {"NS": points_ns, "EW": total - points_ns},
                      {"NS": tricks_ns, "EW": 8 - tricks_ns}, belote,
                      renonce_team=renonce, held_over=held_over)


def test_made_contract_each_team_scores_its_rounded_points_and_its_belote():
    r = hand(PF, 90, 103, belote={"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [P("points", 100, **{"from": 103}), P("belote", 20)],
                          "EW": [P("points", 60, **{"from": 59})]}
    assert r["score"] == {"NS": 120, "EW": 60}


def test_made_contract_without_rounding_has_no_from_figure():
    r = hand(Rules.from_preset("ffb", {"rounding": False}), 90, 103)
    assert r["parts"] == {"NS": [P("points", 103)], "EW": [P("points", 59)]}


def test_made_contract_in_points_faits_demandes_adds_the_contract_value():
    r = hand(PFD, 90, 103, belote={"NS": 0, "EW": 1})
    assert r["parts"] == {"NS": [P("points", 100, **{"from": 103}), P("contract", 90)],
                          "EW": [P("points", 60, **{"from": 59}), P("belote", 20)]}


def test_fallen_contract_the_defence_takes_160_and_both_belotes():
    r = hand(PF, 100, 70, belote={"NS": 1, "EW": 1})
    assert r["parts"] == {"NS": [], "EW": [P("fallen", 160), P("belote", 40)]}
    r = hand(PFD, 100, 70, belote={"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [], "EW": [P("fallen", 160), P("contract", 100),
                                           P("belote", 20)]}
    assert r["score"] == {"NS": 0, "EW": 280}


@pytest.mark.parametrize("double", [2, 4])
def test_contre_and_surcontre_made_160_times_the_multiplier(double):
    r = hand(PF, 90, 103, double=double, belote={"NS": 0, "EW": 1})
    assert r["parts"] == {"NS": [P("contre", 160 * double, base=160, multiplier=double),
                                 P("belote", 20)], "EW": []}
    fallen = hand(PF, 100, 70, double=double)
    assert fallen["parts"] == {
        "NS": [], "EW": [P("contre", 160 * double, base=160, multiplier=double)]}


def test_contre_in_pfd_adds_the_doubled_contract_and_note_1_keeps_160():
    r = hand(PFD, 90, 103, double=4)
    assert r["parts"]["NS"] == [P("contre", 640, base=160, multiplier=4),
                                P("contract", 360, base=90, multiplier=4)]
    r = hand(Rules.from_preset("ffb-pfd-note1"), 90, 103, double=2)
    assert r["parts"]["NS"] == [P("contre", 160, base=160, multiplier=1),
                                P("contract", 180, base=90, multiplier=2)]


def test_club_variant_contre_multiplies_the_contract_value():
    r = hand(Rules.from_preset("club-variant"), 110, 100, double=4)
    assert r["parts"] == {"NS": [], "EW": [P("contre", 440, base=110, multiplier=4)]}


def test_note_2_contre_capot_in_points_faits_adds_the_100_bonus():
    r = hand(PF, 90, 252, double=2, tricks_ns=8)
    assert r["parts"]["NS"] == [P("contre", 320, base=160, multiplier=2), P("capot_bonus", 100)]


def test_capot_bid_made_and_fallen():
    r = hand(PF, "capot", 252, tricks_ns=8, belote={"NS": 0, "EW": 1})
    assert r["parts"] == {"NS": [P("capot", 500)], "EW": [P("belote", 20)]}
    # Contré: the takers take the defence's belote with their own.
    r = hand(PF, "capot", 252, double=2, tricks_ns=8, belote={"NS": 1, "EW": 1})
    assert r["parts"] == {"NS": [P("capot", 1000), P("belote", 40)], "EW": []}
    r = hand(PF, "capot", 150, double=4, tricks_ns=7, belote={"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [], "EW": [P("capot", 2000), P("belote", 20)]}


def test_unannounced_capot_club_flat_250_ffb_rounded_points():
    assert hand(Rules.from_preset("club"), 80, 252, tricks_ns=8)["parts"] == {
        "NS": [P("capot", 250)], "EW": []}
    assert hand(PF, 80, 252, tricks_ns=8)["parts"] == {
        "NS": [P("points", 250, **{"from": 252})], "EW": []}
    assert hand(Rules.from_preset("club"), 100, 120)["parts"] == {
        "NS": [P("contract", 100)], "EW": [P("points", 40, **{"from": 42})]}


def test_tout_atout_points_show_the_raw_figure_before_conversion():
    r = score_hand(Rules.from_preset("ffb-sata"), "N", 140, "AT", 1, {"NS": 198, "EW": 60},
                   {"NS": 6, "EW": 2}, {"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [P("points", 120, **{"from": 198}), P("belote", 20)],
                          "EW": [P("points", 40, **{"from": 60})]}


@pytest.mark.parametrize("preset,settings,value,offender,parts", [
    # The belote goes to the other team as on a fall (FFB 10.2, FFB 7): the
    # offender keeps nothing (scorer.scoring._renonce_score).
    ("ffb", {}, 130, "EW", {"NS": [P("renonce", 160), P("belote", 20)], "EW": []}),
    ("ffb", {}, 130, "NS", {"NS": [], "EW": [P("renonce", 160), P("belote", 20)]}),
    ("ffb-pfd", {}, 130, "EW", {"NS": [P("renonce", 160), P("contract", 130),
                                       P("belote", 20)], "EW": []}),
    ("ffb", {"renonce_penalty": "flat-162"}, 130, "EW",
     {"NS": [P("renonce", 162), P("belote", 20)], "EW": []}),
    ("ffb", {"renonce_penalty": "flat-160"}, "capot", "EW",
     {"NS": [P("renonce", 160), P("belote", 20)], "EW": []}),
    ("club", {}, 130, "EW", {"NS": [P("renonce", 130), P("belote", 20)], "EW": []}),
    # The contract in play is a capot: 500, as the scorer gives (not 162).
    ("club", {}, "capot", "EW", {"NS": [P("renonce", 500), P("belote", 20)], "EW": []}),
    ("club", {}, "capot", "NS", {"NS": [], "EW": [P("renonce", 500), P("belote", 20)]}),
])
def test_renonce_parts_under_each_penalty_the_belote_goes_with_the_hand(
        preset, settings, value, offender, parts):
    rules = Rules.from_preset(preset, settings)
    r = hand(rules, value, 100, renonce=offender, belote={"NS": 0, "EW": 1})
    assert r["parts"] == parts
    assert r["score"] == {t: sum(p["points"] for p in parts[t]) for t in ("NS", "EW")}
    assert r["renonce_penalty"] == rules.renonce_penalty


def test_renonce_that_cancels_the_hand_has_no_parts():
    r = hand(Rules.from_preset("ffb", {"renonce_penalty": "cancel"}), 100, 100, renonce="NS",
             belote={"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [], "EW": []} and r["cancelled"] is True


def test_contract_penalty_on_a_capot_through_the_fold(play_out, deal_a):
    # W (defence) does not cut N's spade ace though holding trumps: a renonce.
    contract = {"taker": "N", "value": "capot", "trump": "H"}
    rec = play_out(deal_a, dealer="E", contract=contract, rules="club",
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    state = replay([GameStarted(rules="club", dealer="E"), ContractSet(**contract),
                    *record_plays(rec)])
    result = state.hands[0]["result"]
    assert [r["seat"] for r in result["renonces"]] == ["W"]
    assert result["score"] == {"NS": 500, "EW": 0}
    assert result["parts"] == {"NS": [P("renonce", 500)], "EW": []}
    assert score_record(rec)["parts"] == result["parts"]


def record_plays(rec):
    from scorer.events import CardPlayed
    return [CardPlayed(*p.split(":")) for p in rec["plays"]]


def test_classic_made_dedans_and_capot():
    r = score_hand(CLASSIC, "N", None, "H", 1, {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3},
                   {"NS": 0, "EW": 1})
    assert r["parts"] == {"NS": [P("points", 100)], "EW": [P("points", 62), P("belote", 20)]}
    r = score_hand(CLASSIC, "N", None, "H", 1, {"NS": 70, "EW": 92}, {"NS": 4, "EW": 4},
                   {"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [P("belote", 20)], "EW": [P("fallen", 162)]}
    r = score_hand(Rules.from_preset("classic-82"), "N", None, "H", 1, {"NS": 81, "EW": 81},
                   {"NS": 4, "EW": 4}, NOBEL)
    assert r["parts"] == {"NS": [], "EW": [P("fallen", 81)]}
    r = score_hand(CLASSIC, "N", None, "H", 1, {"NS": 0, "EW": 252}, {"NS": 0, "EW": 8},
                   {"NS": 1, "EW": 0})
    assert r["parts"] == {"NS": [P("belote", 20)], "EW": [P("capot", 252)]}


def _classic_game(*hands: tuple[str, int]):
    """Classic hands by tally: (taker, NS points of 162)."""
    events: list[Any] = [GameStarted(rules="classic", dealer="N")]
    for taker, ns in hands:
        events += [ContractSet(taker=taker, value=None, trump="H"),
                   TallyEntered(points={"NS": ns, "EW": 162 - ns},
                                tricks={"NS": 4, "EW": 4})]
    return replay(events)


def test_classic_litige_parts_and_the_next_hand_gets_the_held_over_points():
    state = _classic_game(("W", 81), ("N", 100))
    litige, after = (h["result"] for h in state.hands)
    assert litige["made"] is None and litige["held_over"] == 81
    assert litige["parts"] == {"NS": [P("points", 81)], "EW": []}
    assert after["parts"] == {"NS": [P("points", 100), P("held_over", 81)],
                              "EW": [P("points", 62)]}
    assert after["score"] == {"NS": 181, "EW": 62}
    assert state.scores == {"NS": 81 + 181, "EW": 62}


def test_classic_two_litiges_then_a_dedans_the_defence_takes_both():
    state = _classic_game(("W", 81), ("N", 81), ("E", 100))
    assert [h["result"]["parts"] for h in state.hands] == [
        {"NS": [P("points", 81)], "EW": []},
        {"NS": [], "EW": [P("points", 81)]},
        {"NS": [P("fallen", 162), P("held_over", 162)], "EW": []}]


def test_classic_renonce_after_a_litige_the_other_team_takes_the_held_over_points():
    r = score_hand(CLASSIC, "N", None, "H", 1, {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3},
                   {"NS": 1, "EW": 0}, renonce_team="NS", held_over=81)
    assert r["parts"] == {"NS": [P("belote", 20)], "EW": [P("renonce", 162),
                                                          P("held_over", 81)]}


def test_a_redeal_or_a_passed_hand_has_empty_parts():
    state = replay([GameStarted(rules="classic", dealer="N"), CardTurned(card="9H"),
                    *[BidMade(s, "pass") for s in "WSEN" * 2]])
    assert state.hands[0]["result"]["parts"] == {"NS": [], "EW": []}


def test_parts_are_not_stored_in_the_hand_record():
    state = _classic_game(("W", 81), ("N", 100))
    for h in state.hands:
        assert "parts" not in h["record"] and "parts" in h["result"]


def _check_parts(result: dict[str, Any]) -> None:
    """Every team's parts add up to its score; each part is a known kind with a
    whole, non-zero number of points and only the figures the page shows."""
    for team in ("NS", "EW"):
        parts = result["parts"][team]
        assert sum(p["points"] for p in parts) == result["score"][team], result
        for p in parts:
            assert p["what"] in PART_KINDS, p
            assert isinstance(p["points"], int) and p["points"] > 0, p
            assert set(p) <= {"what", "points", "from", "base", "multiplier"}, p
            if "multiplier" in p:
                assert p["base"] * p["multiplier"] == p["points"], p
    assert set(result["parts"]) == {"NS", "EW"}


SLOW = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(sorted(PRESETS)),
       penalty=st.sampled_from(["hand-lost", "flat-162", "contract", "cancel"]),
       renonce=st.booleans())
def test_simulated_games_every_hands_parts_add_up_to_its_score(seed, preset, penalty,
                                                               renonce):
    events = simulate_game(seed, hands=4, rules=preset, inject_renonce=renonce,
                           settings={"renonce_penalty": penalty})
    state = replay(events)
    totals = {"NS": 0, "EW": 0}
    for h in state.hands:
        result = h["result"]
        _check_parts(result)
        for team in totals:
            totals[team] += sum(p["points"] for p in result["parts"][team])
        assert "parts" not in h["record"]
    assert totals == state.scores


SCORES = settings(max_examples=400, deadline=None)


@SCORES
@given(preset=st.sampled_from(sorted(PRESETS)),
       penalty=st.sampled_from(["hand-lost", "flat-162", "contract", "cancel"]),
       multiply=st.booleans(), rounding=st.booleans(), unannounced=st.sampled_from([0, 250]),
       taker=st.sampled_from("NESW"),
       value=st.sampled_from([80, 90, 100, 110, 120, 130, 140, 150, 160, "capot"]),
       trump=st.sampled_from(["S", "H", "D", "C", "NT", "AT"]),
       double=st.sampled_from([1, 2, 4]), tricks_ns=st.integers(0, 8),
       share=st.integers(0, 258), belote=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       renonce=st.sampled_from([None, "NS", "EW"]), held_over=st.sampled_from([0, 81, 162]))
def test_any_hand_parts_add_up_to_its_score(preset, penalty, multiply, rounding, unannounced,
                                            taker, value, trump, double, tricks_ns, share,
                                            belote, renonce, held_over):
    rules = Rules.from_preset(preset, {
        "renonce_penalty": penalty, "rounding": rounding, "unannounced_capot": unannounced,
        "contre_scoring": "multiply" if multiply else "table"})
    classic = rules.game == "classic"
    if classic:
        value, double, trump = None, 1, trump if trump in "SHDC" else "H"
    total = 258 if trump == "AT" else 162
    if tricks_ns in (0, 8):
        points = {"NS": 0 if tricks_ns == 0 else total + 90, "EW": 0}
        points["EW"] = total + 90 - points["NS"]
    else:
        ns = share % (total + 1)
        points = {"NS": ns, "EW": total - ns}
    result = score_hand(rules, taker, value, trump, double, points,
                        {"NS": tricks_ns, "EW": 8 - tricks_ns},
                        {"NS": belote[0], "EW": belote[1]}, renonce_team=renonce,
                        held_over=held_over if classic else 0)
    _check_parts(result)
