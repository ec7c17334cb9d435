"""What the organiser may enter, read from a form or a JSON body into events.

The one place where the web page and the JSON API check their input: both
call these functions, so a bad request gets the same message either way.
Input that is malformed in itself raises ``EntryError`` naming the field and
the reason; whether the event may happen now is the rules engine's question
(``TableService.submit`` asks it).

>>> from scorer.events import ContractSet, GameStarted
>>> from scorer.game import replay
>>> view = replay([GameStarted(dealer="N"), ContractSet("W", 80, "H")]).view()
>>> read_play({"seat": "w", "card": "10h"}, view)
CardPlayed(seat='W', card='TH')
>>> read_play({"card": "5H"}, view)
Traceback (most recent call last):
...
web.entries.EntryError: card: not a belote card: '5H'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from scorer.bidding import DOUBLES, Bid, InvalidBidError, InvalidContractError, verify_contract
from scorer.cards import SEATS, TEAMS, Card, InvalidCardError
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
    InvalidEventError,
    TallyEntered,
)
from scorer.rules import PRESETS, RANGES, Rules, UnknownSettingError
from scorer.validate import InvalidInputError, read_json, whole_number
from scorer.view import GameView

E = TypeVar("E", bound=Event)

NAME_MAX = 40
# The highest contract value a form may carry, whatever the rule set.
CONTRACT_MAX = 500
PIN_RE = re.compile(r"^[0-9]{6,8}$")


class EntryError(InvalidInputError):
    """Bad input: ``field`` names where, the message says why."""


def _text(data: Mapping[str, Any], field: str, default: str = "") -> str:
    value = data.get(field, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise EntryError(field, "expected text")
    if isinstance(value, int) and abs(value) >= 10 ** 12:
        raise EntryError(field, "expected text, got a number over 12 digits")
    return str(value).strip()


def _seat(data: Mapping[str, Any], field: str, default: str | None = None) -> str:
    value = _text(data, field).upper() or default
    if value is None:
        raise EntryError(field, "missing (one of N E S W)")
    if value not in SEATS:
        raise EntryError(field, f"not a seat: {value!r} (one of N E S W)")
    return value


def _card(data: Mapping[str, Any], field: str) -> str:
    value = data.get(field)
    if value is None or value == "":
        raise EntryError(field, "missing (a card such as TH)")
    try:
        return str(Card.parse(value))
    except InvalidCardError as exc:
        raise EntryError.wrap(exc, field) from None


def _int(data: Mapping[str, Any], field: str, low: int, high: int,
         default: int | None = None) -> int:
    value = data.get(field)
    if value is None or value == "":
        if default is None:
            raise EntryError(field, "missing (a whole number)")
        return default
    if isinstance(value, float):  # 3.0 from JSON is not a count of tricks
        raise EntryError(field, f"expected a whole number, got {value!r}")
    try:
        return whole_number(value, field, low, high)
    except InvalidInputError as exc:
        raise EntryError.wrap(exc) from None


def _bool(data: Mapping[str, Any], field: str) -> bool:
    value = data.get(field, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("", "0", "false", "no", "off"):
        return False
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
        return True
    raise EntryError(field, f"expected true or false, got {value!r}")


def _event(field: str, build: Callable[..., E], *args: Any, **kw: Any) -> E:
    """Build an event; a field the event itself refuses is reported under ``field``."""
    try:
        return build(*args, **kw)
    except InvalidEventError as exc:
        raise EntryError.wrap(exc, field) from None


def read_settings(value: Any) -> dict[str, Any]:
    """Rule overrides: a JSON object, or text with one ``name=value`` per line.

    >>> read_settings("must_undertrump=true\\nunannounced_capot = 250")
    {'must_undertrump': True, 'unannounced_capot': 250}
    """
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return dict(value)
    if not isinstance(value, str):
        raise EntryError("settings", f"expected an object or name=value lines, got {value!r}")
    out: dict[str, Any] = {}
    for n, line in enumerate(value.replace(";", "\n").splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        name, sep, raw = line.partition("=")
        if not sep or not name.strip():
            raise EntryError("settings", f"line {n}: expected name=value, got {line!r}")
        raw = raw.strip()
        try:
            out[name.strip()] = read_json(raw)
        except InvalidInputError:
            out[name.strip()] = raw  # plain text: the rules check it
    return out


def read_start(data: Mapping[str, Any], keep_pin: bool = False) -> tuple[GameStarted, str]:
    """A new game and its PIN from the set-up form (flat fields ``team_NS``,
    ``player_N``...) or JSON (``teams``/``players`` objects). ``keep_pin``: the
    table has a PIN, which the new game keeps when none is given (PIN "")."""
    teams_in = data.get("teams") if isinstance(data.get("teams"), dict) else {}
    players_in = data.get("players") if isinstance(data.get("players"), dict) else {}
    teams: dict[str, str] = {}
    for team in TEAMS:
        name = _text(teams_in, team) if teams_in else _text(data, f"team_{team}")
        if len(name) > NAME_MAX:
            raise EntryError(f"teams.{team}", f"longer than {NAME_MAX} characters")
        teams[team] = name or team
    players: dict[str, str] = {}
    for seat in SEATS:
        name = _text(players_in, seat) if players_in else _text(data, f"player_{seat}")
        if len(name) > NAME_MAX:
            raise EntryError(f"players.{seat}", f"longer than {NAME_MAX} characters")
        if name:
            players[seat] = name
    preset = _text(data, "rules", "ffb") or "ffb"
    if preset not in PRESETS:
        raise EntryError("rules", f"unknown rule preset {preset!r} (known: {', '.join(PRESETS)})")
    settings = read_settings(data.get("settings"))
    if data.get("target") not in (None, ""):
        settings["target"] = _int(data, "target", *RANGES["target"][:2])
    if "clockwise" in data or data.get("direction") not in (None, ""):
        direction = _text(data, "direction").lower()
        if direction and direction not in ("clockwise", "counterclockwise"):
            raise EntryError("direction", f"{direction!r} is not clockwise or counterclockwise")
        settings["clockwise"] = direction == "clockwise" if direction else _bool(data, "clockwise")
    try:
        Rules.from_preset(preset, settings)
    except UnknownSettingError as exc:
        raise EntryError.wrap(exc, "settings") from None
    dealer = _seat(data, "dealer", "N")
    pin = _text(data, "pin")
    if not PIN_RE.match(pin) and not (keep_pin and not pin):
        raise EntryError("pin", "the table's PIN must be 6 to 8 digits")
    started = _event("rules", GameStarted, rules=preset, settings=settings, dealer=dealer,
                     teams=teams, players=players)
    return started, pin


def read_bid(data: Mapping[str, Any], state: GameView) -> BidMade:
    """One spoken bid, in its written form (``Bid.parse``); the seat defaults to
    whoever is to speak.

    >>> from scorer.events import GameStarted
    >>> from scorer.game import replay
    >>> view = replay([GameStarted(dealer="E")]).view()
    >>> read_bid({"bid": "capoth"}, view)
    BidMade(seat='N', bid='capotH')
    >>> read_bid({"bid": "85H"}, view)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    web.entries.EntryError: bid: not a bid: '85H' (80..160 by tens, ...)
    """
    seat = _seat(data, "seat", state.to_speak)
    bid = _text(data, "bid")
    if not bid:
        raise EntryError("bid", "missing (pass, 80H ... 160H, capotH, contre, surcontre)")
    try:
        written = str(Bid.parse(bid))
    except InvalidBidError as exc:
        raise EntryError.wrap(exc, "bid") from None
    return _event("bid", BidMade, seat=seat, bid=written)


def read_contract(data: Mapping[str, Any]) -> ContractSet:
    """The final contract entered directly: taker, value (or capot), trump, double
    (``scorer.bidding.verify_contract``).

    >>> read_contract({"taker": "E", "value": "90", "trump": "nt", "double": "2"})
    ContractSet(taker='E', value=90, trump='NT', double=2)
    >>> read_contract({"taker": "E", "value": "capot", "trump": "Z"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    web.entries.EntryError: trump: not a trump: 'Z' (one of S H D C NT AT)
    """
    taker = _seat(data, "taker")
    raw = _text(data, "value").lower()
    value: int | str = "capot" if raw == "capot" else _int(data, "value", 80, CONTRACT_MAX)
    trump = _text(data, "trump").upper()
    double = _int(data, "double", 1, max(DOUBLES), default=1)
    try:
        # The game's rule set narrows the value range when the service verifies the event.
        verify_contract(value, trump, double, max_bid=CONTRACT_MAX)
    except InvalidContractError as exc:
        raise EntryError.wrap(exc) from None
    return _event("contract", ContractSet, taker=taker, value=value, trump=trump, double=double)


def read_belote(data: Mapping[str, Any]) -> BeloteAnnounced:
    return _event("seat", BeloteAnnounced, seat=_seat(data, "seat"))


def read_turned(data: Mapping[str, Any]) -> CardTurned:
    return _event("card", CardTurned, card=_card(data, "card"))


def read_play(data: Mapping[str, Any], state: GameView) -> CardPlayed:
    """A card put down; the seat defaults to whoever is to play; no card (or
    ``"?"``) records an unknown card to be named later."""
    seat = _seat(data, "seat", state.to_play)
    raw = data.get("card")
    if raw is None or raw in ("", "?"):
        return _event("card", CardPlayed, seat=seat, card=None)
    return _event("card", CardPlayed, seat=seat, card=_card(data, "card"))


def read_correction(data: Mapping[str, Any], state: GameView) -> CardCorrected:
    """The card ``seat`` played in ``trick`` (of ``hand``, default the current
    one) was ``card``: confirms an unknown card or fixes a misread one."""
    seat = _seat(data, "seat")
    trick = _int(data, "trick", 1, 8)
    card = _card(data, "card")
    hand = data.get("hand")
    hand_no = None if hand in (None, "") else _int(data, "hand", 1, 10000)
    return _event("card", CardCorrected, seat=seat, trick=trick, new=card, hand=hand_no)


def read_tally(data: Mapping[str, Any]) -> TallyEntered:
    """The hand's outcome as a tally: card points and tricks per team, belote team."""
    points = data.get("points") if isinstance(data.get("points"), dict) else None
    tricks = data.get("tricks") if isinstance(data.get("tricks"), dict) else None
    if points is None:
        points = {t: data.get(f"points_{t}") for t in TEAMS}
    if tricks is None:
        tricks = {t: data.get(f"tricks_{t}") for t in TEAMS}
    # Each figure is named by its form field (points_NS...), for the message.
    clean_points = {t: _int({f"points_{t}": points.get(t)}, f"points_{t}", 0, 500)
                    for t in TEAMS}
    clean_tricks = {t: _int({f"tricks_{t}": tricks.get(t)}, f"tricks_{t}", 0, 8)
                    for t in TEAMS}
    if sum(clean_tricks.values()) != 8:
        raise EntryError("tricks", f"the two teams' tricks add up to "
                                   f"{sum(clean_tricks.values())}, not 8")
    raw = data.get("belote")
    belote: str | list[str] | None
    if isinstance(raw, list):
        if len(raw) > 4 or not all(isinstance(t, str) and t.upper() in TEAMS for t in raw):
            raise EntryError("belote", "a list of teams (NS or EW), one per belote, at most 4")
        belote = [t.upper() for t in raw]
    else:
        belote = _text(data, "belote").upper() or None
        if belote is not None and belote not in TEAMS:
            raise EntryError("belote", f"not a team: {belote!r} (NS or EW)")
    return _event("tally", TallyEntered, points=clean_points, tricks=clean_tricks, belote=belote)


def last_entry(stored: list[Any], author: str | None = None) -> int | None:
    """Index of the latest entry that the organiser ``author`` may still undo:
    one of their own (any person's when ``author`` is None), not a card the
    camera read (those are corrected, never undone), not the game's start, not
    an undo, not already undone."""
    undone = {s.event.index for s in stored if isinstance(s.event, EntryUndone)}
    for s in reversed(stored):
        if isinstance(s.event, GameStarted | EntryUndone) or s.seq in undone:
            continue
        if s.source == "camera":
            continue
        if author is not None and s.author != author:
            continue
        return int(s.seq)
    return None


def read_undo(stored: list[Any], author: str | None = None,
              data: Mapping[str, Any] | None = None) -> EntryUndone:
    """Undo ``author``'s last entry. ``index`` in ``data``, when given, must be
    that entry (the one the page named before the organiser confirmed)."""
    index = last_entry(stored, author)
    asked = None if data is None or data.get("index") in (None, "") else _int(
        data, "index", 0, 10**9)
    if asked is not None and 0 <= asked < len(stored) and stored[asked].source == "camera":
        raise EntryError("undo", "a camera card is corrected, not undone")
    if index is None:
        raise EntryError("undo", "nothing of yours to undo")
    if asked is not None and asked != index:
        raise EntryError("undo", f"entry {asked} is no longer your last entry ({index} is)")
    return EntryUndone(index=index)


def describe(event: Event) -> str:
    """A short line for logs and the history's list of entries."""
    data = event.to_json()
    kind = str(data.pop("type"))
    return kind + " " + " ".join(f"{k}={v}" for k, v in data.items() if v is not None)
