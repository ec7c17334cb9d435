"""Renonce proof from the cards played (hands unknown): each rule of FFB 5.2
broken once, reported at the first play that proves it with the proving card;
what a renonce does to the score (the penalty settings).
"""

from __future__ import annotations

import pytest

from scorer.events import CardPlayed, ContractSet, GameStarted, TallyEntered
from scorer.game import GameState, replay
from scorer.record import record_to_events, score_record
from scorer.rules import Rules
from scorer.scoring import score_hand

CONTRACT_N = {"taker": "N", "value": 80, "trump": "H"}


def first_flag(record):
    """(trick number, play number from 0, renonce) at the first play that flags one."""
    events = record_to_events(record)
    state = GameState()
    plays = 0
    for e in events:
        trick_no = state.trick_no
        state = state.apply(e)
        if isinstance(e, CardPlayed):
            if state.renonces or (state.hands and state.hands[-1]["result"]["renonces"]):
                found = state.renonces or state.hands[-1]["result"]["renonces"]
                return trick_no, plays, found[0]
            plays += 1
    return None


def test_5_2_2_1_failing_to_trump_is_proven_when_the_trump_appears(play_out, deal_a):
    # N leads AS; W has no spade but holds 7H 8H and discards 9C instead of cutting.
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    trick, play_no, renonce = first_flag(rec)
    # Proven in trick 2, when W follows N's jack of trumps with 7H
    assert (trick, play_no) == (2, 5)
    assert renonce == {"seat": "W", "trick": 1, "rule": "trump",
                       "proof": {"trick": 2, "card": "7H"}}


def test_5_2_1_failing_to_follow_is_proven_by_a_later_card_of_that_suit(play_out, deal_a):
    # N leads AS; E holds six spades but plays 7D.
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "E"): "7D", (2, "N"): "TS"})
    trick, _, renonce = first_flag(rec)
    assert trick == 2
    assert renonce["seat"] == "E" and renonce["trick"] == 1 and renonce["rule"] == "follow"
    assert renonce["proof"]["trick"] == 2 and renonce["proof"]["card"][1] == "S"


def test_5_2_1_not_going_higher_on_a_trump_lead(play_out):
    hands = {"N": "9H 7S 8S 9S 7D 8D 9D TD", "E": "AH JH TS JS QS KS AS JD",
             "S": "7H 8H QD KD AD 7C 8C 9C", "W": "TH KH QH TC JC QC KC AC"}
    # dealer N: W leads TH; S (7H/8H) follows; E must beat TH: AH or JH.
    rec = play_out(hands, dealer="N", contract={"taker": "W", "value": 80, "trump": "H"},
                   force={(1, "W"): "TH", (1, "S"): "7H", (1, "E"): "TS"})
    # E played no heart at all on a heart lead while holding AH JH: not following.
    trick, _, renonce = first_flag(rec)
    assert renonce["seat"] == "E" and renonce["rule"] == "follow"
    rec = play_out(hands, dealer="N", contract={"taker": "W", "value": 80, "trump": "H"},
                   force={(1, "W"): "KH", (1, "S"): "7H", (1, "E"): "JH", (1, "N"): "9H"})
    assert first_flag(rec) is None  # N could not beat JH: any trump is fine


def test_5_2_2_2_failing_to_overtrump_an_opponent(play_out):
    hands = {"N": "JH 7S 8S 9S TS JS QS KS", "E": "9H AH 7D 8D 9D TD JD QD",
             "S": "7H 8H KD AD AS 7C 8C 9C", "W": "TH KH QH TC JC QC KC AC"}
    contract = {"taker": "W", "value": 80, "trump": "H"}
    # Dealer N: W leads AC, S follows, E (partner master) discards, N cuts: all legal.
    rec = play_out(hands, dealer="N", contract=contract,
                   force={(1, "W"): "AC", (1, "S"): "7C", (1, "E"): "7D", (1, "N"): "JH"})
    assert first_flag(rec) is None
    # E cuts with 9H (allowed: partner master); N, void in clubs, holds JH but discards.
    rec = play_out(hands, dealer="N", contract=contract,
                   force={(1, "W"): "AC", (1, "S"): "7C", (1, "E"): "9H", (1, "N"): "7S"})
    trick, _, renonce = first_flag(rec)
    assert renonce["seat"] == "N" and renonce["trick"] == 1 and renonce["rule"] == "overtrump"
    assert renonce["proof"] == {"trick": trick, "card": "JH"}


