"""A game as a pure fold over its events: bidding, trick play, renonce proof,
hand scores and game end.

``replay(events)`` gives the state; ``GameState.apply(event)`` the next one.
Whether an event may come now is ``scorer.verify``'s question; how a finished
hand reads is ``scorer.handview``'s. A renonce is not an error: the card is
down, and the state records the renonce when the cards played prove it.

>>> from scorer.events import GameStarted, BidMade
>>> s = replay([GameStarted(dealer="N"), BidMade("W", "80H"), BidMade("S", "pass"),
...             BidMade("E", "pass"), BidMade("N", "pass")])
>>> s.phase, s.to_play, s.contract
('play', 'W', {'taker': 'W', 'value': 80, 'trump': 'H', 'double': 1})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scorer import tricks as T
from scorer.bidding import CONTRE, PASS, SURCONTRE, TAKE, Bid
from scorer.cards import (
    CARD_CODES,
    SEATS,
    TEAMS,
    next_seat,
    partner_of,
    team_of,
)
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardCorrected,
    CardPlayed,
    CardTurned,
    ContractSet,
    EntryUndone,
    Event,
    GameEnded,
    GameStarted,
    TallyEntered,
)
from scorer.handview import FinishedHand, Trick, code_of, trick_json
from scorer.rules import Rules
from scorer.scoring import count_belotes, penalised_renonce, score_hand
from scorer.verify import IllegalEventError, can_apply, find_play, legal_plays
from scorer.view import GameView, Renonce

_NEXT_CCW = {s: next_seat(s) for s in SEATS}
_NEXT_CW = {s: next_seat(s, clockwise=True) for s in SEATS}
_TEAM = {s: team_of(s) for s in SEATS}
# Table look-ups bound once for the play fold.
_INDEX = {code: i for i, code in enumerate(CARD_CODES)}
_SUIT_OF = T.SUIT_OF
_KEYS = T.KEYS
_AT = T.AT


_BIDS: dict[str, tuple[Bid, str]] = {}
# Attributes of a GameState (slots: the fold reads and writes them for every card).
_SLOTS = (
    "events", "undone", "rules", "preset", "settings", "teams", "players", "scores",
    "hand_no", "dealer", "phase", "winner", "ended", "_hands", "held_over", "_next", "_classic",
    "_undertrump", "_partner_free", "_plays_by_hand",
    "to_speak", "turned", "contract", "mode", "_high", "_high_seat", "_double", "_passes",
    "_round", "to_play", "leader", "trick_no", "_known", "_led", "_keys", "_win", "_top",
    "_top_key", "_check_all", "_points", "_forbidden", "_tally_entry",
    "bids", "trick", "trick_seats", "tricks", "tricks_won", "card_points", "belote",
    "renonces", "unknown", "_facts", "_fact_mask", "_play_idx", "proven",
    "pending", "unplaced", "put_down")
_DEFAULT_RULES = Rules()
_RULES: dict[tuple[str, str], Rules] = {}


def _parse_bid(text: str) -> tuple[Bid, str]:
    """``Bid.parse`` and its written form, remembered: a game speaks the same few
    bids again and again."""
    found = _BIDS.get(text)
    if found is None:
        bid = Bid.parse(text)
        found = _BIDS[text] = (bid, str(bid))
    return found


def _rules(preset: str, settings: dict[str, Any]) -> Rules:
    key = (preset, repr(sorted(settings.items())))
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = Rules.from_preset(preset, settings)
    return rules


class GameState:
    """Everything known about a game after some events. Read it, or ``to_json()``.

    The fold keeps the trick in progress as running values (led suit, the card
    that holds it, its points) so that each play is a few table look-ups.
    """

    __slots__ = _SLOTS

    # Per-hand values, reset at each deal.
    to_speak: str | None
    turned: str | None
    contract: dict[str, Any] | None
    mode: int
    _high: Bid | None
    _high_seat: str | None
    _double: int
    _passes: int
    _round: int
    to_play: str | None
    leader: str | None
    trick_no: int
    _known: bool                 # every card of the trick in progress is known
    _led: int
    _keys: Sequence[int]
    _win: int                    # position of the card that holds the trick
    _top: int
    _top_key: int
    _check_all: bool
    _points: Sequence[int]
    _forbidden: Sequence[tuple[int, list[tuple[int, str]]] | None]
    _tally_entry: TallyEntered | None

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.undone: set[int] = set()
        self.rules = _DEFAULT_RULES
        self.preset = "ffb"
        self.settings: dict[str, Any] = {}
        self.teams: dict[str, str] = {"NS": "NS", "EW": "EW"}
        self.players: dict[str, str] = {}
        self.scores = {"NS": 0, "EW": 0}
        self.hand_no = 0
        self.dealer = "N"
        self.phase = "setup"
        self.winner: str | None = None
        # Why the game ended before its target: "organiser", "time" (GameEnded)
        # or "hands" (the fixed number of hands); None otherwise.
        self.ended: str | None = None
        self._hands: list[Any] = []     # dicts, or FinishedHand built on first read
        self.held_over = 0
        self._next = _NEXT_CCW
        self._classic = False
        self._undertrump = False
        self._partner_free = True
        # hand number -> indices in self.events of its CardPlayed, for corrections
        self._plays_by_hand: dict[int, list[int]] = {}
        # The renonces that the last event given to ``apply`` proved.
        self.proven: tuple[Renonce, ...] = ()
        # Cards put down whose seat's turn has not come (out of turn, or before the
        # play began): (event, index, hand_no), in the order stored. Each is played
        # when its seat is to play; never dropped (``_card``).
        self.pending: list[tuple[CardPlayed, int, int]] = []
        # Cards still pending when their hand ended: {"hand_no", "seat", "card", "index"}.
        self.unplaced: list[dict[str, Any]] = []
        self.put_down: list[str] = []
        self._reset_hand()

    # -- per-hand state ------------------------------------------------------------
    def _reset_hand(self) -> None:
        if self.pending:
            # The hand is over with cards that never had their turn: kept, shown apart.
            self.unplaced = self.unplaced + [
                {"hand_no": hand_no, "seat": e.seat, "card": e.card, "index": index}
                for e, index, hand_no in self.pending]
            self.pending = []
        # The codes of the cards put down this hand as they were first stored (a
        # card a correction named in place of another is not among them): what the
        # camera must not play again.
        self.put_down = []
        self.to_speak = self.turned = self.contract = None
        self.mode = 0
        self._high = None
        self._high_seat = None
        self._double = 1
        self._passes = 0
        self._round = 1
        self.to_play = self.leader = None
        self.trick_no = 1
        self._known = True
        self._led = -1
        self._keys = self._points = self._forbidden = ()
        self._win = 0
        self._top = self._top_key = -1
        self._check_all = False
        self._tally_entry = None
        self.bids: list[tuple[str, str]] = []
        self.trick: list[int] = []          # cards (-1 unknown) of the trick in progress
        self.trick_seats: list[str] = []
        self.tricks: list[Trick] = []
        self.tricks_won = {"NS": 0, "EW": 0}
        self.card_points = {"NS": 0, "EW": 0}
        self.belote: list[str] = []
        self.renonces: list[dict[str, Any]] = []
        self.unknown: list[dict[str, Any]] = []
        # per seat: (trick, card, parts) facts that a later card could break
        self._facts: dict[str, list[tuple[int, int, list[tuple[int, str]]]]] = {
            "N": [], "E": [], "S": [], "W": []}
        self._fact_mask = {"N": 0, "E": 0, "S": 0, "W": 0}
        self._play_idx: list[int] = []
        self._plays_by_hand[self.hand_no] = self._play_idx

    # -- public API ----------------------------------------------------------------
    def apply(self, event: Event) -> GameState:
        """The state after ``event``; this state is left as it was. The new
        state's ``proven`` holds the renonces that ``event`` proved (a card that
        breaks an earlier fact, a card out of turn, or after an undo or a
        correction the renonces the stream now proves and did not before)."""
        new = GameState.__new__(GameState)
        _copy_slots(self, new)
        _copy_mutables(new)
        new._fold(event)
        new.proven = _proven(self, new, event)
        return new

    def view(self) -> GameView:
        """The frozen view of this state (``scorer.view``): what the pages and the
        display read; its ``to_json()`` is this state's."""
        return GameView.from_json(self.to_json())

    def __eq__(self, other: object) -> bool:
        """Two states are equal when they say the same (``to_json``) after the same events."""
        if not isinstance(other, GameState):
            return NotImplemented
        return self.events == other.events and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    @property
    def hands(self) -> list[dict[str, Any]]:
        """Finished hands: ``{"hand_no", "dealer", "record", "result"}``."""
        hands = self._hands
        for i, h in enumerate(hands):
            if not isinstance(h, dict):
                hands[i] = h.build()
        return hands

    @property
    def played(self) -> list[int]:
        """Cards (numbers, -1 unknown) played this hand, in order."""
        return [c for t in self.tricks for c in t[2]] + self.trick

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "rules": self.rules.to_json(),
            "preset": self.preset,
            "target": self.rules.target,
            "teams": dict(self.teams),
            "players": dict(self.players),
            "scores": dict(self.scores),
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "bids": [{"seat": s, "bid": b} for s, b in self.bids],
            "to_speak": self.to_speak,
            "turned": self.turned,
            "contract": dict(self.contract) if self.contract else None,
            "trick_no": self.trick_no,
            "current_trick": {"leader": self.leader,
                              "cards": [{"seat": s, "card": code_of(c)}
                                        for s, c in zip(self.trick_seats, self.trick,
                                                        strict=True)]},
            "to_play": self.to_play,
            "tricks": [trick_json(t) for t in self.tricks],
            "tricks_won": dict(self.tricks_won),
            "card_points": dict(self.card_points),
            "belote": list(self.belote),
            "renonces": [dict(r) for r in self.renonces],
            "unknown": [dict(u) for u in self.unknown],
            "played": [code_of(c) for c in self.played],
            "hands": [dict(h) for h in self.hands],
            "winner": self.winner,
            "ended": self.ended,
        }

    def legal_plays(self, hand: Iterable[str]) -> list[str]:
        """The cards of a known ``hand`` that the player to play may put down now
        (``scorer.verify.legal_plays``)."""
        return legal_plays(hand, self)

    # -- the fold --------------------------------------------------------------------
    def _fold(self, event: Event) -> None:
        index = len(self.events)
        self.events.append(event)
        kind = type(event)
        if kind is EntryUndone or kind is CardCorrected:
            _copy_slots(_rebuild(self.events), self)
            return
        _HANDLERS[kind](self, event, index)
        if self.pending:
            self._flush()

    def _start(self, e: GameStarted, index: int) -> None:
        self.rules = _rules(e.rules, e.settings)
        self.preset = e.rules
        self.settings = dict(e.settings)
        self.teams = dict(e.teams)
        self.players = dict(e.players)
        self.dealer = e.dealer
        self._next = _NEXT_CW if self.rules.clockwise else _NEXT_CCW
        self._classic = self.rules.game == "classic"
        self._undertrump = self.rules.must_undertrump
        self._partner_free = self.rules.partner_master_free
        self.hand_no = 1
        self._begin_hand()

    def _begin_hand(self) -> None:
        self._reset_hand()
        self.phase = "bidding"
        self.to_speak = None if self.rules.game == "classic" else self._next[self.dealer]

    def _turn(self, e: CardTurned, index: int) -> None:
        self.turned = e.card
        self.to_speak = self._next[self.dealer]

    def _bid(self, e: BidMade, index: int) -> None:
        bid, written = _parse_bid(e.bid)
        self.bids.append((e.seat, written))
        nxt = self._next
        if self._classic:
            if bid.kind == TAKE:
                trump = bid.trump or (self.turned or "H")[1]
                self._set_contract(e.seat, None, trump, 1)
                return
            self._passes += 1
            if self._passes == 4:
                if self._round == 2:
                    self._passed_out()
                    return
                self._round, self._passes = 2, 0
            self.to_speak = nxt[e.seat]
            return
        if bid.kind == PASS:
            self._passes += 1
            if self._high is None:
                if self._passes == 4:
                    self._passed_out()
                    return
            elif self._double > 1:
                # After a contre only the contré team speaks (FFB 4.2.3).
                if self._passes == 2:
                    self._close_auction()
                    return
                self.to_speak = partner_of(e.seat)
                return
            elif self._passes == 3:
                self._close_auction()
                return
            self.to_speak = nxt[e.seat]
        elif bid.kind == "value":
            self._high, self._high_seat, self._passes = bid, e.seat, 0
            self.to_speak = nxt[e.seat]
        elif bid.kind == CONTRE:
            self._double, self._passes = 2, 0
            self.to_speak = nxt[e.seat]
        elif bid.kind == SURCONTRE:
            self._double = 4
            self._close_auction()

    def _close_auction(self) -> None:
        high = self._high
        assert high is not None and self._high_seat is not None and high.trump is not None
        self._set_contract(self._high_seat, high.value, high.trump, self._double)

    def _passed_out(self) -> None:
        self._hands.append(FinishedHand(self, None))
        self._next_hand()

    def _set_contract(self, taker: str, value: int | str | None, trump: str,
                      double: int) -> None:
        self.contract = {"taker": taker, "value": value, "trump": trump, "double": double}
        self.mode = mode = T.trump_mode(trump)
        self._points = T.POINTS[mode]
        self._forbidden = T.forbidden_table(mode, self._undertrump, self._partner_free)
        self.phase = "play"
        self.to_speak = None
        self.leader = self.to_play = self._next[self.dealer]

    def _contract_set(self, e: ContractSet, index: int) -> None:
        self._set_contract(e.taker, e.value, e.trump, e.double)

    def _announce(self, e: BeloteAnnounced, index: int) -> None:
        self.belote.append(e.seat)

    def _card(self, e: CardPlayed, index: int, seen: str | None = None) -> None:
        """A card put down, whatever the turn: played now when its seat is to play
        (or leads a trick whose leader is not known), else held in ``pending``
        until its seat's turn comes (``_flush``). The camera stores every card it
        sees settle, in the order it saw them; the fold, not the camera, decides
        when each one is played, so folding the same cards again (after an undo)
        gives the same tricks. ``seen``: the code first stored (a correction may
        have put another in ``e``)."""
        code = e.card if seen is None else seen
        if code is not None:
            self.put_down.append(code)
        if self.phase == "play" and (self.to_play is None or e.seat == self.to_play):
            self._play(e, index)
            if self.pending:
                self._flush()
        else:
            self.pending.append((e, index, self.hand_no))

    def _flush(self) -> None:
        """Play the pending cards whose turn has come, each seat's in the order stored."""
        pending = self.pending
        while pending and self.phase == "play":
            to_play = self.to_play
            k = next((k for k, p in enumerate(pending)
                      if to_play is None or p[0].seat == to_play), None)
            if k is None:
                return
            e, index, _ = pending.pop(k)
            self._play(e, index)

    def _play(self, e: CardPlayed, index: int) -> None:
        seat = e.seat
        trick = self.trick
        n = len(trick)
        self._play_idx.append(index)
        if n == 0:
            if self.phase != "play":
                raise IllegalEventError("play.outside", seat=seat, card=e.card,
                                        phase=self.phase)
            if self.to_play is None:
                self.to_play = seat  # the last trick's winner is not known yet
            self.leader = seat
        code = e.card
        if code is None:
            card = -1
            self._known = False
            self.unknown.append({"seat": seat, "trick": self.trick_no})
        else:
            card = _INDEX[code]
            bit = 1 << card
            if self._fact_mask[seat] & bit:
                self._prove(seat, card)
            if n == 0:
                mode = self.mode
                self._led = _SUIT_OF[card]
                self._keys = _KEYS[mode][self._led]
                self._win, self._top, self._top_key = 0, card, self._keys[card]
                # on a trump lead (every lead at Tout Atout) following may be wrong too
                self._check_all = self._led == mode or mode == _AT
            elif self._known:
                led = self._led
                if self._check_all or _SUIT_OF[card] != led:
                    # index of the forbidden table (tricks.table_index), inlined
                    fact = self._forbidden[
                        ((led * 32 + self._top) * 2 + (self._win == n - 2)) * 32 + card]
                    if fact is not None:
                        self._facts[seat].append((self.trick_no, card, fact[1]))
                        self._fact_mask[seat] |= fact[0]
                key = self._keys[card]
                if key > self._top_key:
                    self._win, self._top, self._top_key = n, card, key
        trick.append(card)
        self.trick_seats.append(seat)
        if n < 3:
            self.to_play = self._next[seat]
            return
        self._end_trick()

    def _prove(self, seat: str, card: int) -> None:
        """``card`` was in ``seat``'s hand at each earlier play: any fact it breaks is a renonce."""
        bit = 1 << card
        keep = []
        mask = 0
        for fact in self._facts[seat]:
            trick_no, _, parts = fact
            rule = next((r for m, r in parts if m & bit), None)
            if rule is None:
                keep.append(fact)
                for m, _ in parts:
                    mask |= m
            else:
                self.renonces.append({"seat": seat, "trick": trick_no, "rule": rule,
                                      "proof": {"trick": self.trick_no,
                                                "card": T.card_code(card)}})
        self._facts[seat] = keep
        self._fact_mask[seat] = mask

    def _end_trick(self) -> None:
        seats = self.trick_seats
        assert self.leader is not None
        winner: str | None = None
        points: int | None = None
        if self._known:
            winner = seats[self._win]
            pts, cards = self._points, self.trick
            points = pts[cards[0]] + pts[cards[1]] + pts[cards[2]] + pts[cards[3]]
            team = _TEAM[winner]
            self.tricks_won[team] += 1
            self.card_points[team] += points
        # The lists are handed over to the finished trick and replaced, never mutated.
        self.tricks.append((self.leader, seats, self.trick, winner, points))
        self.trick = []
        self.trick_seats = []
        self._known = True
        self.to_play = self.leader = winner
        if self.trick_no < 8:
            self.trick_no += 1
            return
        if winner is not None:
            team = _TEAM[winner]
            # FFB 9: dix de der, 100 on a capot.
            self.card_points[team] += 100 if self.tricks_won[team] == 8 else 10
        self._end_hand()

    def _tally(self, e: TallyEntered, index: int) -> None:
        self._tally_entry = e
        self.tricks_won = {t: int(e.tricks.get(t, 0)) for t in TEAMS}
        self.card_points = {t: int(e.points.get(t, 0)) for t in TEAMS}
        self._end_hand()

    def _belotes(self) -> dict[str, int]:
        """Belotes credited to each team this hand (FFB 7, 11.2, 11.3)."""
        out = {"NS": 0, "EW": 0}
        if self._tally_entry is not None:
            return count_belotes(self._tally_entry.belote)
        mode = self.mode
        if mode == T.NT:
            return out
        auto = self.rules.belote == "auto"
        if not auto and not self.belote:
            return out
        announced = {s: self.belote.count(s) for s in self.belote}
        for suit in range(4) if mode == T.AT else (mode,):
            seat = self._player_of(suit * 8 + 5)      # the queen
            if (seat is not None and seat == self._player_of(suit * 8 + 6)  # and the king
                    and (auto or announced.get(seat, 0) > 0)):
                announced[seat] = announced.get(seat, 0) - 1
                out[_TEAM[seat]] += 1
        return out

    def _play_order(self) -> dict[tuple[int, str], int]:
        """(trick, seat) -> the seat's place in that trick's play, from 0."""
        return {(n, seat): i for n, (_, seats, _, _, _) in enumerate(self.tricks, start=1)
                for i, seat in enumerate(seats)}

    def _player_of(self, card: int) -> str | None:
        """The seat that put ``card`` down this hand."""
        for _, seats, cards, _, _ in self.tricks:
            if card in cards:
                return seats[cards.index(card)]
        return None

    def _end_hand(self) -> None:
        c = self.contract
        assert c is not None
        penalised = penalised_renonce(self.renonces, self._play_order())
        offender = _TEAM[str(penalised["seat"])] if penalised else None
        belotes = self._belotes()
        result = score_hand(self.rules, c["taker"], c["value"], c["trump"], c["double"],
                            self.card_points, self.tricks_won, belotes,
                            renonce_team=offender, held_over=self.held_over)
        score: dict[str, int] = result["score"]  # type: ignore[assignment]
        if "held_over" in result:
            self.held_over = int(result["held_over"])  # type: ignore[call-overload]
        elif result.get("made") is not None or offender is not None:
            self.held_over = 0
        self.scores = {t: self.scores[t] + score[t] for t in TEAMS}
        self._hands.append(FinishedHand(self, result, belotes))
        self._next_hand()

    def _next_hand(self) -> None:
        scores = self.scores
        target = self.rules.target
        # FFB 10.4: first to the target; both: the higher; equal: another hand.
        if (scores["NS"] >= target or scores["EW"] >= target) and scores["NS"] != scores["EW"]:
            self.winner = "NS" if scores["NS"] > scores["EW"] else "EW"
        elif (self.rules.hands and self.hand_no >= self.rules.hands
              and scores["NS"] != scores["EW"]):
            # A game of a fixed number of hands: the higher total (equal: one more hand).
            self.winner = "NS" if scores["NS"] > scores["EW"] else "EW"
            self.ended = "hands"
        self.dealer = self._next[self.dealer]
        self.hand_no += 1
        self._begin_hand()
        if self.winner is not None:
            self.phase = "over"
            self.to_speak = None


