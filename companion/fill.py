"""The cards the camera left unread, filled from the deal and the camera's reads.

For each hand of the open game with unread cards (``CardPlayed`` with no card, not
named since), the deal (``scorer.deal.complete``) gives each unread card's
candidates and the complete assignments that keep every seat's plays legal (each
card once in the deal). The camera's reads of each card (its likeliest cards over
every frame it was seen in, with their probabilities: ``TableService.camera_cards``)
weigh each assignment (the product of its cards' read probabilities); a card's
probability is the weight of the assignments giving it that card over all of them.

A card is **filled** when the deal determines it (``how="deal"``: every assignment
gives it the same card; the last unread card of a seat once the others are known,
mid-hand too), or when its probability clears the bar (``how="reads"``), calibrated
on frames the benchmark does not report and shipped with the model
(``vision/models/fill_bar.json``, :func:`load_bar`). Each card filled from its reads
narrows the others (only the assignments that agree are kept), until nothing
changes. The rest are **questions** for the organiser: one tap between the candidates,
likeliest first ("V♥ ou V♦ ?").

A filled card is not an event: nothing is stored. The service folds the game's
events with the filled cards put in place (``filled_state``: as corrections, in
memory) for the tricks and the scores the pages show; the renonces stay those the
cards seen or named prove (a fill that would change them is dropped), the turn stays
the camera's, and the fill is worked out again whenever the facts change (a card
settles, a hand ends, a person corrects or undoes: a person's correction names the
card, so it is no longer unread).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Final

from scorer.cards import CARD_CODES
from scorer.deal import Completion, Unknown, complete, determined, possible
from scorer.events import CardCorrected, CardPlayed, Event
from scorer.fold import GameState, replay

#: The bar's file, beside the reader's model (its probabilities are that model's).
BAR_FILE: Final = Path(__file__).resolve().parent.parent / "vision" / "models" / "fill_bar.json"
#: Folds the deal's search may spend on the hand in play (each card that settles),
#: and on a finished hand (once, at its end): the candidates stay sound when it stops.
LIVE_LIMIT: Final = 100
END_LIMIT: Final = 2000
#: The probability given to a candidate its reads never named (a card the reader
#: never guessed is not impossible, only unlikely).
UNSEEN_P: Final = 0.002
#: The questions' candidates, at most (likeliest first): the rest are in the picker.
ASKED: Final = 4
#: Assignments of distinct candidates weighed when the deal's search stopped early.
_FALLBACK_NODES: Final = 3000

Key = tuple[int, str]


@dataclass(frozen=True)
class Filled:
    """A card filled in: its hand, trick (from 1) and seat, the card, why
    (``deal`` or ``reads``), its probability and its candidates (likeliest first,
    with their probabilities)."""

    hand_no: int
    trick: int
    seat: str
    card: str
    how: str
    p: float
    candidates: tuple[tuple[str, float], ...]

    def to_json(self) -> dict[str, Any]:
        return {"hand_no": self.hand_no, "trick": self.trick, "seat": self.seat,
                "card": self.card, "how": self.how, "p": round(self.p, 4),
                "candidates": [{"card": c, "p": round(p, 4)} for c, p in self.candidates]}


@dataclass(frozen=True)
class Question:
    """An unread card the organiser names with one tap: its candidates, likeliest
    first, with their probabilities (at most ``ASKED``; ``more``: others remain)."""

    hand_no: int
    trick: int
    seat: str
    candidates: tuple[tuple[str, float], ...]
    more: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"hand_no": self.hand_no, "trick": self.trick, "seat": self.seat,
                "candidates": [{"card": c, "p": round(p, 4)} for c, p in self.candidates],
                "more": self.more}


@dataclass(frozen=True)
class Fill:
    """What the deal and the reads say of a game's unread cards."""

    filled: tuple[Filled, ...] = ()
    questions: tuple[Question, ...] = ()
    folds: int = 0
    dropped: tuple[Filled, ...] = field(default=())  # fills left out: they moved a renonce

    def to_json(self) -> dict[str, Any]:
        return {"filled": [f.to_json() for f in self.filled],
                "questions": [q.to_json() for q in self.questions]}

    def corrections(self) -> list[Event]:
        """The filled cards as corrections, to fold in memory (never stored)."""
        return [CardCorrected(seat=f.seat, trick=f.trick, new=f.card, hand=f.hand_no)
                for f in self.filled]

    def stream(self, events: Sequence[Event], state: GameState) -> list[Event]:
        """``events`` (folded as ``state``) with each filled card named in the unread
        card's own event: one fold, as a correction would give (never stored)."""
        out = list(events)
        for f in self.filled:
            plays = state._plays_by_hand.get(f.hand_no, [])[4 * (f.trick - 1):4 * f.trick]
            index = next((i for i in plays if getattr(out[i], "seat", None) == f.seat), None)
            if index is None or not isinstance(out[index], CardPlayed):
                return [*events, *self.corrections()]
            out[index] = CardPlayed(seat=f.seat, card=f.card)
        return out


