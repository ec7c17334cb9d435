"""The deal: what the cards already known, and the seats' own plays, say of
the cards nobody has read.

Each played card that is still unknown (``CardPlayed`` with no card, not
corrected since) is an :class:`Unknown`: its seat, its trick (from 1) and its
candidates, card codes in deck order (``scorer.cards.CARD_CODES``). A
candidate is a card of the 32-card deck that

* is not known elsewhere in the hand (seen by the camera or named by a person,
  in any trick, before or after); at classic belote the turned card, not
  seen played yet, is in the taker's hand, so no other seat's candidate;
* the seat could still hold at that point: it is in no mask of what the seat
  showed it did not hold earlier (a suit it did not follow, a trump it did not
  play when it had to, a higher trump it did not put on: ``scorer.tricks``'
  ``forbidden`` facts, recorded by the fold), unless a seen card already
  proved that fact a renonce (the seat then broke the rules; its fact says
  nothing);
* keeps every seat's play legal, taking each seat as having played by the
  rules: filled in, it makes no renonce appear that the known cards do not
  prove already (a card the seat plays later that it should have played
  here, a fact of a later play in the trick that a known card breaks), and
  the trick it lies in is won by the seat that the record shows leading the
  next trick (the fold counts a lead by another seat as a renonce of turn).

These rules are the fold's own (``scorer.fold``: its facts, its renonce proof
and its turn check, ``scorer.tricks.forbidden_at``): each candidate is tried by
folding the hand again with it filled in. A filled card is never used to prove
a renonce: the hand's renonces stay those of the cards seen or named
(:func:`complete`'s search rejects an assignment that would add one); when no
assignment keeps every seat legal (a renonce hides behind an unknown card),
the candidates fall back to the deck less the known cards, and nothing is
filled from the legality assumption.

The API (``Key`` is ``(trick, seat)``):

* :func:`unknowns(state, hand=None, limit=SEARCH_LIMIT) <unknowns>` ->
  ``tuple[Unknown, ...]``, in the order played. ``hand`` is a hand number of
  ``state`` (None: the hand in play). The candidates are exact (each is the
  card of the unknown in some complete consistent assignment) when the search
  over the whole deal finishes within ``limit`` folds; otherwise each
  candidate is possible trick by trick and by the matching of cards to
  unknowns (each card once).
* :func:`determined(unknowns) <determined>` -> ``dict[Key, str]``: the cards
  every complete assignment of distinct candidates gives (bipartite matching:
  a candidate ``c`` of ``u`` is possible iff a matching of all the unknowns to
  distinct cards with ``u = c`` exists).
* :func:`possible(unknowns) <possible>`: the same unknowns, each narrowed to
  its possible candidates.
* :func:`assignments(state, limit, hand=None) <assignments>` -> iterator of
  ``dict[Key, str]``: the complete consistent assignments, at most ``limit``
  folds tried.
* :func:`complete(state, hand=None, limit=SEARCH_LIMIT) <complete>` ->
  :class:`Completion`: all of the above at once, with, for a finished hand,
  the distinct outcomes (score, points...) over the consistent assignments
  (``scorer.record`` gives the score when there is one).

Spades trump; W leads K♥, S cuts with 7♠, E's card is unread, N plays A♥; S
leads the next trick and E follows it with 8♥. E held a heart in trick 1, so it
followed hearts there; and S won, so E did not overtrump:

>>> from scorer.events import GameStarted, ContractSet, CardPlayed
>>> from scorer.fold import replay
>>> s = replay([GameStarted(dealer="N"), ContractSet("W", 80, "S"),
...             CardPlayed("W", "KH"), CardPlayed("S", "7S"), CardPlayed("E", None),
...             CardPlayed("N", "AH"), CardPlayed("S", "7H"), CardPlayed("E", "8H")])
>>> unknowns(s)
(Unknown(seat='E', trick=1, candidates=('9H', 'TH', 'JH', 'QH')),)
>>> determined([Unknown("E", 1, ("JH", "QH")), Unknown("W", 2, ("QH",))])
{(1, 'E'): 'JH', (2, 'W'): 'QH'}
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scorer.cards import CARD_CODES, SEATS, team_of
from scorer.events import CardPlayed, GameStarted
from scorer.fold import GameState
from scorer.handview import FinishedHand

Key = tuple[int, str]
"""An unknown card's place: ``(trick from 1, seat)``."""

