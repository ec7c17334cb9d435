"""Verification: whether an event may come now, and why not.

``verify_event(state, event)`` raises ``IllegalEventError`` saying why an
event cannot come after ``state`` (``can_apply`` as a bool). For a card put
down there is one legality question, asked by the service for the camera's
plays and the web page's entries (through ``verify_event``), and by the tests
and the simulator with the player's hand known: :func:`verify_play`, with
:func:`can_play` (a bool) and :func:`legal_plays` (the cards of a hand that
pass it), in pokerkit's manner.

A renonce is not an error here: the card is down; the fold (``scorer.fold``)
records the renonce when the cards played prove it.

>>> from scorer.events import GameStarted, BidMade, CardPlayed
>>> from scorer.fold import replay
>>> s = replay([GameStarted(dealer="N"), BidMade("W", "80H"), BidMade("S", "pass"),
...             BidMade("E", "pass"), BidMade("N", "pass")])
>>> verify_event(s, CardPlayed("N", "7S"))
Traceback (most recent call last):
...
scorer.verify.IllegalEventError: N played out of turn, W to play
>>> can_play(s, CardPlayed("W", "7S")), can_play(s, CardPlayed("W", "7S"), ["8S", "AH"])
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from scorer import tricks as T
from scorer.bidding import (
    CONTRE,
    PASS,
    SURCONTRE,
    TAKE,
    Bid,
    InvalidBidError,
    InvalidContractError,
    verify_contract,
)
from scorer.cards import TEAMS, TRUMPS, Card, InvalidCardError, team_of
from scorer.errors import ScorerError
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardCorrected,
    CardPlayed,
    CardTurned,
    ContractSet,
    EntryUndone,
    Event,
    GameStarted,
    TallyEntered,
)
from scorer.handview import code_of
from scorer.rules import Rules, UnknownSettingError
from scorer.scoring import belotes_allowed

if TYPE_CHECKING:
    from scorer.fold import GameState

# Sans Atout and Tout Atout: the trump modes that are not a suit.
_NO_SUIT: Final = TRUMPS[4:]


class IllegalEventError(ScorerError):
    """An event that cannot come now (out of turn, card already played...)."""


def find_play(state: GameState, hand: int, trick: int, seat: str) -> int | None:
    """Index in the event stream of ``seat``'s card in ``trick`` of ``hand``."""
    plays = state._plays_by_hand.get(hand, [])
    for index in plays[(trick - 1) * 4: trick * 4]:
        event = state.events[index]
        if isinstance(event, CardPlayed) and event.seat == seat:
            return index
    return None


def verify_event(state: GameState, event: Event) -> None:
    """Raise ``IllegalEventError`` saying why ``event`` cannot come now."""
    if isinstance(event, GameStarted):
        if state.phase != "setup":
            raise IllegalEventError("game.started")
        try:
            Rules.from_preset(event.rules, event.settings)
        except UnknownSettingError as exc:
            raise IllegalEventError.wrap(exc) from None
        return
    if state.phase == "setup":
        raise IllegalEventError("game.not_started")
    if isinstance(event, EntryUndone):
        if not 0 <= event.index < len(state.events):
            raise IllegalEventError("undo.no_entry", index=event.index)
        if event.index in state.undone:
            raise IllegalEventError("undo.already", index=event.index)
        target = state.events[event.index]
        if isinstance(target, (EntryUndone, GameStarted)):
            raise IllegalEventError("undo.cannot", index=event.index,
                                    kind=type(target).__name__)
        return
    if state.phase == "over":
        raise (IllegalEventError("game.over_won", winner=state.winner) if state.winner
               else IllegalEventError("game.over_draw"))
    if isinstance(event, CardCorrected):
        _verify_correction(state, event)
    elif isinstance(event, CardTurned):
        if state.rules.game != "classic":
            raise IllegalEventError("turn.contree")
        if state.phase != "bidding" or state.turned is not None:
            raise IllegalEventError("turn.once")
        if event.card is None:
            raise IllegalEventError("turn.unnamed")
    elif isinstance(event, BidMade):
        _verify_bid(state, event)
    elif isinstance(event, ContractSet):
        if state.phase != "bidding" or state.bids:
            raise IllegalEventError("contract.after_bids")
        rules = state.rules
        try:
            verify_contract(event.value, event.trump, event.double, rules.min_bid,
                            rules.max_bid, valued=rules.game == "contree")
        except InvalidContractError as exc:
            raise IllegalEventError.wrap(exc, drop=1) from None
    elif isinstance(event, CardPlayed):
        verify_play(state, event)
    elif isinstance(event, BeloteAnnounced):
        if state.phase != "play":
            raise IllegalEventError("belote.outside_play")
        if state.mode == T.NT:
            raise IllegalEventError("belote.sans_atout")
    elif isinstance(event, TallyEntered):
        if state.phase != "play" or state.played:
            raise IllegalEventError("tally.after_cards")
        if set(event.points) != set(TEAMS) or set(event.tricks) != set(TEAMS):
            raise IllegalEventError("tally.teams")
        if sum(event.tricks.values()) != 8:
            raise IllegalEventError("tally.tricks_sum")
        _verify_tally_points(state, event)
        _verify_tally_belote(state, event.belote)


