"""The last rule gaps (issue 28, rules 9-12), each decided from the rule texts
of ../shared/rules, in one place of the scorer (``scorer.scoring``: belotes
allowed, the penalised renonce, the lost hand's value).

Texts followed, by test:

* tally belotes: FFB 11.2 ("Il n'y a pas de belote possible" at Sans Atout),
  FFB 11.3 ("Il peut y avoir jusqu'à 4 belotes" at Tout Atout), FFB 7 (one);
* unannounced capot by the defence: the club's text, "Capot": "Si une équipe
  réalise un capot sans l'avoir annoncé et s'il n'y a pas eu de contre, elle
  marque 250 points" (une équipe: either side);
* renonce penalty: the FFB text of 2016 is SILENT on renonces. Default
  (``hand-lost``): the lost hand valued by the FFB 10.2 table, "Contrat
  chuté" row (160, 320 contré, 640 surcontré, capot 500 / 1000 / 2000, plus
  the contract in points faits + demandés), so that a renonce never costs
  less than losing the same hand by play; ``flat-160`` keeps the flat 160;
  the club's text gives "les points du contrat en cours" (``contract``);
* belotes after a renonce: as on a fall in the same game: contrée, to the
  innocent team (FFB 10.2 "Belote preneurs ou défense", FFB 7 "la belote est
  perdue par les preneurs"); classic, each keeps its own ("la belote qui est
  imprenable", the classic summary);
* two renonces, one by each team: the texts are SILENT; the club's text
  cancels the hand at the first wrong card ("le coup est annulé"), so the
  renonce committed first decides, whichever was proved first.
"""

from __future__ import annotations

import pytest

from scorer.events import CardPlayed, ContractSet, GameStarted, TallyEntered
from scorer.game import IllegalEventError, replay, verify_event
from scorer.record import InvalidRecordError, score_record
from scorer.rules import Rules
from scorer.scoring import penalised_renonce, score_hand

NOBEL = {"NS": 0, "EW": 0}


def _tally_state(trump: str, rules: str = "ffb-sata") -> object:
    return replay([GameStarted(rules=rules, dealer="N"),
                   ContractSet(taker="S", value=120, trump=trump)])


# -- rule 9: belotes in a tally ----------------------------------------------------------

def test_ffb_11_2_a_tally_credits_no_belote_at_sans_atout() -> None:
    state = _tally_state("NT")
    tally = TallyEntered(points={"NS": 100, "EW": 62}, tricks={"NS": 5, "EW": 3}, belote="NS")
    with pytest.raises(IllegalEventError, match="no belote at Sans Atout"):
        verify_event(state, tally)
    rec = {"rules": "ffb-sata", "dealer": "N", "contract": {"taker": "S", "value": 120,
                                                            "trump": "NT"},
           "tally": {"NS": 100, "EW": 62, "tricks": {"NS": 5, "EW": 3}, "belote": "NS"}}
    with pytest.raises(InvalidRecordError, match="FFB 11.2"):
        score_record(rec)


def test_ffb_11_3_a_tally_credits_up_to_four_belotes_at_tout_atout() -> None:
    rec = {"rules": "ffb-sata", "dealer": "N", "contract": {"taker": "S", "value": 120,
                                                            "trump": "AT"},
           "tally": {"NS": 170, "EW": 88, "tricks": {"NS": 6, "EW": 2},
                     "belote": ["NS", "NS", "NS", "EW"]}}
    r = score_record(rec)
    # 170 x 162/258 = 106.7 + 3 belotes = 166.7 >= 120: made; NS 110 + 60, EW 60 + 20.
    assert r["made"] is True
    assert r["score"] == {"NS": 110 + 60, "EW": 60 + 20}
    rec["tally"]["belote"] = ["NS"] * 5
    with pytest.raises(InvalidRecordError):
        score_record(rec)


def test_ffb_7_a_tally_credits_one_belote_at_a_suit() -> None:
    state = _tally_state("H")
    two = TallyEntered(points={"NS": 100, "EW": 62}, tricks={"NS": 5, "EW": 3},
                       belote=["NS", "EW"])
    with pytest.raises(IllegalEventError, match="at most 1 belote"):
        verify_event(state, two)


# -- rule 10: the club's unannounced capot, by either side --------------------------------

@pytest.mark.parametrize("taker,expected", [("N", {"NS": 250, "EW": 0}),
                                            ("E", {"NS": 250, "EW": 0})],
                         ids=["takers", "defence"])
def test_club_unannounced_capot_is_250_for_either_team(taker: str,
                                                       expected: dict[str, int]) -> None:
    club = Rules.from_preset("club")
    r = score_hand(club, taker, 80, "H", 1, {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}, NOBEL)
    assert r["score"] == expected