def _copy_slots(source: GameState, target: GameState) -> None:
    for name in _SLOTS:
        setattr(target, name, getattr(source, name))


def _copy_mutables(s: GameState) -> None:
    """Fresh containers for ``apply``: the old state must not see the new event."""
    s.events = list(s.events)
    s.undone = set(s.undone)
    s.scores = dict(s.scores)
    s._hands = list(s._hands)
    s._plays_by_hand = dict(s._plays_by_hand)
    s._play_idx = list(s._play_idx)
    s.pending = list(s.pending)
    s.put_down = list(s.put_down)
    s._plays_by_hand[s.hand_no] = s._play_idx
    s.bids = list(s.bids)
    s.trick = list(s.trick)
    s.trick_seats = list(s.trick_seats)
    s.tricks = list(s.tricks)
    s.tricks_won = dict(s.tricks_won)
    s.card_points = dict(s.card_points)
    s.belote = list(s.belote)
    s.renonces = list(s.renonces)
    s.unknown = list(s.unknown)
    s._facts = {k: list(v) for k, v in s._facts.items()}
    s._fact_mask = dict(s._fact_mask)
    if s.contract is not None:
        s.contract = dict(s.contract)


def _renonces_of(s: GameState) -> set[Renonce]:
    """Every renonce of the game in ``s``: the finished hands' and the hand in play's."""
    out = {Renonce.from_json(r, h["hand_no"]) for h in s.hands
           for r in h["result"]["renonces"]}
    if s.phase != "over":
        out.update(Renonce.from_json(r, s.hand_no) for r in s.renonces)
    return out


