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


class IllegalEventError(ValueError):
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
            raise IllegalEventError("the game has already started")
        try:
            Rules.from_preset(event.rules, event.settings)
        except UnknownSettingError as exc:
            raise IllegalEventError(str(exc)) from None
        return
    if state.phase == "setup":
        raise IllegalEventError("the game has not started (no GameStarted)")
    if isinstance(event, EntryUndone):
        if not 0 <= event.index < len(state.events):
            raise IllegalEventError(f"no entry {event.index} to undo")
        if event.index in state.undone:
            raise IllegalEventError(f"entry {event.index} is already undone")
        target = state.events[event.index]
        if isinstance(target, (EntryUndone, GameStarted)):
            raise IllegalEventError(f"entry {event.index} ({type(target).__name__}) "
                                    "cannot be undone")
        return
    if state.phase == "over":
        raise IllegalEventError(f"the game is over ({state.winner} won)" if state.winner
                                else "the game is over (a draw)")
    if isinstance(event, CardCorrected):
        _verify_correction(state, event)
    elif isinstance(event, CardTurned):
        if state.rules.game != "classic":
            raise IllegalEventError("no turned card in contrée")
        if state.phase != "bidding" or state.turned is not None:
            raise IllegalEventError("the card is turned once, before the bids")
        if event.card is None:
            raise IllegalEventError("the turned card must be named (such as 9H)")
    elif isinstance(event, BidMade):
        _verify_bid(state, event)
    elif isinstance(event, ContractSet):
        if state.phase != "bidding" or state.bids:
            raise IllegalEventError("a contract is entered before any bid of the hand")
        rules = state.rules
        try:
            verify_contract(event.value, event.trump, event.double, rules.min_bid,
                            rules.max_bid, valued=rules.game == "contree")
        except InvalidContractError as exc:
            raise IllegalEventError(exc.reason) from None
    elif isinstance(event, CardPlayed):
        verify_play(state, event)
    elif isinstance(event, BeloteAnnounced):
        if state.phase != "play":
            raise IllegalEventError("belote is announced during the play")
        if state.mode == T.NT:
            raise IllegalEventError("no belote at Sans Atout")
    elif isinstance(event, TallyEntered):
        if state.phase != "play" or state.played:
            raise IllegalEventError("a tally replaces the play of a hand: enter it before "
                                    "any card")
        if set(event.points) != set(TEAMS) or set(event.tricks) != set(TEAMS):
            raise IllegalEventError("a tally gives points and tricks for NS and EW")
        if sum(event.tricks.values()) != 8:
            raise IllegalEventError("a tally's tricks add up to 8")
        _verify_tally_belote(state, event.belote)


def _verify_tally_belote(state: GameState, belote: Any) -> None:
    """FFB 7, 11.2, 11.3 (``scorer.scoring.belotes_allowed``): no belote at Sans
    Atout, up to four at Tout Atout, one at a suit."""
    teams = [belote] if isinstance(belote, str) else belote
    if teams is None:
        return
    if not isinstance(teams, list) or any(t not in TEAMS for t in teams):
        raise IllegalEventError(f"a tally's belote is NS, EW, a list of them or null, "
                                f"not {belote!r}")
    trump = (state.contract or {}).get("trump")
    allowed = belotes_allowed(trump)
    if len(teams) > allowed:
        raise IllegalEventError(
            "no belote at Sans Atout (FFB 11.2)" if allowed == 0 else
            f"at most {allowed} belote{'s' if allowed > 1 else ''} in this hand "
            f"({'FFB 11.3: one per suit at Tout Atout' if allowed > 1 else 'FFB 7'})")


