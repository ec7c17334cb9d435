"""Cards, seats, teams and trump modes in the project's notation.

A card is rank then suit (``TH`` is the ten of hearts); seats are ``N E S W``;
teams are ``NS`` and ``EW``; a trump mode is a suit, ``NT`` (sans atout) or
``AT`` (tout atout). The one place each of these is written down: the rest
of the project (web, vision's lab, the CLI) imports them from here, and the
firmware's own copy is checked against them by a test.

>>> Card.parse("JH")
Card('JH')
>>> str(Card.parse("th"))
'TH'
>>> len(DECK)
32
>>> team_of("E")
'EW'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from scorer.errors import ScorerError

Rank = str
Suit = str
Seat = str
Team = str

RANKS: Final = ("7", "8", "9", "T", "J", "Q", "K", "A")
SUITS: Final = ("S", "H", "D", "C")
SEATS: Final = ("N", "E", "S", "W")
TEAMS: Final = ("NS", "EW")
#: Trump modes: the four suits, then sans atout and tout atout.
TRUMPS: Final = (*SUITS, "NT", "AT")
#: The card notation as a regular expression (for schemas): what ``Card.parse``
#: reads, upper case; ``10`` is accepted for the ten.
CARD_PATTERN: Final = "^(10|[" + "".join(RANKS) + "])[" + "".join(SUITS) + "]$"

SUIT_NAMES_FR: Final = {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"}
SUIT_NAMES_EN: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
# French indices: roi, dame, valet; 10 is written as such on both decks.
RANK_INDEX_FR: Final = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "V", "Q": "D",
                        "K": "R", "A": "A"}
RANK_INDEX_EN: Final = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "J", "Q": "Q",
                        "K": "K", "A": "A"}

TeamName = Literal["NS", "EW"]


class InvalidCardError(ScorerError):
    """A card, seat or suit that is not in the project's notation."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One of the 32 belote cards."""

    rank: Rank
    suit: Suit

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS:
            raise InvalidCardError("card.bad_parts", value=f"{self.rank}{self.suit}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card such as ``TH``; case does not matter, ``10H`` is accepted.

        >>> Card.parse("10s")
        Card('TS')
        >>> Card.parse("5C")
        Traceback (most recent call last):
        ...
        scorer.cards.InvalidCardError: not a belote card: '5C'
        """
        if not isinstance(text, str):
            raise InvalidCardError("card.not_card", value=text)
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
            raise InvalidCardError("card.not_belote_card", value=text)
        return _CARDS[t]

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card('{self}')"


_CARDS: Final = {r + s: Card(r, s) for s in SUITS for r in RANKS}
DECK: Final = tuple(_CARDS.values())
CARD_CODES: Final = tuple(_CARDS)


#: How people write a card's rank besides the notation: the French indices the
#: pages show (V D R for valet, dame, roi), the ace as 1 (real French decks), 10.
RANKS_WRITTEN: Final = {**{r: r for r in RANKS}, "10": "T", "V": "J", "D": "Q", "R": "K",
                        "1": "A"}
#: A suit as a letter of the notation or as its symbol (with or without the emoji
#: variation selector a phone may add).
SUITS_WRITTEN: Final = {**{s: s for s in SUITS}, **{sym: s for s, sym in SUIT_SYMBOLS.items()},
                        "♤": "S", "♡": "H", "♢": "D", "♧": "C"}


def read_card(text: object) -> Card:
    """A card as a person writes it: the notation (``TH``, ``10h``), the pages'
    French indices (``V♥``, ``10♦``, ``D♠``, ``R♣``, the ace ``A`` or ``1``) with
    the suit as a letter (``S H D C``) or a symbol. No French rank is a letter of
    the notation, so nothing reads two ways. Refused with what is expected
    (``card.written_form``).

    >>> [str(read_card(t)) for t in ("V♥", "10♦", "RS", "1♣", "dh", "Q♠️", "th")]
    ['JH', 'TD', 'KS', 'AC', 'QH', 'QS', 'TH']
    """
    if not isinstance(text, str):
        raise InvalidCardError("card.written_form", value=text)
    t = text.strip().upper().replace("\ufe0f", "")
    rank, suit = RANKS_WRITTEN.get(t[:-1]), SUITS_WRITTEN.get(t[-1:])
    if rank is None or suit is None:
        raise InvalidCardError("card.written_form", value=text)
    return _CARDS[rank + suit]


def check_seat(seat: str) -> Seat:
    """Return ``seat`` if it is one of ``N E S W``, else raise.

    >>> check_seat("X")
    Traceback (most recent call last):
    ...
    scorer.cards.InvalidCardError: not a seat: 'X' (one of N E S W)
    """
    if seat not in SEATS:
        raise InvalidCardError("seat.not_seat", value=seat)
    return seat


def team_of(seat: Seat) -> Team:
    """The team a seat plays for."""
    return "NS" if check_seat(seat) in ("N", "S") else "EW"


def partner_of(seat: Seat) -> Seat:
    """The seat opposite.

    >>> partner_of("W")
    'E'
    """
    return SEATS[(SEATS.index(check_seat(seat)) + 2) % 4]


def other_team(team: Team) -> Team:
    """The opposing team.

    >>> other_team("NS")
    'EW'
    """
    if team not in TEAMS:
        raise InvalidCardError("team.not_team", value=team)
    return "EW" if team == "NS" else "NS"


def next_seat(seat: Seat, clockwise: bool = False) -> Seat:
    """The next player. Counterclockwise (FFB 3.4, 5.1) by default: the player
    on the right, N → W → S → E → N.

    >>> next_seat("N"), next_seat("N", clockwise=True)
    ('W', 'E')
    """
    step = 1 if clockwise else -1
    return SEATS[(SEATS.index(check_seat(seat)) + step) % 4]
