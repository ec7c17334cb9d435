"""The scorer's refusals: a stable ``code``, the ``values`` it names, and the
``places`` where it happened (``bids[1]``, ``setting 'target'``), outermost first.

The scorer speaks no language of its own: :data:`MESSAGES` holds the English
message of each code, as plain data, and ``str(error)`` is that message behind
its places (``"bids[1]: 85H is not above 90H"``), as the command line, the logs
and the tests read it. The layer that shows text to people (``companion.reasons``)
keeps its own table of French and English texts keyed by the same codes, and
says an error from its code and values, never from its English words.

>>> e = ScorerError("bid.not_above", bid="80H", high="90H")
>>> e.code, e.values, str(e)
('bid.not_above', {'bid': '80H', 'high': '90H'}, "'80H' is not above 90H")
>>> str(ScorerError.wrap(e, "bids[1]"))
"bids[1]: '80H' is not above 90H"
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

_E = TypeVar("_E", bound="ScorerError")

#: The English message of each code (``str.format`` with the error's values).
MESSAGES: Final[dict[str, str]] = {
    # -- cards, seats, teams (scorer.cards) --
    "card.not_card": "not a card: {value!r}",
    "card.not_belote_card": "not a belote card: {value!r}",
    "card.bad_parts": "not a belote card: {value}",
    "card.written_form": ("not a belote card: {value!r} (rank then suit: 7 8 9 10 J Q K A, or "
                          "V D R and 1 for the ace as French decks print them; suit S H D C "
                          "or ♠ ♥ ♦ ♣)"),
    "seat.not_seat": "not a seat: {value!r} (one of N E S W)",
    "team.not_team": "not a team: {value!r} (NS or EW)",
    # -- bids and contracts (scorer.bidding) --
    "bid.not_bid": "not a bid: {value!r}",
    "bid.not_notation": "not a bid: {value!r} (80..160 by tens, or capot, then S H D C NT AT)",
    "contract.value": "not a contract value: {value!r} (capot, or {low} to {high} by tens)",
    "contract.trump": "not a trump: {value!r} (one of {trumps})",
    "contract.double": "{value!r} is not 1, 2 (contré) or 4 (surcontré)",
    # -- events (scorer.events) --
    "event.not_event": "not an event (no 'type'): {value!r}",
    "event.unknown_type": "unknown event type {value!r}",
    "event.unknown_fields": "unknown field(s) {fields}",
    "event.arguments": "{error}",
    "event.end_reason": "{value!r} is not one of {choices}",
    "event.misfit": "it does not fit the game there",
    # -- rules and settings (scorer.rules) --
    "rules.unknown_preset": "unknown rule preset {value!r} (known: {known})",
    "rules.settings_kind": "settings are an object of name: value, not {kind}",
    "rules.unknown_setting": "unknown setting {name} (known: {known})",
    "rules.min_over_max": "{low} is over 'max_bid' {high}",
    "rules.not_bool": "expected true or false, got {value}",
    "rules.not_multiple": "{value} is not a multiple of {step}",
    "rules.not_choice": "{value} is not one of {choices}",
    # -- input checks (scorer.validate) --
    "input.not_whole": "expected a whole number, got {value}",
    "input.out_of_range": "{number} is out of range ({low} to {high})",
    "input.too_many_digits": "a number of {digits} digits (at most {most})",
    "input.json_constant": "{name} is not a number JSON allows",
    "input.not_utf8": "not UTF-8 text (byte {byte})",
    "input.not_json": "line {line} column {column}: not JSON: {message}",
    "input.not_json_other": "not JSON: {error}",
    "input.too_deep": "nested deeper than {depth} levels",
    "input.not_seat": "not a seat: {value} (one of N E S W)",
    "input.not_card": "not a card: {value} (a card such as TH)",
    "input.not_bid": "not a bid: {value}",
    "input.settings_kind": "settings are an object of name: value, not {value}",
    "input.not_preset": "not a preset name: {value}",
    # -- whether an event may come now (scorer.verify, scorer.fold) --
    "game.started": "the game has already started",
    "game.not_started": "the game has not started (no GameStarted)",
    "game.over_won": "the game is over ({winner} won)",
    "game.over_draw": "the game is over (a draw)",
    "undo.no_entry": "no entry {index} to undo",
    "undo.already": "entry {index} is already undone",
    "undo.cannot": "entry {index} ({kind}) cannot be undone",
    "turn.contree": "no turned card in contrée",
    "turn.once": "the card is turned once, before the bids",
    "turn.unnamed": "the turned card must be named (such as 9H)",
    "contract.after_bids": "a contract is entered before any bid of the hand",
    "belote.outside_play": "belote is announced during the play",
    "belote.sans_atout": "no belote at Sans Atout",
    "tally.after_cards": "a tally replaces the play of a hand: enter it before any card",
    "tally.teams": "a tally gives points and tricks for NS and EW",
    "tally.tricks_sum": "a tally's tricks add up to 8",
    "tally.points_sum": ("the two teams' points make {total} ({NS} + {EW}), not {expected}: "
                         "{cards} card points and 10 for the last trick"),
    "tally.capot_points": ("a capot makes {expected} points for the team with the 8 tricks "
                           "({team}) and 0 for the other, not {points} and {other}"),
    "tally.belote_kind": "a tally's belote is NS, EW, a list of them or null, not {value!r}",
    "tally.belote_sans_atout": "no belote at Sans Atout (FFB 11.2)",
    "tally.one_belote": "at most 1 belote in this hand (FFB 7)",
    "tally.belotes_tout_atout": ("at most {allowed} belotes in this hand (FFB 11.3: one per "
                                 "suit at Tout Atout)"),
    "bid.outside": "{seat} bid {bid!r} outside the auction",
    "bid.unturned": "turn the card before the bids",
    "bid.out_of_turn": "{seat} spoke out of turn, {other} to speak",
    "bid.classic_kind": "{bid!r}: classic belote bids are pass, take, take:S",
    "bid.first_round": "first round: take the turned suit {suit}",
    "bid.second_round": "second round: name a suit other than {suit}",
    "bid.take_contree": "'take' is classic belote; contrée bids a value and a trump",
    "bid.contre_only": "{bid!r}: the contract is contré, only pass or surcontre",
    "bid.no_sans_tout": "{bid!r}: Sans Atout / Tout Atout bids are not in these rules",
    "bid.range": "{bid!r}: bids go from {low} to {high}",
    "bid.not_above": "{bid!r} is not above {high}",
    "bid.own_bid": "{seat} cannot bid over their own bid",
    "bid.nothing_to_contre": "nothing to contre",
    "bid.already_contre": "already contré",
    "bid.contre_own_team": "{seat} cannot contre their own team's bid",
    "bid.surcontre_answers": "surcontre answers a contre",
    "bid.surcontre_team": "{seat}: only the contré team surcontres",
    "correct.no_card": "no card of {seat} in trick {trick} of hand {hand}",
    "correct.played": "{card} has already been played in hand {hand} (trick {trick}, {seat})",
    "play.outside": "{seat} played {card} outside the play ({phase})",
    "play.out_of_turn": "{seat} played out of turn, {other} to play",
    "play.seat_played": "{seat} has already played in trick {trick}",
    "play.card_played": "{card} has already been played in this hand",
    "play.not_held": "{seat} does not hold {card}",
    "play.renonce": "{seat} played {card}: renonce ({rule}), holding {cards}",
    # -- hand records (scorer.record) --
    "record.not_object": "a hand record is a JSON object, not {kind}",
    "record.unknown_key": "unknown key (known: {known})",
    "record.not_list": "expected a list, got {kind}",
    "record.preset_name": "not a preset name: {value!r}",
    "record.rules_kind": "a preset name or an object of settings, not {value!r}",
    "record.unknown_preset": "unknown preset {value!r} (known: {known})",
    "record.turned_missing": "a classic belote record names the turned card",
    "record.turned_contree": "only classic belote turns a card",
    "record.bids_and_contract": "give bids or a contract, not both",
    "record.contract_kind": "an object with taker, value, trump (double)",
    "record.auction_over": "the auction is already over",
    "record.auction_open": "the auction is not over ({seat} to speak)",
    "record.passed_out": "every player passed, there is no play",
    "record.plays_and_tally": "give plays or a tally, not both",
    "record.hand_over": "the hand is over after 32 cards",
    "record.play_form": "expected 'seat:card' such as 'W:7H', got {value!r}",
    "record.play_count": "{count} cards, a hand has 32",
    "record.card_again": "{card} is played twice: by {first} in trick {trick}, then by {seat}",
    "record.dealer_missing": ("no dealer: {seat} plays first, which is out of turn when N "
                              "deals (the default); give \"dealer\": \"{dealer}\""),
    "record.tally_kind": "an object such as {example}",
    "record.missing": "missing",
    "record.not_object_part": "expected an object",
    "record.tally_number": "expected a whole number, got {value!r}",
    "record.tally_belote": "NS, EW, a list of them (one per belote) or null",
    "record.no_hand": "no finished hand to export",
    "record.no_hand_number": "no finished hand number {hand_no}",
    # A reason a layer above gives as text (its own checks): not one of the scorer's.
    "text": "{text}",
}


class ScorerError(ValueError):
    """A refusal of the scorer: ``code`` (a key of :data:`MESSAGES`), ``values``
    (what the message names) and ``places`` (where, outermost first)."""

    code: str
    values: dict[str, Any]
    places: tuple[str, ...]

    def __init__(self, code: str, /, *, places: tuple[str, ...] = (), **values: Any) -> None:
        if code not in MESSAGES:
            if values:
                raise KeyError(f"no message for error code {code!r}")
            code, values = "text", {"text": code}
        self.code = code
        self.values = values
        self.places = tuple(places)
        super().__init__(str(self))

    @property
    def message(self) -> str:
        """The English message of the code alone, without its places."""
        return MESSAGES[self.code].format(**self.values)

    def __str__(self) -> str:
        return ": ".join((*self.places, self.message))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.code, self.places, self.values))

    @classmethod
    def wrap(cls: type[_E], error: ScorerError, *places: str, drop: int = 0) -> _E:
        """``error``'s code and values as a ``cls``, at ``places`` then ``error``'s
        own places less its first ``drop``."""
        return _rebuild(cls, error.code, (*places, *error.places[drop:]), error.values)


class FieldError(ScorerError):
    """A refusal of one field of an input: ``field`` names it (the first place),
    ``reason`` says why (the rest of the places, then the message)."""

    def __init__(self, field: str, code: str, /, **values: Any) -> None:
        super().__init__(code, places=(field,), **values)

    @property
    def field(self) -> str:
        return self.places[0]

    @property
    def reason(self) -> str:
        return ": ".join((*self.places[1:], self.message))


def _rebuild(cls: type[_E], code: str, places: tuple[str, ...], values: dict[str, Any]) -> _E:
    error = cls.__new__(cls)
    ScorerError.__init__(error, code, places=places, **values)
    return error