@lru_cache(maxsize=4)
def _bar_from(path: str) -> float:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    bar = data.get("bar") if isinstance(data, dict) else None
    if not isinstance(bar, (int, float)) or not 0.5 < float(bar) <= 1.0:
        raise ValueError(f"{path}: 'bar' must be a probability above 0.5, not {bar!r}")
    return float(bar)


def load_bar(path: Path | None = None) -> float:
    """The probability a card's reads must give it to be filled without the deal
    determining it (``vision/models/fill_bar.json``'s ``bar``). A missing file
    fills from the deal alone (bar above 1)."""
    path = BAR_FILE if path is None else path
    if not path.exists():
        return 1.01
    return _bar_from(str(path))


def read_probabilities(reads: Sequence[Mapping[str, Any]] | None) -> dict[str, float]:
    """A card's reads (``[{"card", "p", "frames"}]``) as card -> probability."""
    out: dict[str, float] = {}
    for r in reads or ():
        card, p = r.get("card"), r.get("p")
        if isinstance(card, str) and isinstance(p, (int, float)):
            out[card] = max(out.get(card, 0.0), float(p))
    return out


def _weight(q: Mapping[str, float], card: str) -> float:
    return max(q.get(card, 0.0), UNSEEN_P)


def _unlikely(q: Mapping[str, float], card: str) -> float:
    return -_weight(q, card)


def _weighed(done: Completion, probs: Mapping[Key, Mapping[str, float]]
             ) -> list[tuple[dict[Key, str], float]]:
    """The assignments to weigh, each with its weight: the deal's own when its
    search finished, else those of distinct candidates (each card once)."""
    keys = [u.key for u in done.unknowns]
    if done.legal and not done.capped and done.assignments:
        out = []
        for a in done.assignments:
            w = 1.0
            for k in keys:
                w *= _weight(probs.get(k, {}), a[k])
            out.append((a, w))
        return out
    # The search stopped (or no legal deal): distinct candidates, likeliest first.
    choices = []
    for u in done.unknowns:
        q = probs.get(u.key, {})
        choices.append(sorted(u.candidates, key=partial(_unlikely, q)))
    found: list[tuple[dict[Key, str], float]] = []
    nodes = 0
    pick: dict[Key, str] = {}

    def walk(n: int, used: frozenset[str], w: float) -> None:
        nonlocal nodes
        if nodes >= _FALLBACK_NODES:
            return
        nodes += 1
        if n == len(keys):
            found.append((dict(pick), w))
            return
        for c in choices[n]:
            if c not in used:
                pick[keys[n]] = c
                walk(n + 1, used | {c}, w * _weight(probs.get(keys[n], {}), c))
        pick.pop(keys[n], None)

    walk(0, frozenset(), 1.0)
    # Cut short, the first cards would seem sure: each card is then weighed alone.
    return [] if nodes >= _FALLBACK_NODES else found