def _verify_tally_points(state: GameState, event: TallyEntered) -> None:
    """FFB 9 and 11.3: the card points and the dix de der make 162 (152 + 10;
    258 at Tout Atout, 248 + 10); a capot, the 8 tricks to one team, makes 252
    (348 at Tout Atout: the dix de der is then 100) for it and 0 for the other.
    The figures are the organiser's: refused when they cannot be, never changed."""
    points = {t: event.points[t] for t in TEAMS}
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in points.values()):
        raise IllegalEventError("tally.teams")
    cards = sum(T.POINTS[state.mode])
    capot = next((t for t in TEAMS if event.tricks[t] == 8), None)
    if capot is not None:
        other = "EW" if capot == "NS" else "NS"
        if points[capot] != cards + 100 or points[other] != 0:
            raise IllegalEventError("tally.capot_points", team=capot, expected=cards + 100,
                                    points=points[capot], other=points[other])
    elif points["NS"] + points["EW"] != cards + 10:
        raise IllegalEventError("tally.points_sum", total=points["NS"] + points["EW"],
                                NS=points["NS"], EW=points["EW"], expected=cards + 10,
                                cards=cards)


def _verify_tally_belote(state: GameState, belote: Any) -> None:
    """FFB 7, 11.2, 11.3 (``scorer.scoring.belotes_allowed``): no belote at Sans
    Atout, up to four at Tout Atout, one at a suit."""
    teams = [belote] if isinstance(belote, str) else belote
    if teams is None:
        return
    if not isinstance(teams, list) or any(t not in TEAMS for t in teams):
        raise IllegalEventError("tally.belote_kind", value=belote)
    trump = (state.contract or {}).get("trump")
    allowed = belotes_allowed(trump)
    if len(teams) > allowed:
        if allowed == 0:
            raise IllegalEventError("tally.belote_sans_atout")
        if allowed == 1:
            raise IllegalEventError("tally.one_belote")
        raise IllegalEventError("tally.belotes_tout_atout", allowed=allowed)


def _verify_bid(state: GameState, e: BidMade) -> None:
    if state.phase != "bidding":
        raise IllegalEventError("bid.outside", seat=e.seat, bid=e.bid)
    if state.to_speak is None:
        raise IllegalEventError("bid.unturned")
    if e.seat != state.to_speak:
        raise IllegalEventError("bid.out_of_turn", seat=e.seat, other=state.to_speak)
    try:
        bid = Bid.parse(e.bid)
    except InvalidBidError as exc:
        raise IllegalEventError.wrap(exc) from None
    if state.rules.game == "classic":
        if bid.kind == PASS:
            return
        if bid.kind != TAKE:
            raise IllegalEventError("bid.classic_kind", bid=e.bid)
        turned = (state.turned or "")[1:]
        if state._round == 1 and bid.trump not in (None, turned):
            raise IllegalEventError("bid.first_round", suit=turned)
        if state._round == 2 and (bid.trump is None or bid.trump == turned):
            raise IllegalEventError("bid.second_round", suit=turned)
        return
    if bid.kind == TAKE:
        raise IllegalEventError("bid.take_contree")
    if bid.kind == PASS:
        return
    high, double = state._high, state._double
    if bid.kind == "value":
        if double > 1:
            raise IllegalEventError("bid.contre_only", bid=e.bid)
        if bid.trump in _NO_SUIT and not state.rules.sans_tout_atout:
            raise IllegalEventError("bid.no_sans_tout", bid=e.bid)
        if isinstance(bid.value, int) and not (
                state.rules.min_bid <= bid.value <= state.rules.max_bid):
            raise IllegalEventError("bid.range", bid=e.bid, low=state.rules.min_bid,
                                    high=state.rules.max_bid)
        if high is not None and bid.rank <= high.rank:
            raise IllegalEventError("bid.not_above", bid=e.bid, high=str(high))
        if state._high_seat == e.seat:
            raise IllegalEventError("bid.own_bid", seat=e.seat)
        return
    if bid.kind == CONTRE:
        if high is None or state._high_seat is None:
            raise IllegalEventError("bid.nothing_to_contre")
        if double > 1:
            raise IllegalEventError("bid.already_contre")
        if team_of(e.seat) == team_of(state._high_seat):
            raise IllegalEventError("bid.contre_own_team", seat=e.seat)
        return
    if bid.kind == SURCONTRE:
        if double != 2 or state._high_seat is None:
            raise IllegalEventError("bid.surcontre_answers")
        if team_of(e.seat) != team_of(state._high_seat):
            raise IllegalEventError("bid.surcontre_team", seat=e.seat)