def test_house_rule_undertrump_obligation_is_checked(play_out):
    hands = {"N": "7H 7S 8S 9S TS JS QS KS", "E": "9H AH 7D 8D 9D TD JD QD",
             "S": "8H JH KD AD AS 7C 8C 9C", "W": "TH KH QH TC JC QC KC AC"}
    force = {(1, "W"): "AC", (1, "S"): "7C", (1, "E"): "9H", (1, "N"): "7S"}
    rec = play_out(hands, dealer="N", contract={"taker": "W", "value": 80, "trump": "H"},
                   force=force)
    assert first_flag(rec) is None  # N cannot beat 9H: free discard (FFB)
    rec["rules"] = {"preset": "ffb", "must_undertrump": True}
    trick, _, renonce = first_flag(rec)
    assert renonce["seat"] == "N" and renonce["rule"] == "undertrump"
    assert renonce["proof"]["card"] == "7H"


def test_the_end_of_hand_check_is_complete_every_renonce_is_in_the_result(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C", (1, "E"): "7D"})
    r = score_record(rec)
    assert sorted((x["seat"], x["trick"], x["rule"]) for x in r["renonces"]) == [
        ("E", 1, "follow"), ("W", 1, "trump")]


@pytest.mark.parametrize("penalty,preset,expected", [
    ("hand-lost", "ffb", {"NS": 160, "EW": 0}),
    ("hand-lost", "ffb-pfd", {"NS": 160 + 80, "EW": 0}),
    ("flat-162", "ffb", {"NS": 162, "EW": 0}),
    ("contract", "ffb", {"NS": 80, "EW": 0}),
    ("cancel", "ffb", {"NS": 0, "EW": 0}),
])
def test_renonce_penalty_settings(play_out, deal_a, penalty, preset, expected):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C"})
    r = score_record(rec, preset, {"renonce_penalty": penalty})
    assert r["score"] == expected
    assert r["made"] is (None if penalty == "cancel" else True)


def test_penalty_gives_the_innocent_team_its_own_belote(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C"}, belote=("N",))
    assert score_record(rec)["score"] == {"NS": 160 + 20, "EW": 0}


def test_unknown_card_play_goes_on_and_a_correction_rederives_the_renonce(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N,
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    events = record_to_events(rec)
    # W's 9C (the renonce) read as unknown: no fact, no flag, the trick winner unknown
    first_w = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed) and e.seat == "W")
    events[first_w] = CardPlayed("W", None)
    state = replay(events[: first_w + 3])
    assert state.unknown == [{"seat": "W", "trick": 1}]
    assert state.tricks[0][3] is None and state.to_play is None  # whoever leads next
    state = replay(events)
    assert state.hands[0]["result"]["renonces"] == []
    # The camera's misread corrected: the renonce is found, proven at trick 2
    from scorer.events import CardCorrected
    state = state.apply(CardCorrected(seat="W", trick=1, new="9C", hand=1))
    assert state.hands[0]["result"]["renonces"] == [
        {"seat": "W", "trick": 1, "rule": "trump", "proof": {"trick": 2, "card": "7H"}}]


def test_after_an_unknown_card_anyone_may_lead_and_the_correction_checks_the_turn():
    from scorer.events import CardCorrected, ContractSet, GameStarted
    from scorer.game import can_play
    events = [GameStarted(dealer="N"), ContractSet(taker="W", value=80, trump="H"),
              CardPlayed("W", "7S"), CardPlayed("S", None), CardPlayed("E", "9S"),
              CardPlayed("N", "8S")]
    state = replay(events)
    assert state.to_play is None
    assert can_play(state, CardPlayed("N", "7D")) and can_play(state, CardPlayed("E", "7D"))
    state = state.apply(CardPlayed("E", "7D"))  # E leads trick 2
    assert state.leader == "E" and state.to_play == "N"
    # S's card was the ace: S won trick 1 and leads; E's card waits for E's turn
    # (it is kept, not a renonce: the correction may be the mistake)
    wrong = state.apply(CardCorrected(seat="S", trick=1, new="AS"))
    assert wrong.tricks[0][3] == "S" and wrong.to_play == "S" and wrong.renonces == []
    assert wrong.trick == [] and [(e.seat, e.card) for e, _, _ in wrong.pending] == [("E", "7D")]
    assert wrong.apply(CardPlayed("S", "7C")).trick_seats == ["S", "E"]
    # S's card was a club (S void in spades): E's 9 won, E led in turn
    right = state.apply(CardCorrected(seat="S", trick=1, new="7C"))
    assert right.tricks[0][3] == "E" and right.renonces == [] and right.unknown == []


# The takers' own renonce: N (taker, K+Q of trump) discards on a diamond lead while
# holding trumps, partner S not having played yet.
DEAL_C = {"N": "KH QH 7H AC KC 7S 8S 9S", "E": "7D 8D 9D TD JD QD KD AD",
          "S": "JH 9H AH TH TS JS QS KS", "W": "8H AS 7C 8C 9C TC JC QC"}
TAKERS_RENONCE = {(1, "E"): "7D", (1, "N"): "AC"}


@pytest.mark.parametrize("preset,defence", [("ffb", 160), ("ffb-pfd", 160 + 80)])
def test_renonce_by_the_takers_gives_the_defence_the_penalty_and_their_belote(
        play_out, preset, defence):
    rec = play_out(DEAL_C, dealer="S", contract=CONTRACT_N, rules=preset,
                   force=TAKERS_RENONCE, belote=("N",))
    r = score_record(rec)
    assert [(x["seat"], x["trick"], x["rule"]) for x in r["renonces"]] == [("N", 1, "trump")]
    assert r["renonces"][0]["proof"]["card"][1] == "H"  # proven by one of N's trumps
    assert r["made"] is False
    # As on a fall (FFB 7, 10.2 "Belote preneurs ou défense"): the takers'
    # belote goes to the defence; the offender keeps nothing.
    assert r["belote"] == "NS"
    assert r["score"] == {"NS": 0, "EW": defence + 20}


def test_classic_renonce_gives_the_whole_deal_162_and_the_belote_stays(play_out):
    contract = {"taker": "N", "value": None, "trump": "H"}
    rec = play_out(DEAL_C, dealer="S", contract=contract, rules="classic",
                   force=TAKERS_RENONCE)
    plays = [CardPlayed(*p.split(":")) for p in rec["plays"]]
    for settings in ({}, {"renonce_penalty": "contract"}):  # no contract value: 162 too
        events = [GameStarted(rules="classic", settings=settings, dealer="S"),
                  ContractSet(**contract), *plays]
        result = replay(events).hands[0]["result"]
        assert [(x["seat"], x["rule"]) for x in result["renonces"]] == [("N", "trump")]
        assert result["made"] is False
        assert result["score"] == {"NS": 20, "EW": 162}  # classic counts the belote itself


def test_contract_penalty_gives_the_contract_in_play_and_500_for_a_capot():
    club = Rules.from_preset("club")
    points, tricks = {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3}
    nobel = {"NS": 0, "EW": 0}
    r = score_hand(club, "N", 130, "H", 1, points, tricks, nobel, renonce_team="EW")
    assert (r["made"], r["score"]) == (True, {"NS": 130, "EW": 0})
    r = score_hand(club, "N", "capot", "H", 1, points, tricks, nobel, renonce_team="EW")
    assert r["score"] == {"NS": 500, "EW": 0}
    r = score_hand(club, "N", "capot", "H", 1, points, tricks, nobel, renonce_team="NS")
    assert (r["made"], r["score"]) == (False, {"NS": 0, "EW": 500})


def test_a_cancelled_hand_keeps_a_classic_litige_for_the_next_winners(play_out):
    settings = {"renonce_penalty": "cancel"}
    contract = {"taker": "N", "value": None, "trump": "H"}
    events = [GameStarted(rules="classic", settings=settings, dealer="W"),
              ContractSet(taker="E", value=None, trump="H"),
              TallyEntered(points={"NS": 81, "EW": 81}, tricks={"NS": 4, "EW": 4})]
    state = replay(events)
    assert state.scores == {"NS": 81, "EW": 0} and state.held_over == 81
    # Hand 2 (dealer S): N's renonce cancels it; nobody won it, the 81 still wait.
    rec = play_out(DEAL_C, dealer="S", contract=contract, rules="classic", settings=settings,
                   force=TAKERS_RENONCE)
    events += [ContractSet(**contract)] + [CardPlayed(*p.split(":")) for p in rec["plays"]]
    state = replay(events)
    assert state.hands[1]["result"]["cancelled"] is True
    assert state.scores == {"NS": 81, "EW": 0} and state.held_over == 81
    # Hand 3: EW win it and take the held-over points.
    state = state.apply(ContractSet(taker="E", value=None, trump="S")).apply(
        TallyEntered(points={"NS": 60, "EW": 102}, tricks={"NS": 3, "EW": 5}))
    assert state.scores == {"NS": 81 + 60, "EW": 102 + 81} and state.held_over == 0
