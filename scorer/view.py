"""The view of a game: frozen records of what the pages, the exports and the
display read (``GameState.view()``), and their JSON form (``to_json``), word
for word ``GameState.to_json()``, for the edges: the store, the bus, the API,
MQTT and the display's serial line.

A reader takes fields (``view.contract.taker``, ``hand.result.score["NS"]``),
never ``.get("...")`` on a dictionary; JSON heard on the bus comes back as a
view with :meth:`GameView.from_json`.

>>> from scorer.events import GameStarted, ContractSet
>>> from scorer.fold import replay
>>> v = replay([GameStarted(dealer="N"), ContractSet("W", 80, "H")]).view()
>>> v.contract
Contract(taker='W', value=80, trump='H', double=1)
>>> v.to_play, v.scores["NS"], v.target
('W', 0, 1000)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from scorer.rules import Rules


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class Contract:
    """The contract of a hand: ``value`` 80..160, "capot", or None (classic belote)."""

    taker: str
    value: int | str | None
    trump: str
    double: int = 1

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Contract:
        return cls(data["taker"], data["value"], data["trump"], int(data.get("double", 1)))

    def to_json(self) -> dict[str, Any]:
        return {"taker": self.taker, "value": self.value, "trump": self.trump,
                "double": self.double}


@dataclass(frozen=True, slots=True)
class Play:
    """One card of the trick in progress (``card`` None: not read)."""

    seat: str
    card: str | None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": self.card}


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick; ``winner`` and ``points`` are None when a card of it is unknown."""

    leader: str
    seats: tuple[str, ...]
    cards: tuple[str | None, ...]
    winner: str | None
    points: int | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Trick:
        return cls(data["leader"], tuple(data["seats"]), tuple(data["cards"]), data["winner"],
                   data["points"])

    def to_json(self) -> dict[str, Any]:
        return {"leader": self.leader, "cards": list(self.cards), "seats": list(self.seats),
                "winner": self.winner, "points": self.points}


@dataclass(frozen=True, slots=True)
class Renonce:
    """A renonce of ``seat`` in ``trick``, breaking ``rule`` ("turn": played out of
    turn), proved by ``proof_card`` played in ``proof_trick``, in hand ``hand_no``
    (the hand is not in the JSON form: the renonce is listed under its hand)."""

    seat: str
    trick: int
    rule: str
    proof_trick: int
    proof_card: str | None
    hand_no: int = 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any], hand_no: int = 0) -> Renonce:
        proof = data["proof"]
        return cls(data["seat"], data["trick"], data["rule"], proof["trick"], proof["card"],
                   hand_no)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "trick": self.trick, "rule": self.rule,
                "proof": {"trick": self.proof_trick, "card": self.proof_card}}


@dataclass(frozen=True, slots=True)
class UnknownCard:
    """A card put down that the camera could not read."""

    seat: str
    trick: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UnknownCard:
        return cls(data["seat"], data["trick"])

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "trick": self.trick}


@dataclass(frozen=True, slots=True)
class SpokenBid:
    """A bid spoken, as written (``80H``, ``pass``, ``take:S``)."""

    seat: str
    bid: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bid": self.bid}


@dataclass(frozen=True, slots=True)
class HandResult:
    """What a finished hand gave (docs/design.md's result). ``contract`` None: every
    player passed. ``made`` None: no contract, or a litige. ``held_over``: points
    held over to the next hand (None when the result says nothing of them)."""

    contract: Contract | None
    tricks: tuple[Trick, ...]
    points: Mapping[str, int]
    tricks_won: Mapping[str, int]
    belote: str | None
    belotes: Mapping[str, int]
    made: bool | None
    score: Mapping[str, int]
    renonces: tuple[Renonce, ...]
    parts: Mapping[str, tuple[Mapping[str, Any], ...]]
    held_over: int | None = None
    cancelled: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any], hand_no: int = 0) -> HandResult:
        contract = data["contract"]
        return cls(
            contract=None if contract is None else Contract.from_json(contract),
            tricks=tuple(Trick.from_json(t) for t in data["tricks"]),
            points=_frozen(data["points"]), tricks_won=_frozen(data["tricks_won"]),
            belote=data["belote"], belotes=_frozen(data["belotes"]), made=data["made"],
            score=_frozen(data["score"]),
            renonces=tuple(Renonce.from_json(r, hand_no) for r in data["renonces"]),
            parts=MappingProxyType({t: tuple(_frozen(p) for p in ps)
                                    for t, ps in data["parts"].items()}),
            held_over=data.get("held_over"), cancelled=bool(data.get("cancelled")))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "contract": None if self.contract is None else self.contract.to_json(),
            "tricks": [t.to_json() for t in self.tricks],
            "points": dict(self.points), "tricks_won": dict(self.tricks_won),
            "belote": self.belote, "belotes": dict(self.belotes), "made": self.made,
            "score": dict(self.score), "renonces": [r.to_json() for r in self.renonces],
            "parts": {t: [dict(p) for p in ps] for t, ps in self.parts.items()},
        }
        if self.held_over is not None:
            out["held_over"] = self.held_over
        if self.cancelled:
            out["cancelled"] = True
        return out