def fill_hand(done: Completion, hand_no: int, probs: Mapping[Key, Mapping[str, float]],
              bar: float) -> tuple[list[Filled], list[Question]]:
    """Fill what ``done`` (the deal's completion of hand ``hand_no``) and the reads
    ``probs`` ((trick, seat) -> card -> probability) name; the rest as questions."""
    if not done.unknowns:
        return [], []
    weighed = _weighed(done, probs)
    fixed: dict[Key, tuple[str, str]] = {}      # key -> (card, how)
    # Determined: by the seats' legal play, or (no legal deal) by the deck alone.
    for key, card in done.determined.items():
        fixed[key] = (card, "deal")
    order = [u.key for u in done.unknowns]
    marginals: dict[Key, list[tuple[str, float]]] = {}
    by_reads = False        # a card filled from its reads: what follows leans on it
    while True:
        kept = [(a, w) for a, w in weighed
                if all(a.get(k) == c for k, (c, _) in fixed.items())]
        total = sum(w for _, w in kept)
        changed = False
        for u in done.unknowns:
            k = u.key
            if total > 0 and kept:
                sums: dict[str, float] = {}
                for a, w in kept:
                    sums[a[k]] = sums.get(a[k], 0.0) + w
                ranked = sorted(((c, s / total) for c, s in sums.items()),
                                key=lambda cp: (-cp[1], cp[0]))
            else:
                q = probs.get(k, {})
                norm = sum(_weight(q, c) for c in u.candidates) or 1.0
                ranked = sorted(((c, _weight(q, c) / norm) for c in u.candidates),
                                key=lambda cp: (-cp[1], cp[0]))
            marginals[k] = ranked
            if k in fixed or not ranked:
                continue
            card, p = ranked[0]
            if len(ranked) == 1 and kept:
                # the others known: the deal names it
                fixed[k] = (card, "reads" if by_reads else "deal")
                changed = True
            elif p >= bar and probs.get(k, {}).get(card, 0.0) > 0 and (kept or not any(
                    marginals.get(v.key, [("", 0.0)])[0][0] == card
                    or fixed.get(v.key, ("",))[0] == card
                    for v in done.unknowns if v.key != k)):
                # (its reads name it, not the count of legal deals alone; weighed
                # alone, no other unread card likely to be this one)
                fixed[k] = (card, "reads")
                by_reads = changed = True
        if not changed:
            break
    filled, questions = [], []
    for k in order:
        trick, seat = k
        ranked = marginals.get(k, [])
        if k in fixed:
            card, how = fixed[k]
            p = 1.0 if how == "deal" else dict(ranked).get(card, 0.0)
            filled.append(Filled(hand_no, trick, seat, card, how, p, tuple(ranked)))
        else:
            questions.append(Question(hand_no, trick, seat, tuple(ranked[:ASKED]),
                                      len(ranked) > ASKED))
    return filled, questions


def has_unknown(state: GameState) -> bool:
    """Whether a hand of ``state`` holds an unread card (cheap: no hand is built)."""
    if state.phase == "play" and state.unknown:
        return True
    return any(hand_unknown(h) for h in state._hands)


def hand_unknown(hand: Any) -> bool:
    """Whether a finished hand (built or not) holds an unread card."""
    if isinstance(hand, dict):
        return any(c is None for t in hand["result"].get("tricks") or () for c in t["cards"])
    return any(c < 0 for t in getattr(hand, "tricks", ()) or () for c in t[2])


#: A read this likely that the deal rules out says the deal's assumption (every seat
#: played legally) may not hold in that hand: a renonce may hide behind the card.
CONTRADICTS: Final = 0.5


def _known_cards(state: GameState, hand_no: int) -> set[str]:
    """The cards of hand ``hand_no`` seen or named (not unread)."""
    sig = _signature(state, hand_no)
    if sig[0] == "play":
        return {CARD_CODES[c] for _, c in sig[4] if c >= 0}
    if sig[0] == "done":
        return {c for _, cards in sig[2] for c in cards if c is not None}
    return set()