#: Folds the whole-deal search may try before it stops (``Completion.capped``).
SEARCH_LIMIT: Final = 2000
#: Combinations of one trick's unknown cards tried together (the trick's winner
#: must lead the next trick); above it each card is tried alone.
TRICK_LIMIT: Final = 1200
_ALL: Final = (1 << 32) - 1
# The keys of a finished hand's result that its score is made of.
OUTCOME_KEYS: Final = ("score", "points", "tricks_won", "made", "belote", "belotes", "parts",
                       "held_over", "cancelled", "renonce_penalty", "dix_de_der")
_INDEX: Final = {code: i for i, code in enumerate(CARD_CODES)}
_PLAYS: Final = {(s, c): CardPlayed(seat=s, card=None if c < 0 else CARD_CODES[c])
                 for s in SEATS for c in range(-1, 32)}


@dataclass(frozen=True)
class Unknown:
    """A played card not known: its seat, its trick (from 1), its candidates
    (card codes in deck order)."""

    seat: str
    trick: int
    candidates: tuple[str, ...]

    @property
    def key(self) -> Key:
        return (self.trick, self.seat)


@dataclass(frozen=True)
class Completion:
    """What the deal says of a hand's unknown cards.

    ``unknowns``: each with its candidates (exact when the search finished);
    ``determined``: ``(trick, seat) -> card`` the deal fixes; ``assignments``:
    the complete consistent assignments found (all of them unless ``capped``);
    ``capped``: the search stopped at its limit of folds; ``legal``: some
    assignment keeps every seat's plays legal (False: a renonce hides behind
    an unknown card, and the candidates are the deck less the known cards);
    ``outcomes``: for a finished hand, the distinct results (``OUTCOME_KEYS``)
    over the assignments found, in the order found; ``folds``: folds tried.
    """

    unknowns: tuple[Unknown, ...]
    determined: dict[Key, str]
    assignments: tuple[dict[Key, str], ...]
    capped: bool
    legal: bool
    outcomes: tuple[dict[str, Any], ...] = field(default=())
    folds: int = 0


@dataclass(frozen=True)
class _Hand:
    """One hand's play as the fold needs it again."""

    preset: str
    settings: Mapping[str, Any]
    dealer: str
    contract: Mapping[str, Any]
    belote: tuple[str, ...]
    turned: str | None
    held_over: int
    plays: tuple[tuple[str, int], ...]     # (seat, card number or -1), in the order played


def _hand_of(state: GameState, hand: int | None) -> _Hand | None:
    """The plays of ``hand`` (None: the hand in play); None when it has no play."""
    if hand is None or hand == state.hand_no:
        if state.contract is None or state.phase != "play":
            return None
        plays = [(seat, card) for _, seats, cards, _, _ in state.tricks
                 for seat, card in zip(seats, cards, strict=True)]
        plays += list(zip(state.trick_seats, state.trick, strict=True))
        return _Hand(state.preset, dict(state.settings), state.dealer, dict(state.contract),
                     tuple(state.belote), state.turned, state.held_over, tuple(plays))
    for h in state.hands:
        if h["hand_no"] != hand:
            continue
        record, result = h["record"], h["result"]
        if result.get("contract") is None or "plays" not in record:
            return None
        rules = record.get("rules", "ffb")
        preset = rules if isinstance(rules, str) else str(rules.get("preset", "ffb"))
        settings = {} if isinstance(rules, str) else {
            k: v for k, v in rules.items() if k != "preset"}
        plays = [(seat, -1 if card is None else _INDEX[card])
                 for t in result["tricks"] for seat, card in zip(t["seats"], t["cards"],
                                                                 strict=True)]
        # A litige held over from earlier hands is not in the record: 0 here.
        return _Hand(preset, settings, h["dealer"], dict(result["contract"]),
                     tuple(record.get("belote", [])), record.get("turned"), 0, tuple(plays))
    raise ValueError(f"no hand number {hand}")


def _outcome(state: GameState) -> dict[str, Any]:
    """The score-making keys of the hand ``state`` has just finished."""
    finished = state._hands[-1]
    built = finished.build() if isinstance(finished, FinishedHand) else finished
    result = built["result"]
    out = {k: result[k] for k in OUTCOME_KEYS if k in result}
    tricks = result.get("tricks") or []
    last = tricks[-1]["winner"] if len(tricks) == 8 else None
    out["dix_de_der"] = team_of(last) if last else None
    return out