def _proven(old: GameState, new: GameState, event: Event) -> tuple[Renonce, ...]:
    """The renonces ``new`` knows that ``old`` did not, ``event`` between them."""
    kind = type(event)
    if kind is EntryUndone or kind is CardCorrected:
        # The stream was folded again: any renonce may have come or gone.
        return tuple(sorted(_renonces_of(new) - _renonces_of(old), key=_renonce_order))
    # Otherwise renonces are only added: after the old hand's own, in the hands
    # that ended with this event, then in the hand now in play.
    added: list[Renonce] = []
    skip = len(old.renonces)
    for hand in new._hands[len(old._hands):]:
        if isinstance(hand, FinishedHand):
            hand_no, found = hand.hand_no, hand.renonces
        else:
            hand_no, found = hand["hand_no"], hand["result"]["renonces"]
        added += (Renonce.from_json(r, hand_no) for r in found[skip:])
        skip = 0
    if new.hand_no != old.hand_no:
        skip = 0
    added += (Renonce.from_json(r, new.hand_no) for r in new.renonces[skip:])
    return tuple(added)


def _renonce_order(r: Renonce) -> tuple[int, str, int, str, int, str]:
    return (r.hand_no, r.seat, r.trick, r.rule, r.proof_trick, r.proof_card or "")