def doubted(done: Completion, probs: Mapping[Key, Mapping[str, float]],
            known: set[str]) -> Completion:
    """``done`` as it is, or, when a card's reads name likely (``CONTRADICTS``) a card
    its candidates rule out (and no other place holds), the deal without its
    legality assumption: each unread card may be any card not seen or named in the
    hand, and only the deck (each card once) determines one."""
    for u in done.unknowns:
        q = probs.get(u.key, {})
        top = max(q.items(), key=lambda cp: cp[1], default=None)
        if (top is not None and top[1] >= CONTRADICTS and top[0] not in u.candidates
                and top[0] not in known):
            free = tuple(c for c in CARD_CODES if c not in known)
            loose = possible(tuple(Unknown(v.seat, v.trick, free) for v in done.unknowns))
            return Completion(loose, determined(loose), (), False, False, (), done.folds)
    return done


def _hands_with_unknown(state: GameState) -> list[int]:
    """The hands of ``state`` with an unread card (finished ones, then the hand in play)."""
    out = [h["hand_no"] for h in state.hands
           if any(c is None for t in h["result"].get("tricks") or () for c in t["cards"])]
    if state.phase == "play" and state.unknown:
        out.append(state.hand_no)
    return out


def _signature(state: GameState, hand_no: int) -> tuple[Any, ...]:
    """What the deal of ``hand_no`` depends on: its contract and its plays."""
    if hand_no == state.hand_no and state.phase == "play":
        plays = [(s, c) for _, seats, cards, _, _ in state.tricks
                 for s, c in zip(seats, cards, strict=True)]
        plays += list(zip(state.trick_seats, state.trick, strict=True))
        return ("play", json.dumps(state.contract, sort_keys=True), tuple(state.belote),
                state.turned, tuple(plays))
    for h in state.hands:
        if h["hand_no"] == hand_no:
            tricks = h["result"].get("tricks") or ()
            return ("done", json.dumps(h["result"].get("contract"), sort_keys=True),
                    tuple((tuple(t["seats"]), tuple(t["cards"])) for t in tricks))
    return ("none",)


class Filler:
    """Works out the fill of a game after each fact, keeping each hand's last answer
    while its plays and reads are unchanged (a finished hand is searched once)."""

    def __init__(self, bar: float | None = None, live_limit: int = LIVE_LIMIT,
                 end_limit: int = END_LIMIT) -> None:
        self.bar = load_bar() if bar is None else bar
        self.live_limit = live_limit
        self.end_limit = end_limit
        self._cache: dict[int, tuple[Any, list[Filled], list[Question], int]] = {}

    def hands(self, state: GameState) -> list[int]:
        """The hands of ``state`` with an unread card."""
        return _hands_with_unknown(state)

    def fill(self, state: GameState,
             reads: Mapping[int, Mapping[Key, Mapping[str, float]]]) -> Fill:
        """The fill of ``state``'s unread cards; ``reads``: hand -> (trick, seat) ->
        card -> probability (:func:`reads_by_hand`)."""
        filled: list[Filled] = []
        questions: list[Question] = []
        folds = 0
        hands = _hands_with_unknown(state)
        for hand_no in hands:
            probs = reads.get(hand_no, {})
            sig = (_signature(state, hand_no),
                   tuple(sorted((k, tuple(sorted(v.items()))) for k, v in probs.items())))
            hit = self._cache.get(hand_no)
            if hit is not None and hit[0] == sig:
                f, q = hit[1], hit[2]
            else:
                live = hand_no == state.hand_no and state.phase == "play"
                done = complete(state, hand_no, self.live_limit if live else self.end_limit)
                done = doubted(done, probs, _known_cards(state, hand_no))
                f, q = fill_hand(done, hand_no, probs, self.bar)
                folds += done.folds
                self._cache[hand_no] = (sig, f, q, done.folds)
            filled += f
            questions += q
        for gone in set(self._cache) - set(hands):
            del self._cache[gone]
        return Fill(tuple(filled), tuple(questions), folds)