class _Deal:
    """One hand and its unknown cards, folded again as often as asked."""

    def __init__(self, hand: _Hand) -> None:
        self.hand = hand
        self.folds = 0
        self.stopped = False            # the last search ran out of folds
        self.complete = len(hand.plays) == 32
        self.unknown = [i for i, (_, card) in enumerate(hand.plays) if card < 0]
        self.keys = [(i // 4 + 1, hand.plays[i][0]) for i in self.unknown]
        known = 0
        for _, card in hand.plays:
            if card >= 0:
                known |= 1 << card
        self.known = known
        self.facts: list[tuple[str, int, int]] = []     # (seat, trick, mask) of known plays
        base = self._fold({}, self.facts)
        self.base_renonces = self._renonces(base)
        self.base_misled = self._misled(base)

    # -- folding ---------------------------------------------------------------
    def _start(self) -> GameState:
        h = self.hand
        s = GameState()
        s._fold(GameStarted(rules=h.preset, settings=dict(h.settings), dealer=h.dealer))
        s.held_over = h.held_over
        c = h.contract
        s._set_contract(c["taker"], c["value"], c["trump"], c["double"])
        s.turned = h.turned
        s.belote.extend(h.belote)
        return s

    def _fold(self, fill: Mapping[int, int],
              facts: list[tuple[str, int, int]] | None = None) -> GameState:
        """The hand folded again with ``fill`` (play index -> card) in place of
        unknown cards; ``facts`` collects what each known play showed its seat
        did not hold (the fold's facts)."""
        self.folds += 1
        s = self._start()
        for i, (seat, card) in enumerate(self.hand.plays):
            if card < 0:
                card = fill.get(i, -1)
            s._play(_PLAYS[seat, card], i)
            if facts is not None and card >= 0 and i < 31:
                mine = s._facts[seat]
                if mine and mine[-1][0] == i // 4 + 1 and mine[-1][1] == card:
                    mask = 0
                    for part, _ in mine[-1][2]:
                        mask |= part
                    facts.append((seat, i // 4 + 1, mask))
        return s

    def _renonces(self, s: GameState) -> set[tuple[str, int]]:
        """(seat, trick) of each renonce the folded hand holds."""
        renonces = s.renonces
        if self.complete:
            finished = s._hands[-1]
            renonces = (finished.renonces if isinstance(finished, FinishedHand)
                        else finished["result"]["renonces"])
        return {(str(r["seat"]), int(r["trick"])) for r in renonces}

    def _tricks(self, s: GameState) -> list[tuple[str | None, int | None]]:
        """(winner, points) of each finished trick of the folded hand."""
        if self.complete:
            finished = s._hands[-1]
            if isinstance(finished, FinishedHand):
                return [(t[3], t[4]) for t in finished.tricks]
            return [(t["winner"], t["points"]) for t in finished["result"]["tricks"]]
        return [(t[3], t[4]) for t in s.tricks]

    def _misled(self, s: GameState) -> set[int]:
        """Tricks (from 0) won by another seat than the one that leads the next."""
        plays = self.hand.plays
        return {j for j, (winner, _) in enumerate(self._tricks(s))
                if winner is not None and 4 * j + 4 < len(plays)
                and plays[4 * j + 4][0] != winner}

    def _legal(self, fill: Mapping[int, int]) -> GameState | None:
        """The folded hand when ``fill`` keeps every seat's plays legal (no renonce
        the known cards do not prove, each trick won by the seat that leads the
        next unless the known cards already say otherwise), else None."""
        s = self._fold(fill)
        if self._renonces(s) <= self.base_renonces and self._misled(s) <= self.base_misled:
            return s
        return None

    # -- candidates --------------------------------------------------------------
    def relaxed(self, i: int) -> int:
        """The deck less the known cards (and the turned card for a seat that did
        not take it): no legality assumed."""
        h = self.hand
        mask = _ALL & ~self.known
        if h.turned is not None and h.plays[i][0] != h.contract["taker"]:
            mask &= ~(1 << _INDEX[h.turned])
        return mask

    def local(self, i: int) -> int:
        """:meth:`relaxed` less what the seat showed it did not hold before."""
        seat, trick = self.hand.plays[i][0], i // 4 + 1
        mask = self.relaxed(i)
        for s, t, forbidden in self.facts:
            if s == seat and t < trick and (s, t) not in self.base_renonces:
                mask &= ~forbidden
        return mask

    def by_trick(self, masks: dict[int, int]) -> dict[int, int]:
        """Each unknown's candidates kept when its trick can be completed legally:
        the trick's unknown cards tried together (distinct), or one by one when
        they are too many."""
        out = {i: 0 for i in masks}
        tricks: dict[int, list[int]] = {}
        for i in masks:
            tricks.setdefault(i // 4, []).append(i)
        for group in tricks.values():
            count = 1
            for i in group:
                count *= bin(masks[i]).count("1")
            if count <= TRICK_LIMIT:
                for combo in _combos([_cards(masks[i]) for i in group]):
                    fill = dict(zip(group, combo, strict=True))
                    if self._legal(fill) is not None:
                        for i, card in fill.items():
                            out[i] |= 1 << card
            else:
                for i in group:
                    for card in _cards(masks[i]):
                        if self._legal({i: card}) is not None:
                            out[i] |= 1 << card
        return out

    def search(self, masks: dict[int, int], limit: int
               ) -> Iterator[tuple[dict[int, int], GameState]]:
        """Every complete assignment of distinct candidates that keeps the plays
        legal, with its folded hand; stops once ``limit`` folds are spent
        (``self.folds``). Checked at each trick's last unknown card, so that a
        wrong trick is cut before the tricks after it."""
        order = sorted(masks)
        checks = {i for n, i in enumerate(order)
                  if n + 1 < len(order) and order[n + 1] // 4 != i // 4}
        start = self.folds
        self.stopped = False
        fill: dict[int, int] = {}

        def walk(n: int, used: int) -> Iterator[tuple[dict[int, int], GameState]]:
            if n == len(order):
                s = self._legal(fill)
                if s is not None:
                    yield dict(fill), s
                return
            i = order[n]
            for card in _cards(masks[i] & ~used):
                if self.folds - start >= limit:
                    self.stopped = True
                    return
                fill[i] = card
                if i not in checks or self._legal(fill) is not None:
                    yield from walk(n + 1, used | 1 << card)
                del fill[i]

        yield from walk(0, 0)


def _cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def _combos(choices: Sequence[list[int]]) -> Iterator[tuple[int, ...]]:
    """Each pick of one card per list, no card twice."""
    if not choices:
        yield ()
        return
    for rest in _combos(choices[1:]):
        for card in choices[0]:
            if card not in rest:
                yield (card, *rest)


def _unknown_list(deal: _Deal, masks: Mapping[int, int]) -> tuple[Unknown, ...]:
    return tuple(Unknown(seat, trick, tuple(CARD_CODES[c] for c in _cards(masks[i])))
                 for i, (trick, seat) in zip(deal.unknown, deal.keys, strict=True))


def complete(state: GameState, hand: int | None = None, limit: int = SEARCH_LIMIT
             ) -> Completion:
    """What the deal says of the unknown cards of ``hand`` of ``state`` (None:
    the hand in play): see :class:`Completion`. At most ``limit`` folds are spent
    searching the whole deal (the tricks' own checks come before, bounded by
    ``TRICK_LIMIT`` each)."""
    h = _hand_of(state, hand)
    if h is None:
        return Completion((), {}, (), False, True)
    deal = _Deal(h)
    if not deal.unknown:
        found: list[dict[Key, str]] = []
        outcomes: list[dict[str, Any]] = []
        s = deal._legal({})
        if s is not None and deal.complete:
            outcomes.append(_outcome(s))
        return Completion((), {}, ({},), False, True, tuple(outcomes), deal.folds)
    local = {i: deal.local(i) for i in deal.unknown}
    masks = deal.by_trick(local)
    narrowed = _narrow(masks)
    legal = narrowed is not None
    found = []
    outcomes = []
    seen: set[str] = set()
    capped = False
    if narrowed is not None:
        support = dict.fromkeys(narrowed, 0)
        for fill, s in deal.search(narrowed, limit):
            found.append({deal.keys[deal.unknown.index(i)]: CARD_CODES[c]
                          for i, c in fill.items()})
            for i, c in fill.items():
                support[i] |= 1 << c
            if deal.complete:
                out = _outcome(s)
                text = json.dumps(out, sort_keys=True)
                if text not in seen:
                    seen.add(text)
                    outcomes.append(out)
        capped = deal.stopped
        if not capped:
            if found:
                narrowed = support
            else:
                legal = False
    if not legal:
        masks = {i: deal.relaxed(i) for i in deal.unknown}
        narrowed = _narrow(masks) or masks
        found, outcomes = [], []
    assert narrowed is not None
    result = _unknown_list(deal, narrowed)
    return Completion(result, determined(result), tuple(found), capped, legal,
                      tuple(outcomes), deal.folds)


def unknowns(state: GameState, hand: int | None = None, limit: int = SEARCH_LIMIT
             ) -> tuple[Unknown, ...]:
    """Every played card of ``hand`` (None: the hand in play) that is unknown,
    with its candidates, in the order played (:func:`complete`)."""
    return complete(state, hand, limit).unknowns


def assignments(state: GameState, limit: int = SEARCH_LIMIT, hand: int | None = None
                ) -> Iterator[dict[Key, str]]:
    """The complete consistent assignments of ``hand``'s unknown cards
    (``(trick, seat) -> card``), each card once, every seat's plays legal; the
    search stops after ``limit`` folds."""
    h = _hand_of(state, hand)
    if h is None:
        return
    deal = _Deal(h)
    masks = deal.by_trick({i: deal.local(i) for i in deal.unknown})
    narrowed = _narrow(masks)
    if narrowed is None:
        return
    for fill, _ in deal.search(narrowed, limit):
        yield {deal.keys[deal.unknown.index(i)]: CARD_CODES[c] for i, c in fill.items()}


# -- matching: each card once in the deal ---------------------------------------------

def _matching(masks: Sequence[int]) -> list[int] | None:
    """A card for each mask (distinct, each in its mask), or None when there is
    none (augmenting paths: a few unknowns, 32 cards)."""
    owner = [-1] * 32            # card -> index of the mask it is given to
    match = [-1] * len(masks)

    def augment(u: int, seen: list[bool]) -> bool:
        for c in _cards(masks[u]):
            if seen[c]:
                continue
            seen[c] = True
            if owner[c] < 0 or augment(owner[c], seen):
                owner[c] = u
                match[u] = c
                return True
        return False

    for u in range(len(masks)):
        if not augment(u, [False] * 32):
            return None
    return match


def _possible(masks: Sequence[int]) -> list[int] | None:
    """Each mask narrowed to the cards it takes in some matching of all the masks
    to distinct cards; None when no such matching exists.

    With one matching ``M`` in hand, ``u`` may take ``c`` iff ``c`` is ``M(u)``, or
    ``c`` is free, or from ``c`` an alternating path (``c`` -> the unknown holding
    it -> another of its candidates -> ...) reaches a free card or ``M(u)``."""
    match = _matching(masks)
    if match is None:
        return None
    owner = [-1] * 32
    for u, c in enumerate(match):
        owner[c] = u
    # reach[c]: cards reachable from c by alternating paths
    reach: list[int] = [0] * 32
    for c in range(32):
        seen = 1 << c
        stack = [c]
        while stack:
            d = stack.pop()
            u = owner[d]
            if u < 0:
                continue
            for e in _cards(masks[u] & ~seen):
                seen |= 1 << e
                stack.append(e)
        reach[c] = seen
    free = 0
    for c in range(32):
        if owner[c] < 0:
            free |= 1 << c
    out = []
    for u, mask in enumerate(masks):
        ok = 1 << match[u]
        for c in _cards(mask):
            if reach[c] & (free | 1 << match[u]):
                ok |= 1 << c
        out.append(ok & mask)
    return out


def _narrow(masks: Mapping[int, int]) -> dict[int, int] | None:
    keys = list(masks)
    out = _possible([masks[k] for k in keys])
    if out is None or any(m == 0 for m in out):
        return None
    return dict(zip(keys, out, strict=True))


def possible(found: Sequence[Unknown]) -> tuple[Unknown, ...]:
    """``found`` with each candidate list narrowed to the cards it can take when
    every unknown takes a distinct card; unchanged when no such matching exists."""
    out = _possible([_mask(u.candidates) for u in found])
    if out is None:
        return tuple(found)
    return tuple(Unknown(u.seat, u.trick, tuple(CARD_CODES[c] for c in _cards(m)))
                 for u, m in zip(found, out, strict=True))


def determined(found: Sequence[Unknown]) -> dict[Key, str]:
    """``(trick, seat) -> card`` for each unknown that every complete assignment
    (each card once, each unknown one of its candidates) gives the same card;
    empty when there is no complete assignment at all."""
    if _matching([_mask(u.candidates) for u in found]) is None:
        return {}
    return {u.key: u.candidates[0] for u in possible(found) if len(u.candidates) == 1}


def _mask(codes: Sequence[str]) -> int:
    mask = 0
    for code in codes:
        mask |= 1 << _INDEX[code]
    return mask


__all__ = ["OUTCOME_KEYS", "SEARCH_LIMIT", "TRICK_LIMIT", "Completion", "Key", "Unknown",
           "assignments", "complete", "determined", "possible", "unknowns"]