def _undo(s: GameState, e: EntryUndone, index: int) -> None:
    pass  # handled by _rebuild


def _end_game(s: GameState, e: GameEnded, index: int) -> None:
    """The game stops here: the hand in play is dropped, the higher total wins."""
    hand_no, dealer = s.hand_no, s.dealer
    s._reset_hand()
    s.hand_no, s.dealer = hand_no, dealer
    scores = s.scores
    s.winner = None if scores["NS"] == scores["EW"] else (
        "NS" if scores["NS"] > scores["EW"] else "EW")
    s.ended = e.reason
    s.phase = "over"


_HANDLERS: dict[type[Event], Callable[[GameState, Any, int], None]] = {
    GameStarted: GameState._start,
    CardTurned: GameState._turn,
    BidMade: GameState._bid,
    ContractSet: GameState._contract_set,
    CardPlayed: GameState._card,
    BeloteAnnounced: GameState._announce,
    TallyEntered: GameState._tally,
    EntryUndone: _undo,
    GameEnded: _end_game,
}


def _still_fits(state: GameState, e: Event) -> bool:
    """After an undo or a correction, events recorded later may no longer fit
    (a bid after an auction that is now closed): those are left out. A card
    always fits: it is played at its seat's turn, or waits for it (``_card``)."""
    return can_apply(state, e)


