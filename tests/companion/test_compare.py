"""The demo's verdict compares the stored game with the simulator's as the
store replays it: a card named later counts, a card left unknown or misread
does not."""

from __future__ import annotations

import dataclasses

from companion.pipeline import compare
from scorer.events import CardCorrected, CardPlayed
from vision.lab.virtual_table import VirtualTable

TRUTH = list(VirtualTable(seed=3, hands=2).events)
PLAYS = [i for i, e in enumerate(TRUTH) if isinstance(e, CardPlayed)]


def _unknown(k):
    """The events with the k-th play stored as an unknown card."""
    events = list(TRUTH)
    events[PLAYS[k]] = dataclasses.replace(events[PLAYS[k]], card=None)
    return events


def test_the_simulators_own_events_match():
    assert compare(TRUTH, TRUTH) == []


def test_an_unknown_card_named_later_matches():
    k = 5  # trick 2 of hand 1
    events = _unknown(k)
    e = TRUTH[PLAYS[k]]
    events.insert(PLAYS[k] + 2, CardCorrected(seat=e.seat, trick=2, new=e.card))
    assert compare(TRUTH, events) == []


def test_an_unknown_card_never_named_is_a_difference():
    e = TRUTH[PLAYS[5]]
    problems = compare(TRUTH, _unknown(5))
    assert problems[0] == f"card 6: simulator {e.seat}:{e.card}, stored {e.seat}:??"


def test_a_card_named_wrongly_is_a_difference():
    k = 5
    events = _unknown(k)
    e = TRUTH[PLAYS[k]]
    later = TRUTH[PLAYS[k + 8]].card  # a card its seat plays later in the hand
    events.insert(PLAYS[k] + 2, CardCorrected(seat=e.seat, trick=2, new=later))
    assert any(p.startswith(f"card 6: simulator {e.seat}:{e.card}, stored") for p in
               compare(TRUTH[:PLAYS[k] + 2], events[:PLAYS[k] + 3]))