def _verify_correction(state: GameState, e: CardCorrected) -> None:
    hand = e.hand if e.hand is not None else state.hand_no
    if find_play(state, hand, e.trick, e.seat) is None:
        raise IllegalEventError("correct.no_card", seat=e.seat, trick=e.trick, hand=hand)
    if hand == state.hand_no:
        plays = [(seat, code_of(card)) for _, seats, cards, _, _ in state.tricks
                 for seat, card in zip(seats, cards, strict=True)]
        plays += [(seat, code_of(card)) for seat, card in zip(state.trick_seats, state.trick,
                                                             strict=True)]
    else:
        record = next(h["record"] for h in state.hands if h["hand_no"] == hand)
        plays = [tuple(p.split(":")) for p in record.get("plays", [])]
    for k, (seat, card) in enumerate(plays):
        if card == e.new and not (k // 4 + 1 == e.trick and seat == e.seat):
            raise IllegalEventError("correct.played", card=e.new, hand=hand,
                                    trick=k // 4 + 1, seat=seat)


def can_apply(state: GameState, event: Event) -> bool:
    """:func:`verify_event` as a bool."""
    try:
        verify_event(state, event)
    except (IllegalEventError, InvalidCardError):
        return False
    return True


def verify_play(state: GameState, event: CardPlayed, hand: Iterable[str] | None = None,
                turn: bool = True) -> None:
    """The one legality question of a card put down: raise ``IllegalEventError``
    saying why ``event`` cannot come now.

    Without ``hand`` (the camera and the web page, which do not see the hands):
    the play must come during the play, in turn, from a seat that has not
    played in this trick, with a card not yet played this hand. With the
    player's ``hand`` known (the tests, the simulator): the card must be in it
    and obey FFB 5.2 and the house-rule settings; the message names the rule.
    ``turn=False`` lets a card put down out of turn through (the fold records
    it as a renonce when it replays a corrected stream).
    """
    seat, code = event.seat, event.card
    if state.phase != "play":
        raise IllegalEventError("play.outside", seat=seat, card=code, phase=state.phase)
    if turn and state.to_play is not None and seat != state.to_play:
        raise IllegalEventError("play.out_of_turn", seat=seat, other=state.to_play)
    if seat in state.trick_seats:
        raise IllegalEventError("play.seat_played", seat=seat, trick=state.trick_no)
    if code is not None and (T.card_index(code) in state.played
                             or any(e.card == code for e, _, _ in state.pending)):
        raise IllegalEventError("play.card_played", card=code)
    if hand is None or code is None:
        return
    held = T.mask_of([str(Card.parse(c)) for c in hand])
    card = T.card_index(code)
    if not held >> card & 1:
        raise IllegalEventError("play.not_held", seat=seat, card=code)
    if not state._known:
        return
    for mask, rule in T.forbidden(card, state.trick, state.mode, state._undertrump,
                                  state._partner_free):
        if held & mask:
            cards = " ".join(T.card_code(c) for c in T.cards_in(held & mask))
            raise IllegalEventError("play.renonce", seat=seat, card=code, rule=rule,
                                    cards=cards)


def verify_seen(state: GameState, event: CardPlayed) -> None:
    """The camera's question for a card it saw settle in a seat's zone: only
    whether a hand is being dealt or played. Out of turn, before the play, or a
    card the state already holds (a person's correction named it), it is stored
    all the same: the fold plays it at its seat's turn (``GameState.pending``),
    so that no card the camera saw is lost and an undo folds it where it
    belongs. Refusals of turn and repeats are for the entries of people
    (:func:`verify_play`)."""
    if state.phase not in ("bidding", "play"):
        raise IllegalEventError("play.outside", seat=event.seat, card=event.card,
                                phase=state.phase)


def can_play(state: GameState, event: CardPlayed, hand: Iterable[str] | None = None,
             turn: bool = True) -> bool:
    """:func:`verify_play` as a bool."""
    try:
        verify_play(state, event, hand, turn)
    except (IllegalEventError, InvalidCardError):
        return False
    return True


def legal_plays(hand: Iterable[str], state: GameState) -> list[str]:
    """The cards of a known ``hand`` that the player to play may put down now
    (FFB 5.2 and the house-rule settings): those for which :func:`verify_play`
    would find no renonce.

    >>> from scorer.events import GameStarted, ContractSet, CardPlayed
    >>> from scorer.fold import replay
    >>> s = replay([GameStarted(dealer="N"), ContractSet("W", 80, "S"), CardPlayed("W", "KH")])
    >>> legal_plays(["7S", "AH", "8C"], s)
    ['AH']
    """
    if state.phase != "play":
        return []
    mask = T.mask_of([str(Card.parse(c)) for c in hand])
    if not state._known:
        return [T.card_code(c) for c in T.cards_in(mask)]
    return [T.card_code(c) for c in T.legal_plays(mask, state.trick, state.mode,
                                                   state._undertrump, state._partner_free)]
