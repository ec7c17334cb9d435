"""The unread cards filled from the deal and the camera's reads (companion.fill),
through the real service and its SQLite store: each filled card is the card
played, shown as filled, used in the hand's score, never proving a renonce,
given way to a person's correction and worked out again after an undo."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from companion.bus import Bus
from companion.fill import Filler, fill_hand, game_fill, load_bar
from companion.service import TableService
from companion.store import Store
from scorer.deal import complete
from scorer.events import CardCorrected, CardPlayed, EntryUndone, Event
from scorer.game import replay
from scorer.simulate import simulate_game


def _truth(events: list[Event]) -> dict[tuple[int, int, str], str]:
    return {(h["hand_no"], n, seat): card
            for h in replay(events).to_json()["hands"]
            for n, t in enumerate(h["result"]["tricks"], start=1)
            for seat, card in zip(t["seats"], t["cards"], strict=True)}


def _renonces(state: dict[str, Any]) -> list[Any]:
    return sorted((h["hand_no"], r["seat"], r["trick"], r["rule"])
                  for h in state["hands"] for r in h["result"]["renonces"])


def _play(tmp_path: Path, seed: int, share: float, bar: float, sure: float = 0.8,
          renonce: bool = False) -> tuple[TableService, list[Event], int]:
    """A simulated game whose cards the camera leaves unread at ``share``, each with
    reads: the card played likeliest ``sure`` of the time, else another card."""
    rng = random.Random(seed)
    events = simulate_game(seed, hands=2, inject_renonce=renonce)
    service = TableService(Store(tmp_path / f"fill-{seed}.db"), Bus())
    service._filler = Filler(bar=bar)
    service.start_game(events[0], source="simulator")
    hidden = 0
    for e in events[1:]:
        if isinstance(e, CardPlayed) and e.card is not None and rng.random() < share:
            other = rng.choice([c for c in ("JH", "JD", "9S", "AC", "TD", "7C") if c != e.card])
            p = round(rng.uniform(0.5, 0.99), 3)
            reads = ([(e.card, p, 6), (other, round(1 - p, 3), 2)] if rng.random() < sure
                     else [(other, p, 6), (e.card, round(1 - p, 3), 2)])
            service.submit(CardPlayed(e.seat, None), source="camera", reads=reads, frames=8)
            hidden += 1
        else:
            service.submit(e, source="camera" if isinstance(e, CardPlayed) else "simulator")
    return service, events, hidden


def test_deal_filled_cards_are_the_cards_played_and_make_the_score(tmp_path: Path) -> None:
    filled = asked = 0
    for seed in range(6):
        # The reads never clear a bar above 1: the deal alone fills.
        service, events, hidden = _play(tmp_path, seed, 0.08, bar=1.01)
        truth = _truth(events)
        state = service.state_json()
        for f in state["filled"]:
            assert f["how"] == "deal" and f["p"] == 1.0
            assert truth[(f["hand_no"], f["trick"], f["seat"])] == f["card"]
            assert f["card"] in [c["card"] for c in f["candidates"]]
        for q in state["questions"]:
            cards = [c["card"] for c in q["candidates"]]
            assert len(cards) >= 2
            probs = [c["p"] for c in q["candidates"]]
            assert probs == sorted(probs, reverse=True)  # likeliest first
            if not q["more"]:
                assert truth[(q["hand_no"], q["trick"], q["seat"])] in cards
        # Nothing stored for a filled card; the renonces stay those the cards prove.
        assert len(service.events()) == len(events)
        assert _renonces(state) == _renonces(service.state.to_json())
        if not state["questions"] and state["filled"]:
            # Every unread card filled: the scores are the game's.
            assert state["scores"] == replay(events).scores
        filled += len(state["filled"])
        asked += len(state["questions"])
        service.store.close()
    assert filled > 0


def test_the_organiser_answers_then_every_hand_is_right(tmp_path: Path) -> None:
    service, events, hidden = _play(tmp_path, 11, 0.15, bar=0.95)
    truth = _truth(events)
    assert hidden >= 4
    taps = 0
    while service.state_json()["questions"]:
        q = service.state_json()["questions"][0]
        service.submit(CardCorrected(q["seat"], q["trick"], truth[(q["hand_no"], q["trick"],
                                                                    q["seat"])], q["hand_no"]))
        taps += 1
    state = service.state_json()
    wrong = [f for f in state["filled"] if truth[(f["hand_no"], f["trick"], f["seat"])]
             != f["card"]]
    for f in wrong:  # a card filled from its reads may be wrong: the organiser changes it
        service.submit(CardCorrected(f["seat"], f["trick"], truth[(f["hand_no"], f["trick"],
                                                                    f["seat"])], f["hand_no"]))
    assert taps + len(wrong) < hidden
    state = service.state_json()
    assert state["scores"] == replay(events).scores
    assert _renonces(state) == _renonces(replay(events).to_json())


def test_a_persons_correction_wins_and_an_undo_gives_the_fill_back(tmp_path: Path) -> None:
    for seed in range(20):
        service, events, _ = _play(tmp_path, 100 + seed, 0.08, bar=1.01)
        state = service.state_json()
        truth = _truth(events)
        unread = [(u["hand_no"], u["trick"], u["seat"]) for u in state["filled"]
                  + state["questions"]]
        # A filled card set by the organiser to the card of another unread card of its
        # hand (every other card of the hand is known: no card twice).
        pair = next(((f, k) for f in state["filled"] for k in unread
                     if k[0] == f["hand_no"] and k != (f["hand_no"], f["trick"], f["seat"])),
                    None)
        if pair is None:
            service.store.close()
            continue
        choice, elsewhere = pair
        other = truth[elsewhere]
        before = service.state_json()
        service.submit(CardCorrected(choice["seat"], choice["trick"], other, choice["hand_no"]),
                       author="organiser")
        after = service.state_json()
        key = (choice["hand_no"], choice["trick"], choice["seat"])
        assert key not in {(f["hand_no"], f["trick"], f["seat"]) for f in after["filled"]}
        hand = next(h for h in after["hands"] if h["hand_no"] == choice["hand_no"])
        trick = hand["result"]["tricks"][choice["trick"] - 1]
        assert trick["cards"][trick["seats"].index(choice["seat"])] == other
        service.submit(EntryUndone(len(service.events()) - 1), author="organiser")
        again = service.state_json()
        for k in ("filled", "questions", "scores", "hands"):
            assert again[k] == before[k], k
        service.store.close()
        return
    pytest.fail("no game with a filled card")


def test_a_card_filled_from_its_reads_mid_hand_and_never_a_renonce(tmp_path: Path) -> None:
    seen_mid_hand = False
    for seed in range(8):
        rng = random.Random(seed)
        events = simulate_game(40 + seed, hands=1, inject_renonce=True)
        service = TableService(Store(tmp_path / f"mid-{seed}.db"), Bus())
        service._filler = Filler(bar=0.9)
        service.start_game(events[0], source="simulator")
        truth = _truth(events)
        for e in events[1:]:
            if isinstance(e, CardPlayed) and e.card is not None and rng.random() < 0.1:
                service.submit(CardPlayed(e.seat, None), source="camera",
                               reads=[(e.card, 0.97, 7)], frames=7)
            else:
                service.submit(e, source="camera" if isinstance(e, CardPlayed) else "simulator")
            state = service.state_json()
            real = service.state.to_json()
            assert state["renonces"] == real["renonces"]
            assert _renonces(state) == _renonces(real)
            if state["phase"] == "play" and any(f["hand_no"] == state["hand_no"]
                                                for f in state["filled"]):
                seen_mid_hand = True
        for f in service.state_json()["filled"]:
            assert truth[(f["hand_no"], f["trick"], f["seat"])] == f["card"]
        # The history works the same fill out again from the store.
        fill, _ = game_fill(service.store.events(service.game_id),
                            service.store.evidence(service.game_id), bar=0.9)
        assert fill.to_json()["filled"] == service.state_json()["filled"]
        service.store.close()
    assert seen_mid_hand


def test_joint_assignment_each_card_once() -> None:
    """Two unread cards whose reads both lean to the same card: the deal gives each
    card once, and the likelier reading wins the card."""
    events = simulate_game(5, hands=1)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    a, b = plays[-1], plays[-2]          # the last two cards of the hand
    ca, cb = events[a].card, events[b].card
    assert isinstance(ca, str) and isinstance(cb, str)
    hidden = list(events)
    hidden[a] = CardPlayed(events[a].seat, None)
    hidden[b] = CardPlayed(events[b].seat, None)
    state = replay(hidden[:a + 1])
    done = complete(state, hand=1)
    t_a, t_b = (plays.index(a) // 4 + 1, events[a].seat), (plays.index(b) // 4 + 1, events[b].seat)
    probs = {t_a: {ca: 0.9, cb: 0.05}, t_b: {ca: 0.6, cb: 0.3}}
    filled, questions = fill_hand(done, 1, probs, bar=0.95)
    got = {(f.trick, f.seat): f.card for f in filled}
    if len(done.assignments) == 1:
        assert got == {t_a: ca, t_b: cb}
    else:
        assert len({*got.values()}) == len(got)


def test_the_shipped_bar_is_a_probability() -> None:
    assert 0.9 <= load_bar() <= 1.0


def test_the_deal_names_a_card_mid_hand_as_soon_as_it_can(tmp_path: Path) -> None:
    """An unread card the deal determines before the hand ends (the seat's other
    cards and the tricks leave it one card) is filled then, not at the hand's end."""
    for seed in range(40):
        events = simulate_game(seed, hands=1)
        plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
        if len(plays) < 32:
            continue
        first = events[plays[0]]
        assert isinstance(first, CardPlayed)
        service = TableService(Store(tmp_path / f"mid-deal-{seed}.db"), Bus())
        service._filler = Filler(bar=1.01)          # the deal alone
        service.start_game(events[0], source="simulator")   # type: ignore[arg-type]
        named_at = None
        for n, e in enumerate(events[1:plays[-1]], start=1):
            if n == plays[0]:
                service.submit(CardPlayed(first.seat, None), source="camera", reads=[])
            else:
                service.submit(e, source="camera" if isinstance(e, CardPlayed) else "simulator")
            filled = service.state_json()["filled"]
            if filled and named_at is None:
                named_at = plays.index(n) if n in plays else None
                assert filled[0]["card"] == first.card and filled[0]["how"] == "deal"
                assert service.state_json()["phase"] == "play"
        service.store.close()
        if named_at is not None and named_at < 31:
            return
    pytest.fail("no simulated hand whose unread first card the deal names mid-hand")