def _verify_bid(state: GameState, e: BidMade) -> None:
    if state.phase != "bidding":
        raise IllegalEventError(f"{e.seat} bid {e.bid!r} outside the auction")
    if state.to_speak is None:
        raise IllegalEventError("turn the card before the bids")
    if e.seat != state.to_speak:
        raise IllegalEventError(f"{e.seat} spoke out of turn, {state.to_speak} to speak")
    try:
        bid = Bid.parse(e.bid)
    except InvalidBidError as exc:
        raise IllegalEventError(str(exc)) from None
    if state.rules.game == "classic":
        if bid.kind == PASS:
            return
        if bid.kind != TAKE:
            raise IllegalEventError(f"{e.bid!r}: classic belote bids are pass, take, take:S")
        turned = (state.turned or "")[1:]
        if state._round == 1 and bid.trump not in (None, turned):
            raise IllegalEventError(f"first round: take the turned suit {turned}")
        if state._round == 2 and (bid.trump is None or bid.trump == turned):
            raise IllegalEventError(f"second round: name a suit other than {turned}")
        return
    if bid.kind == TAKE:
        raise IllegalEventError("'take' is classic belote; contrée bids a value and a trump")
    if bid.kind == PASS:
        return
    high, double = state._high, state._double
    if bid.kind == "value":
        if double > 1:
            raise IllegalEventError(f"{e.bid!r}: the contract is contré, only pass or "
                                    "surcontre")
        if bid.trump in _NO_SUIT and not state.rules.sans_tout_atout:
            raise IllegalEventError(f"{e.bid!r}: Sans Atout / Tout Atout bids are not in "
                                    "these rules")
        if isinstance(bid.value, int) and not (
                state.rules.min_bid <= bid.value <= state.rules.max_bid):
            raise IllegalEventError(f"{e.bid!r}: bids go from {state.rules.min_bid} to "
                                    f"{state.rules.max_bid}")
        if high is not None and bid.rank <= high.rank:
            raise IllegalEventError(f"{e.bid!r} is not above {high}")
        if state._high_seat == e.seat:
            raise IllegalEventError(f"{e.seat} cannot bid over their own bid")
        return
    if bid.kind == CONTRE:
        if high is None or state._high_seat is None:
            raise IllegalEventError("nothing to contre")
        if double > 1:
            raise IllegalEventError("already contré")
        if team_of(e.seat) == team_of(state._high_seat):
            raise IllegalEventError(f"{e.seat} cannot contre their own team's bid")
        return
    if bid.kind == SURCONTRE:
        if double != 2 or state._high_seat is None:
            raise IllegalEventError("surcontre answers a contre")
        if team_of(e.seat) != team_of(state._high_seat):
            raise IllegalEventError(f"{e.seat}: only the contré team surcontres")


def _verify_correction(state: GameState, e: CardCorrected) -> None:
    hand = e.hand if e.hand is not None else state.hand_no
    if find_play(state, hand, e.trick, e.seat) is None:
        raise IllegalEventError(f"no card of {e.seat} in trick {e.trick} of hand {hand}")
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
            raise IllegalEventError(f"{e.new} has already been played in hand {hand} "
                                    f"(trick {k // 4 + 1}, {seat})")


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
        raise IllegalEventError(f"{seat} played {code} outside the play ({state.phase})")
    if turn and state.to_play is not None and seat != state.to_play:
        raise IllegalEventError(f"{seat} played out of turn, {state.to_play} to play")
    if seat in state.trick_seats:
        raise IllegalEventError(f"{seat} has already played in trick {state.trick_no}")
    if code is not None and T.card_index(code) in state.played:
        raise IllegalEventError(f"{code} has already been played in this hand")
    if hand is None or code is None:
        return
    held = T.mask_of([str(Card.parse(c)) for c in hand])
    card = T.card_index(code)
    if not held >> card & 1:
        raise IllegalEventError(f"{seat} does not hold {code}")
    if not state._known:
        return
    for mask, rule in T.forbidden(card, state.trick, state.mode, state._undertrump,
                                  state._partner_free):
        if held & mask:
            cards = " ".join(T.card_code(c) for c in T.cards_in(held & mask))
            raise IllegalEventError(f"{seat} played {code}: renonce ({rule}), "
                                    f"holding {cards}")


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
