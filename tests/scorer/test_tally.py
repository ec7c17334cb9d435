"""The count form's tally (issue 72, item 4): totals that cannot be are refused
with a code and its values (FFB 9: 162 with the dix de der, 252 on a capot;
FFB 11.3: 258 and 348 at Tout Atout), never changed."""

from __future__ import annotations

import pytest

from scorer.events import ContractSet, GameStarted, TallyEntered
from scorer.game import IllegalEventError, replay, verify_event
from scorer.record import InvalidRecordError, score_record


def _state(trump: str = "H", rules: str = "ffb-sata"):
    return replay([GameStarted(rules=rules, dealer="N"),
                   ContractSet(taker="S", value=80, trump=trump)])


@pytest.mark.parametrize("trump,points,tricks", [
    ("H", {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3}),
    ("H", {"NS": 0, "EW": 162}, {"NS": 1, "EW": 7}),      # a trick of no points
    ("H", {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}),
    ("NT", {"NS": 81, "EW": 81}, {"NS": 4, "EW": 4}),
    ("NT", {"NS": 0, "EW": 252}, {"NS": 0, "EW": 8}),
    ("AT", {"NS": 170, "EW": 88}, {"NS": 6, "EW": 2}),
    ("AT", {"NS": 348, "EW": 0}, {"NS": 8, "EW": 0}),
])
def test_totals_that_can_be_are_scored_as_typed(trump, points, tricks):
    state = _state(trump)
    event = TallyEntered(points=dict(points), tricks=dict(tricks))
    verify_event(state, event)
    after = state.apply(event)
    (hand,) = after.hands
    assert hand["record"]["tally"]["NS"] == points["NS"]
    assert hand["record"]["tally"]["EW"] == points["EW"]
    assert hand["result"]["points"] == points


@pytest.mark.parametrize("trump,points,tricks,code,values", [
    # the organiser's NS 100 / EO 50: refused, not made 112
    ("H", {"NS": 100, "EW": 50}, {"NS": 5, "EW": 3}, "tally.points_sum",
     {"total": 150, "NS": 100, "EW": 50, "expected": 162, "cards": 152}),
    ("H", {"NS": 152, "EW": 0}, {"NS": 7, "EW": 1}, "tally.points_sum",
     {"total": 152, "NS": 152, "EW": 0, "expected": 162, "cards": 152}),
    ("AT", {"NS": 100, "EW": 62}, {"NS": 5, "EW": 3}, "tally.points_sum",
     {"total": 162, "NS": 100, "EW": 62, "expected": 258, "cards": 248}),
    ("H", {"NS": 162, "EW": 0}, {"NS": 8, "EW": 0}, "tally.capot_points",
     {"team": "NS", "expected": 252, "points": 162, "other": 0}),
    ("H", {"NS": 10, "EW": 152}, {"NS": 0, "EW": 8}, "tally.capot_points",
     {"team": "EW", "expected": 252, "points": 152, "other": 10}),
    ("AT", {"NS": 252, "EW": 0}, {"NS": 8, "EW": 0}, "tally.capot_points",
     {"team": "NS", "expected": 348, "points": 252, "other": 0}),
])
def test_totals_that_cannot_be_are_refused_with_a_code(trump, points, tricks, code, values):
    state = _state(trump)
    event = TallyEntered(points=dict(points), tricks=dict(tricks))
    with pytest.raises(IllegalEventError) as err:
        verify_event(state, event)
    assert err.value.code == code and err.value.values == values
    rec = {"rules": "ffb-sata", "dealer": "N",
           "contract": {"taker": "S", "value": 80, "trump": trump},
           "tally": {**points, "tricks": dict(tricks)}}
    with pytest.raises(InvalidRecordError) as err2:
        score_record(rec)
    assert err2.value.code == code and err2.value.places == ("tally",)


def test_the_english_message_names_the_figures():
    state = _state("H")
    with pytest.raises(IllegalEventError, match=r"^the two teams' points make 150 \(100 \+ 50\), "
                       r"not 162: 152 card points and 10 for the last trick$"):
        verify_event(state, TallyEntered(points={"NS": 100, "EW": 50},
                                         tricks={"NS": 5, "EW": 3}))