def reads_by_hand(cards: Iterable[Mapping[str, Any]]
                  ) -> dict[Key, dict[str, float]]:
    """One hand's camera cards (``TableService.camera_cards``) as the reads of its
    unread cards: (trick, seat) -> card -> probability."""
    out: dict[Key, dict[str, float]] = {}
    for c in cards:
        if c.get("card") is None and c.get("trick") is not None:
            out[(int(c["trick"]), str(c["seat"]))] = read_probabilities(c.get("reads"))
    return out


def _renonce_set(state: GameState) -> set[tuple[Any, ...]]:
    out = {(h["hand_no"], r["seat"], r["trick"], r["rule"])
           for h in state.hands for r in h["result"].get("renonces") or ()}
    if state.phase != "over":
        out |= {(state.hand_no, r["seat"], r["trick"], r["rule"]) for r in state.renonces}
    return out


def filled_state(events: Sequence[Event], state: GameState, fill: Fill
                 ) -> tuple[GameState | None, Fill]:
    """The game folded with the filled cards in place (None when nothing is
    filled), and the fill kept: the filled cards never change the renonces (those
    the cards seen or named prove); in a hand where they would, the cards filled
    from their reads are left out, then the deal's too (asked instead)."""
    if not fill.filled:
        return None, fill
    base = _renonce_set(state)
    kept = list(fill.filled)
    folded: GameState | None = None
    for step in range(3):
        if not kept:
            folded = None
            break
        folded = replay(Fill(tuple(kept)).stream(events, state))
        moved = {r[0] for r in _renonce_set(folded) ^ base}   # hands whose renonces move
        if not moved:
            break
        # In those hands the cards filled from their reads go first, then the deal's.
        kept = [f for f in kept if f.hand_no not in moved or (step == 0 and f.how == "deal")]
    else:
        folded, kept = None, []
    dropped = tuple(f for f in fill.filled if f not in kept)
    asked = fill.questions + tuple(
        Question(f.hand_no, f.trick, f.seat, f.candidates[:ASKED], len(f.candidates) > ASKED)
        for f in dropped)
    return folded, Fill(tuple(kept), asked, fill.folds, dropped)


def game_fill(stored: Sequence[Any], evidence: Mapping[int, Mapping[str, Any]],
              bar: float | None = None) -> tuple[Fill, GameState | None]:
    """The fill of a stored game (``Store.events`` and ``Store.evidence``), worked
    out again from its events and the camera's reads: for the history of a game
    that is no longer open. Returns the fill and the game folded with it (None
    when nothing is filled)."""
    events = [s.event for s in stored]
    state = replay(events)
    if not has_unknown(state):
        return Fill(), None
    filler = Filler(bar)
    reads: dict[int, dict[Key, dict[str, float]]] = {}
    for hand in filler.hands(state):
        cards = []
        for k, index in enumerate(state._plays_by_hand.get(hand, [])):
            s = stored[index] if 0 <= index < len(stored) else None
            if s is not None and s.source == "camera":
                cards.append({"card": s.event.card, "seat": s.event.seat, "trick": k // 4 + 1,
                              "reads": (evidence.get(s.seq) or {}).get("reads")})
        reads[hand] = reads_by_hand(cards)
    fill = filler.fill(state, reads)
    folded, fill = filled_state(events, state, fill)
    return fill, folded


#: The keys of the state's JSON that the filled fold gives (the finished tricks and the
#: scores); the turn, the phase, the trick in play, the renonces and the unread cards
#: stay the camera's (a filled card of the trick in play is in ``filled``).
FILLED_KEYS: Final = ("scores", "tricks", "tricks_won", "card_points", "hands")


__all__ = ["ASKED", "BAR_FILE", "END_LIMIT", "FILLED_KEYS", "LIVE_LIMIT", "Fill", "Filled",
           "Filler", "Question", "doubted", "fill_hand", "filled_state", "game_fill", "has_unknown",
           "load_bar", "read_probabilities", "reads_by_hand"]