def test_club_unannounced_capot_after_a_contre_is_the_contre() -> None:
    club = Rules.from_preset("club")
    r = score_hand(club, "E", 80, "H", 2, {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}, NOBEL)
    assert r["score"] == {"NS": 320, "EW": 0}


def test_ffb_defence_capot_is_a_fall_160() -> None:
    r = score_hand(Rules(), "E", 80, "H", 1, {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}, NOBEL)
    assert r["score"] == {"NS": 160, "EW": 0}


# -- rule 11: the renonce penalty by the 10.2 table ---------------------------------------

@pytest.mark.parametrize("value,double,penalty,expected", [
    ("capot", 4, "hand-lost", 2000),   # the same as the legal fall of a surcontré capot
    ("capot", 2, "hand-lost", 1000),
    ("capot", 1, "hand-lost", 500),
    (80, 2, "hand-lost", 320),
    (80, 4, "hand-lost", 640),
    (80, 1, "hand-lost", 160),
    ("capot", 4, "flat-160", 160),     # the setting keeps the flat 160
    (80, 2, "flat-160", 160),
])
def test_renonce_costs_the_lost_hand_by_the_ffb_10_2_table(
        value: int | str, double: int, penalty: str, expected: int) -> None:
    rules = Rules.from_preset("ffb", {"renonce_penalty": penalty})
    points, tricks = {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3}
    # The same contract lost by play: 60 points of 162, or 7 tricks of a capot.
    fell = score_hand(rules, "N", value, "H", double, {"NS": 60, "EW": 102},
                      {"NS": 7 if value == "capot" else 4, "EW": 1 if value == "capot" else 4},
                      NOBEL)
    r = score_hand(rules, "N", value, "H", double, points, tricks, NOBEL, renonce_team="NS")
    assert r["score"] == {"NS": 0, "EW": expected}
    assert r["renonce_penalty"] == penalty
    if penalty == "hand-lost":
        assert r["score"] == fell["score"]  # cheating does not pay


def test_renonce_in_points_faits_demandes_adds_the_contract_times_the_double() -> None:
    rules = Rules.from_preset("ffb-pfd")
    r = score_hand(rules, "N", 110, "H", 2, {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3},
                   NOBEL, renonce_team="NS")
    assert r["score"] == {"NS": 0, "EW": 320 + 220}


@pytest.mark.parametrize("penalty", ["hand-lost", "flat-160"])
def test_the_history_says_which_penalty(penalty: str) -> None:
    from web import gamebook

    events = [GameStarted(dealer="E", settings={"renonce_penalty": penalty}),
              ContractSet(taker="N", value=80, trump="H")]
    events += [CardPlayed(*p.split(":")) for p in TWO_RENONCES]
    state = replay(events)
    result = state.hands[0]["result"]
    steps = gamebook.steps(result, state.to_json()["rules"])
    assert {"step": "renonce", "count": 2, "penalty": penalty} in steps


# -- rule 12: two renonces, one by each team ----------------------------------------------

# Found by a random search of the engine: W (EW) does not follow diamonds in
# trick 1, proved in trick 5; S (NS) does not trump in trick 2, proved in trick 3.
TWO_RENONCES = ["N:TD", "W:QH", "S:7D", "E:8D", "W:7S", "S:7C", "E:JH", "N:QS", "E:KH",
                "N:AH", "W:9H", "S:7H", "W:TH", "S:8S", "E:AD", "N:8H", "W:9D", "S:QD",
                "E:8C", "N:KS", "S:9S", "E:TC", "N:AS", "W:JD", "N:JC", "W:9C", "S:TS",
                "E:QC", "E:AC", "N:KC", "W:KD", "S:JS"]


def test_the_renonce_committed_first_is_penalised_not_the_one_proved_first() -> None:
    events = [GameStarted(dealer="E"), ContractSet(taker="N", value=80, trump="H")]
    events += [CardPlayed(*p.split(":")) for p in TWO_RENONCES]
    result = replay(events).hands[0]["result"]
    proved = [(r["seat"], r["trick"], r["proof"]["trick"]) for r in result["renonces"]]
    assert proved == [("S", 2, 3), ("W", 1, 5)]  # S's proved first, W's committed first
    assert result["score"] == {"NS": 160, "EW": 0}  # W's team is penalised
    assert result["made"] is True


def test_penalised_renonce_in_the_same_trick_is_the_first_played() -> None:
    renonces = [{"seat": "E", "trick": 4, "rule": "follow"},
                {"seat": "S", "trick": 4, "rule": "trump"}]
    order = {(4, "S"): 1, (4, "E"): 2}
    assert penalised_renonce(renonces, order) == renonces[1]
    assert penalised_renonce([], order) is None