def _rebuild(events: list[Event]) -> GameState:
    """Fold the stream again, leaving undone entries out and putting each
    corrected card in place of the one first recorded."""
    undone = {e.index for e in events if isinstance(e, EntryUndone)}
    subs: dict[int, str] = {}
    handled: set[int] = set()
    while True:
        state = GameState()
        state.events = events  # read by _find_play; the copy is kept at the end
        restart = False
        for i, e in enumerate(events):
            if i in undone or isinstance(e, EntryUndone):
                continue
            if isinstance(e, CardCorrected):
                if i in handled:
                    continue
                handled.add(i)
                hand = e.hand if e.hand is not None else state.hand_no
                target = find_play(state, hand, e.trick, e.seat)
                if target is not None:
                    subs[target] = e.new
                    restart = True
                    break
                continue
            if isinstance(e, CardPlayed):
                # Never left out: a card put down is a card put down.
                if i in subs:
                    state._card(CardPlayed(seat=e.seat, card=subs[i]), i,
                                seen=e.card or subs[i])
                else:
                    state._card(e, i)
                continue
            if _still_fits(state, e):
                _HANDLERS[type(e)](state, e, i)
                if state.pending:
                    state._flush()
        if not restart:
            state.events = list(events)
            state.undone = undone
            return state


def replay(events: Iterable[Event]) -> GameState:
    """The state of a game after ``events`` (pure, deterministic)."""
    stream = list(events)
    state = GameState()
    card = GameState._card
    handlers = _HANDLERS
    i = 0
    try:
        for i, e in enumerate(stream):
            kind = type(e)
            if kind is CardPlayed:
                # the common case first, without the generic dispatch
                card(state, e, i)  # type: ignore[arg-type]
            elif kind is EntryUndone or kind is CardCorrected:
                # from the first undo or correction on, the careful fold takes the whole stream
                return _rebuild(stream)
            else:
                handlers[kind](state, e, i)
                if state.pending:
                    state._flush()
    except (AssertionError, IndexError, KeyError, TypeError, IllegalEventError) as exc:
        # The fold trusts verified streams; say where one that was not goes wrong.
        # (Unknown rules keep their own error, UnknownSettingError, naming the setting.)
        place = f"event {i} ({type(stream[i]).__name__})"
        if isinstance(exc, IllegalEventError):
            raise IllegalEventError.wrap(exc, place) from None
        raise IllegalEventError("event.misfit", places=(place,)) from None
    state.events = stream
    return state