@dataclass(frozen=True, slots=True)
class HandView:
    """A finished hand: its number, its dealer, its hand record (docs/design.md's
    format, JSON by design: it is what is exported and scored again) and its result."""

    hand_no: int
    dealer: str
    record: Mapping[str, Any]
    result: HandResult

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandView:
        return cls(data["hand_no"], data["dealer"], _frozen(data["record"]),
                   HandResult.from_json(data["result"], data["hand_no"]))

    def to_json(self) -> dict[str, Any]:
        return {"hand_no": self.hand_no, "dealer": self.dealer, "record": dict(self.record),
                "result": self.result.to_json()}


@dataclass(frozen=True, slots=True)
class GameView:
    """Everything the pages and the display read of a game, after its events."""

    phase: str                        # setup, bidding, play or over
    rules: Rules
    preset: str
    teams: Mapping[str, str]          # team code -> name
    players: Mapping[str, str]        # seat -> name
    scores: Mapping[str, int]
    hand_no: int
    dealer: str
    bids: tuple[SpokenBid, ...]
    to_speak: str | None
    turned: str | None
    contract: Contract | None
    trick_no: int
    leader: str | None                # of the trick in progress
    current: tuple[Play, ...]         # the trick in progress
    to_play: str | None
    tricks: tuple[Trick, ...]         # this hand's finished tricks
    tricks_won: Mapping[str, int]
    card_points: Mapping[str, int]
    belote: tuple[str, ...]           # seats that announced belote this hand
    renonces: tuple[Renonce, ...]     # this hand's
    unknown: tuple[UnknownCard, ...]  # this hand's
    played: tuple[str | None, ...]    # this hand's cards in order
    hands: tuple[HandView, ...]
    winner: str | None
    ended: str | None                 # organiser, time, hands, or None

    @property
    def target(self) -> int:
        return self.rules.target

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameView:
        """The view of ``GameState.to_json()`` (as the bus or the API carry it)."""
        hand_no = data["hand_no"]
        current = data["current_trick"]
        return cls(
            phase=data["phase"], rules=Rules(**data["rules"]), preset=data["preset"],
            teams=_frozen(data["teams"]), players=_frozen(data["players"]),
            scores=_frozen(data["scores"]), hand_no=hand_no, dealer=data["dealer"],
            bids=tuple(SpokenBid(b["seat"], b["bid"]) for b in data["bids"]),
            to_speak=data["to_speak"], turned=data["turned"],
            contract=None if data["contract"] is None else Contract.from_json(data["contract"]),
            trick_no=data["trick_no"], leader=current["leader"],
            current=tuple(Play(c["seat"], c["card"]) for c in current["cards"]),
            to_play=data["to_play"], tricks=tuple(Trick.from_json(t) for t in data["tricks"]),
            tricks_won=_frozen(data["tricks_won"]), card_points=_frozen(data["card_points"]),
            belote=tuple(data["belote"]),
            renonces=tuple(Renonce.from_json(r, hand_no) for r in data["renonces"]),
            unknown=tuple(UnknownCard.from_json(u) for u in data["unknown"]),
            played=tuple(data["played"]), hands=tuple(HandView.from_json(h)
                                                     for h in data["hands"]),
            winner=data["winner"], ended=data["ended"])

    def to_json(self) -> dict[str, Any]:
        """``GameState.to_json()``, key for key."""
        return {
            "phase": self.phase, "rules": self.rules.to_json(), "preset": self.preset,
            "target": self.target, "teams": dict(self.teams), "players": dict(self.players),
            "scores": dict(self.scores), "hand_no": self.hand_no, "dealer": self.dealer,
            "bids": [b.to_json() for b in self.bids], "to_speak": self.to_speak,
            "turned": self.turned,
            "contract": None if self.contract is None else self.contract.to_json(),
            "trick_no": self.trick_no,
            "current_trick": {"leader": self.leader, "cards": [c.to_json() for c in self.current]},
            "to_play": self.to_play, "tricks": [t.to_json() for t in self.tricks],
            "tricks_won": dict(self.tricks_won), "card_points": dict(self.card_points),
            "belote": list(self.belote), "renonces": [r.to_json() for r in self.renonces],
            "unknown": [u.to_json() for u in self.unknown], "played": list(self.played),
            "hands": [h.to_json() for h in self.hands], "winner": self.winner,
            "ended": self.ended,
        }

    def all_renonces(self) -> tuple[Renonce, ...]:
        """Every renonce of the game: the finished hands', then the hand in play's."""
        return tuple(r for h in self.hands for r in h.result.renonces) + (
            () if self.phase == "over" else self.renonces)
