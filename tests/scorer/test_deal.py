"""The deal completes what the camera left unread (issue 72, scorer part):
candidates, determined cards, assignments, and the renonce rule, on whole
simulated deals with cards hidden."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer import deal
from scorer.deal import Unknown, assignments, complete, determined, possible, unknowns
from scorer.events import CardPlayed, Event
from scorer.game import GameState, replay
from scorer.record import score_record
from scorer.simulate import simulate_game

PRESETS = ("ffb", "ffb-sata", "classic", "club-variant")
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def played_hand(seed: int, rules: str = "ffb", inject_renonce: bool = False
                ) -> tuple[list[Event], list[int]]:
    """A simulated game of one played hand: its events and the places of its 32 cards."""
    events = simulate_game(seed, hands=1, rules=rules, inject_renonce=inject_renonce)
    places = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    assert len(places) == 32
    return events, places


def hide(events: list[Event], places: list[int], which: list[int]
         ) -> tuple[list[Event], dict[tuple[int, str], str]]:
    """``events`` with the cards at ``which`` (numbers of plays, from 0) unread,
    and the hidden cards by (trick, seat)."""
    out = list(events)
    truth = {}
    for n in which:
        e = events[places[n]]
        assert isinstance(e, CardPlayed) and e.card is not None
        truth[(n // 4 + 1, e.seat)] = e.card
        out[places[n]] = CardPlayed(e.seat, None)
    return out, truth


def hand_of(state: GameState) -> int:
    return next(h["hand_no"] for h in state.hands if "plays" in h["record"])


def check_sound(found: tuple[Unknown, ...], named: dict[tuple[int, str], str],
                truth: dict[tuple[int, str], str]) -> None:
    assert {u.key for u in found} == set(truth)
    for u in found:
        assert truth[u.key] in u.candidates
        assert list(u.candidates) == sorted(u.candidates, key=deal.CARD_CODES.index)
    assert all(truth[k] == card for k, card in named.items())


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_hidden_cards_of_finished_hands(rules, k):
    """On whole deals with k cards hidden, each candidate list holds the hidden
    card and each determined card is the hidden one; one hidden card is always
    named (the deck less the 31 others)."""
    named = total = 0
    for seed in range(12):
        events, places = played_hand(seed, rules)
        hidden, truth = hide(events, places, random.Random(seed).sample(range(32), k))
        state = replay(hidden)
        done = complete(state, hand_of(state))
        check_sound(done.unknowns, done.determined, truth)
        assert done.legal
        named += len(done.determined)
        total += k
        if k == 1:
            assert done.determined == truth
    assert named > 0 and total == 12 * k


@FEW
@given(seed=st.integers(0, 10_000), k=st.integers(1, 4), cut=st.integers(1, 32),
       rules=st.sampled_from(PRESETS))
def test_hidden_cards_mid_hand(seed, k, cut, rules):
    """Mid-hand (the hand in play, cut after ``cut`` cards) as at the end."""
    events, places = played_hand(seed, rules)
    k = min(k, cut)
    events = events[:places[cut - 1] + 1]
    hidden, truth = hide(events, places, random.Random(seed).sample(range(cut), k))
    state = replay(hidden)
    hand = None if cut < 32 else hand_of(state)
    done = complete(state, hand, limit=300)
    check_sound(done.unknowns, done.determined, truth)
    assert unknowns(state, hand, limit=300) == done.unknowns


@FEW
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5), rules=st.sampled_from(PRESETS))
def test_assignments_are_legal_deals_and_the_candidates_are_exact(seed, k, rules):
    """Every assignment found is a deal the fold plays in the recorded order with
    no renonce the read cards do not prove; one of them is the truth; and each
    candidate is used by some assignment (the search was not capped)."""
    events, places = played_hand(seed, rules)
    which = random.Random(seed).sample(range(32), k)
    hidden, truth = hide(events, places, which)
    state = replay(hidden)
    hand = hand_of(state)
    done = complete(state, hand)
    assert not done.capped
    assert truth in done.assignments
    assert list(assignments(state, hand=hand)) == list(done.assignments)
    base = {(r["seat"], r["trick"]) for r in score_record(state.hands[-1]["record"])["renonces"]}
    plays = [f"{events[i].seat}:{events[i].card}" for i in places]  # type: ignore[attr-defined]
    for filled in done.assignments[:20]:
        rec = dict(state.hands[-1]["record"])
        rec["plays"] = [p if not p.endswith("?") else
                        f"{p[0]}:{filled[(n // 4 + 1, p[0])]}" for n, p in enumerate(rec["plays"])]
        again = replay(hidden[:places[0]] + [CardPlayed(p[0], p[2:]) for p in rec["plays"]])
        h = again.hands[-1]
        assert len(h["record"]["plays"]) == 32
        # the fold kept the recorded order: each trick won by the next trick's leader
        assert [p.split(":")[0] for p in h["record"]["plays"]] == [p[0] for p in plays]
        assert {(r["seat"], r["trick"]) for r in h["result"]["renonces"]} <= base
    for u in done.unknowns:
        for card in u.candidates:
            assert any(a[u.key] == card for a in done.assignments)


def test_the_trick_winner_leads_the_next_trick():
    """E's card in trick 1 is unread; S cut K♥ with the 7♠ and leads trick 2, so E
    did not overtrump; E follows hearts in trick 2, so it followed in trick 1."""
    from scorer.events import ContractSet, GameStarted
    s = replay([GameStarted(dealer="N"), ContractSet("W", 80, "S"),
                CardPlayed("W", "KH"), CardPlayed("S", "7S"), CardPlayed("E", None),
                CardPlayed("N", "AH"), CardPlayed("S", "7H"), CardPlayed("E", "8H")])
    (u,) = unknowns(s)
    assert (u.seat, u.trick, u.candidates) == ("E", 1, ("9H", "TH", "JH", "QH"))
    # E leads trick 2 instead: E won trick 1, over S's 7♠, with a higher trump.
    s2 = replay([GameStarted(dealer="N"), ContractSet("W", 80, "S"),
                 CardPlayed("W", "KH"), CardPlayed("S", "7S"), CardPlayed("E", None),
                 CardPlayed("N", "AH"), CardPlayed("E", "8C")])
    (u2,) = unknowns(s2)
    assert u2.candidates == ("8S", "9S", "TS", "JS", "QS", "KS", "AS")


def test_matching_names_what_every_assignment_gives():
    a = Unknown("N", 1, ("JH", "QH"))
    b = Unknown("E", 1, ("QH",))
    c = Unknown("S", 2, ("7C", "8C"))
    d = Unknown("W", 2, ("7C", "8C"))
    assert determined([a, b, c, d]) == {(1, "N"): "JH", (1, "E"): "QH"}
    assert [u.candidates for u in possible([a, b, c, d])] == [("JH",), ("QH",), ("7C", "8C"),
                                                              ("7C", "8C")]
    # a chain: N takes JH only if E takes QH only if S takes KH
    chain = [Unknown("N", 1, ("JH", "QH")), Unknown("E", 1, ("QH", "KH")),
             Unknown("S", 1, ("KH",))]
    assert determined(chain) == {(1, "N"): "JH", (1, "E"): "QH", (1, "S"): "KH"}
    # a free card keeps both open
    assert determined([Unknown("N", 1, ("JH", "QH")), Unknown("E", 1, ("QH", "KH"))]) == {}
    # no complete assignment at all: nothing is named
    assert determined([Unknown("N", 1, ("JH",)), Unknown("E", 1, ("JH",))]) == {}


def test_a_renonce_is_never_proven_by_a_filled_card():
    """A hand with a real renonce (one illegal play): hiding the cards that prove
    it leaves no renonce in the result, though the deal names the last one (the
    only card left when it is alone); no legal completion exists, so no score."""
    cases = 0
    for seed in range(80):
        events, places = played_hand(seed, inject_renonce=True)
        state = replay(events)
        renonces = state.hands[-1]["result"]["renonces"]
        if len(renonces) != 1 or renonces[0]["rule"] == "turn":
            continue
        plays = state.hands[-1]["record"]["plays"]
        which: list[int] = []
        result: dict[str, Any] = {"renonces": renonces}
        while result["renonces"]:
            proof = result["renonces"][0]["proof"]
            which.append(plays.index(f"{renonces[0]['seat']}:{proof['card']}"))
            hidden, truth = hide(events, places, which)
            result = score_record(replay(hidden).hands[-1]["record"])
        cases += 1
        assert result["score"] is None
        assert result["score_reason"]["code"] == "deal.no_legal_completion"
        if len(which) == 1:
            assert result["inferred"] == [{"seat": renonces[0]["seat"],
                                           "trick": which[0] // 4 + 1,
                                           "card": plays[which[0]][2:]}]
        again = replay(hidden)
        assert not complete(again, hand_of(again)).legal
        # Hide another card instead: the read cards still prove the renonce, and
        # the score (the renonce's) is the full deal's.
        other = next(m for m in range(32) if plays[m][0] != renonces[0]["seat"]
                     and m // 4 + 1 != renonces[0]["trick"])
        hidden2, _ = hide(events, places, [other])
        result2 = score_record(replay(hidden2).hands[-1]["record"])
        assert [(r["seat"], r["trick"], r["rule"]) for r in result2["renonces"]] == [
            (r["seat"], r["trick"], r["rule"]) for r in renonces]
        assert result2["score"] == state.hands[-1]["result"]["score"]
        assert result2["inferred"][0]["card"] == plays[other][2:]
    assert cases >= 5


def test_the_legality_assumption_narrows_a_seat_that_showed_a_void():
    """A seat that did not follow a suit is given no card of it later (unless a
    read card proved that a renonce)."""
    seen = 0
    for seed in range(40):
        events, places = played_hand(seed)
        state = replay(events)
        tricks = state.hands[-1]["result"]["tricks"]
        for t, trick in enumerate(tricks[:-1]):
            led = trick["cards"][0][1]
            for seat, card in zip(trick["seats"][1:], trick["cards"][1:], strict=True):
                if card[1] == led:
                    continue
                later = [4 * u + trick_seat for u in range(t + 1, 8)
                         for trick_seat, s in enumerate(tricks[u]["seats"]) if s == seat]
                hidden, truth = hide(events, places, later[:1])
                st2 = replay(hidden)
                (u,) = unknowns(st2, hand_of(st2))
                seen += 1
                assert not any(c[1] == led for c in u.candidates if c != truth[u.key])
                assert truth[u.key] in u.candidates
                break
    assert seen > 10


def _outcome_cases(k: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    for seed in range(50):
        events, places = played_hand(seed)
        full = score_record(replay(events).hands[-1]["record"])
        hidden, _ = hide(events, places, random.Random(seed).sample(range(32), k))
        record = replay(hidden).hands[-1]["record"]
        out.append((score_record(record), full))
    return out


def test_the_score_is_given_when_it_does_not_depend_on_the_undetermined_cards():
    """With 4 cards hidden: when the result gives a score it is the full deal's
    (and so are its points when given); when it does not, the score depends on
    the undetermined cards, and the true score is among those it lists."""
    given = depends = 0
    for result, full in _outcome_cases(4):
        if result["score"] is not None:
            given += 1
            assert result["score"] == full["score"]
            assert result["made"] == full["made"]
            if result["points"] is not None:
                assert result["points"] == full["points"]
            if not result["undetermined"]:
                assert result["tricks"] == full["tricks"]
        else:
            depends += 1
            assert result["undetermined"]
            reason = result["score_reason"]
            assert reason["code"] == "deal.score_depends"
            assert full["score"] in reason["values"]["scores"]
            assert len(reason["values"]["scores"]) >= 2
        for item in result["inferred"]:
            trick = full["tricks"][item["trick"] - 1]
            assert trick["cards"][trick["seats"].index(item["seat"])] == item["card"]
    assert given >= 10 and depends >= 1


def test_a_capped_search_says_so(monkeypatch):
    from scorer import record as record_module
    monkeypatch.setattr(record_module, "RECORD_SEARCH_LIMIT", 3)
    events, places = played_hand(5)
    hidden, _ = hide(events, places, list(range(0, 32, 4)))
    result = score_record(replay(hidden).hands[-1]["record"])
    assert result["score"] is None
    reason = result["score_reason"]
    assert reason["code"] == "deal.capped" and reason["values"]["limit"] == 3
    assert result["undetermined"] and result["points"] is None and result["made"] is None
    # the same record with the search's own limit: not capped
    monkeypatch.undo()
    assert score_record(replay(hidden).hands[-1]["record"]).get(
        "score_reason", {}).get("code") != "deal.capped"


def test_no_unknown_card_no_change():
    events, _ = played_hand(3)
    state = replay(events)
    done = complete(state, hand_of(state))
    assert done.unknowns == () and done.assignments == ({},) and done.legal
    assert done.outcomes[0]["score"] == state.hands[-1]["result"]["score"]
    result = score_record(state.hands[-1]["record"])
    assert result["inferred"] == [] and result["undetermined"] == []
    assert "score_reason" not in result
