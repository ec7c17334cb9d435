"""Property tests over seeded simulated games: the deck's points always add up,
legal games are never flagged, and one injected illegal play is always flagged
at the earliest trick the cards prove it, with the right seat and trick."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scorer.events import CardPlayed
from scorer.game import GameState, legal_plays, replay
from scorer.simulate import simulate_game

PRESETS = st.sampled_from(["ffb", "ffb-sata", "ffb-pfd", "classic", "club", "club-variant",
                           "classic-82"])
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def played_hands(state: GameState):
    return [h for h in state.hands if h["result"]["contract"] is not None
            and "plays" in h["record"]]


@FAST
@given(seed=st.integers(0, 2**32 - 1), preset=PRESETS)
def test_card_points_total_162_or_258_at_tout_atout(seed, preset):
    state = replay(simulate_game(seed, hands=3, rules=preset))
    for h in played_hands(state):
        r = h["result"]
        total = sum(r["points"].values())
        capot = 8 in r["tricks_won"].values()
        if r["contract"]["trump"] == "AT":
            assert total == (248 + 100 if capot else 258)
        else:
            assert total == (252 if capot else 162)
        assert sum(t["points"] for t in r["tricks"]) == total - (100 if capot else 10)


@FAST
@given(seed=st.integers(0, 2**32 - 1), preset=PRESETS)
def test_legal_games_are_never_flagged(seed, preset):
    state = replay(simulate_game(seed, hands=3, rules=preset))
    for h in state.hands:
        assert h["result"]["renonces"] == []
    assert state.renonces == []


def _first_illegal(record, state_before_play):
    """Walk the record's plays with every hand known (from the cards each seat
    put down); return (play index, seat, trick) of the first illegal play."""
    plays = [p.split(":") for p in record["plays"]]
    hands = {s: [c for seat, c in plays if seat == s] for s in "NESW"}
    for i, (seat, card) in enumerate(plays):
        state = state_before_play[i]
        if card not in legal_plays(hands[seat], state):
            return i, seat, state.trick_no, card
        hands[seat].remove(card)
    return None


@FAST
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(["ffb", "ffb-sata", "classic"]))
def test_one_injected_illegal_play_is_flagged_at_the_earliest_provable_trick(seed, preset):
    events = simulate_game(seed, hands=2, rules=preset, inject_renonce=True)
    state = GameState()
    before: list[GameState] = []
    flagged_at = None
    for e in events:
        if isinstance(e, CardPlayed):
            before.append(state)
        hand_no = state.hand_no
        state = state.apply(e)
        if flagged_at is None and isinstance(e, CardPlayed):
            found = state.renonces if state.hand_no == hand_no else \
                state.hands[-1]["result"]["renonces"]
            if found:
                flagged_at = (len(before) - 1, found[0])
    hand = next((h for h in played_hands(state) if h["result"]["renonces"]), None)
    assume(hand is not None)  # some deals never give the chance to break a rule
    start = sum(len(h["record"]["plays"]) for h in played_hands(state)
                if h["hand_no"] < hand["hand_no"])
    illegal = _first_illegal(hand["record"], before[start:])
    assert illegal is not None
    index, seat, trick, card = illegal
    renonces = hand["result"]["renonces"]
    assert len(renonces) == 1
    assert renonces[0]["seat"] == seat and renonces[0]["trick"] == trick
    # Earliest proof: the first later card of that seat which, held with the
    # card played, makes the play illegal with the hand known.
    plays = [p.split(":") for p in hand["record"]["plays"]]
    proof = next(j for j in range(index + 1, 32) if plays[j][0] == seat
                 and card not in legal_plays([card, plays[j][1]], before[start + index]))
    assert renonces[0]["proof"] == {"trick": proof // 4 + 1, "card": plays[proof][1]}
    # ... and reported at that very play, not later
    assert flagged_at is not None and flagged_at[0] == start + proof


@FAST
@given(mode=st.integers(0, 5), undertrump=st.booleans(), partner_free=st.booleans(),
       cards=st.lists(st.integers(0, 31), min_size=2, max_size=4, unique=True))
def test_the_folds_precomputed_table_is_the_legality_rule(mode, undertrump, partner_free,
                                                          cards):
    from scorer import tricks as T
    *trick, card = cards
    table = T.forbidden_table(mode, undertrump, partner_free)
    win = T.winning_position(trick, mode)
    entry = table[T.table_index(T.SUIT_OF[trick[0]], trick[win], win == len(trick) - 2, card)]
    parts = T.forbidden(card, trick, mode, undertrump, partner_free)
    assert (entry[1] if entry else []) == parts
