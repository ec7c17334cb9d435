"""The events a game is made of. A game's state is a pure fold over them
(``scorer.game.replay``); they are the only thing the store keeps.

Each event is a small frozen value with a JSON form both ways:

>>> e = CardPlayed(seat="W", card="7H")
>>> e.to_json()
{'type': 'CardPlayed', 'seat': 'W', 'card': '7H'}
>>> event_from_json({'type': 'CardPlayed', 'seat': 'W', 'card': '7H'}) == e
True
>>> event_from_json({'type': 'CardPlayed', 'seat': 'X', 'card': '7H'})
Traceback (most recent call last):
...
scorer.events.InvalidEventError: CardPlayed.seat: not a seat: 'X' (one of N E S W)

Where an event came from (camera, web, simulator), when, with what confidence
and by whom is kept by the store beside the event, not in it: the rules engine
has no clock.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from scorer.cards import Card, InvalidCardError, check_seat
from scorer.errors import ScorerError


class InvalidEventError(ScorerError):
    """An event that is malformed in itself (unknown type, bad field)."""


@dataclass(frozen=True)
class Event:
    """Base of all events."""

    TYPES: ClassVar[dict[str, type[Event]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        Event.TYPES[cls.__name__] = cls

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            try:
                if f.name in ("seat", "taker", "dealer") and value is not None:
                    check_seat(value)
                elif f.name in ("card", "old", "new") and value is not None:
                    object.__setattr__(self, f.name, str(Card.parse(value)))
            except InvalidCardError as exc:
                raise InvalidEventError.wrap(exc, f"{type(self).__name__}.{f.name}") from None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in dataclasses.fields(self):
            out[f.name] = getattr(self, f.name)
        return out


def event_from_json(data: Any) -> Event:
    """Build an event from its JSON form; raise ``InvalidEventError`` saying why not."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise InvalidEventError("event.not_event", value=data)
    cls = Event.TYPES.get(data["type"])
    if cls is None:
        raise InvalidEventError("event.unknown_type", value=data["type"])
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(data) - names - {"type"}
    if extra:
        raise InvalidEventError("event.unknown_fields", places=(data["type"],),
                                fields=sorted(extra))
    try:
        return cls(**{k: v for k, v in data.items() if k != "type"})
    except TypeError as exc:
        raise InvalidEventError("event.arguments", places=(data["type"],),
                                error=str(exc)) from None


@dataclass(frozen=True)
class GameStarted(Event):
    """A new game: rule preset and overrides, first dealer, names."""

    rules: str = "ffb"
    settings: dict[str, Any] = field(default_factory=dict)
    dealer: str = "N"
    teams: dict[str, str] = field(default_factory=lambda: {"NS": "NS", "EW": "EW"})
    players: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CardTurned(Event):
    """Classic belote: the card turned up after the first deal."""

    card: str


@dataclass(frozen=True)
class BidMade(Event):
    """One spoken bid, in the notation of docs/design.md (``pass``, ``80H``, ``contre``...)."""

    seat: str
    bid: str


@dataclass(frozen=True)
class ContractSet(Event):
    """The final contract entered directly, without the auction.
    ``value`` is an int or ``"capot"``; ``double`` is 1, 2 or 4."""

    taker: str
    value: int | str
    trump: str
    double: int = 1


@dataclass(frozen=True)
class CardPlayed(Event):
    """A card put down. ``card`` is None for a card not read yet ("unknown card
    at seat X"); a later ``CardCorrected`` names it."""

    seat: str
    card: str | None


@dataclass(frozen=True)
class CardCorrected(Event):
    """The card played by ``seat`` in trick ``trick`` (from 1) of the current
    hand was ``new``, not what was recorded. Everything after is re-derived."""

    seat: str
    trick: int
    new: str
    hand: int | None = None


@dataclass(frozen=True)
class BeloteAnnounced(Event):
    """``seat`` announced belote (or rebelote) in the current hand."""

    seat: str


@dataclass(frozen=True)
class EntryUndone(Event):
    """Cancel the event at position ``index`` (from 0) of this game's stream."""

    index: int


@dataclass(frozen=True)
class TallyEntered(Event):
    """The current hand's outcome entered as a tally, for scoring alone.
    ``belote``: the team credited with it, or a list with a team per belote
    (Tout Atout has up to four, FFB 11.3)."""

    points: dict[str, int]
    tricks: dict[str, int]
    belote: str | list[str] | None = None


@dataclass(frozen=True)
class GameEnded(Event):
    """The game ends now, before its target: the organiser's decision
    (``reason`` "organiser") or the time limit ("time"). The hand in play, if
    any, is left unscored; the higher total wins, equal totals are a draw."""

    REASONS: ClassVar[tuple[str, ...]] = ("organiser", "time")

    reason: str = "organiser"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reason not in self.REASONS:
            raise InvalidEventError("event.end_reason", places=("GameEnded.reason",),
                                    value=self.reason, choices=", ".join(self.REASONS))
