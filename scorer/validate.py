"""Checking what comes from outside: one validator per kind of input.

The web page, the JSON API, ``belote-table score`` and the event store all
read their input through these functions, so the same input gets the same
verdict and the same message everywhere: JSON text (its size, depth and
numbers bounded before anything else reads it), whole numbers (ASCII digits
only: ``"²".isdigit()`` is true but ``int("²")`` fails), cards, bids, seats,
and rule settings with their ranges (``scorer.rules``). Every refusal is a
``ValueError`` subclass that names the place and the reason.

>>> whole_number("1500", "target", 100, 100000)
1500
>>> whole_number("²", "target", 100, 100000)
Traceback (most recent call last):
...
scorer.validate.InvalidInputError: target: expected a whole number, got '²'
>>> read_json("[" * 100000)
Traceback (most recent call last):
...
scorer.validate.InvalidInputError: JSON: nested deeper than 32 levels
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from scorer.bidding import Bid, InvalidBidError
from scorer.cards import SEATS, Card, InvalidCardError

MAX_DEPTH: Final = 32        # a hand record is 4 levels deep
MAX_DIGITS: Final = 12       # no count, score or setting needs more
_WHOLE: Final = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)


class InvalidInputError(ValueError):
    """Input refused: ``field`` names where, the message says why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def _short(value: Any, limit: int = 40) -> str:
    """``repr`` cut short, so a huge or deep value never ends in a huge message."""
    if isinstance(value, list | dict):
        return f"a JSON {'list' if isinstance(value, list) else 'object'}"
    text = repr(value) if len(str(value)) <= 4 * limit else repr(str(value)[:limit]) + "..."
    return text if len(text) <= limit + 10 else text[:limit] + "..."


def whole_number(value: Any, field: str, low: int, high: int) -> int:
    """A whole number between ``low`` and ``high``, from an int or its ASCII digits."""
    if isinstance(value, bool):
        raise InvalidInputError(field, f"expected a whole number, got {_short(value)}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    elif isinstance(value, float) and value.is_integer() and abs(value) < 10 ** MAX_DIGITS:
        number = int(value)
    else:
        raise InvalidInputError(field, f"expected a whole number, got {_short(value)}")
    if not low <= number <= high:
        # str() of an int over 4300 digits raises: say its size instead.
        shown = (str(number) if abs(number) < 10 ** MAX_DIGITS
                 else f"a number over {MAX_DIGITS} digits")
        raise InvalidInputError(field, f"{shown} is out of range ({low} to {high})")
    return number


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise InvalidInputError("JSON", f"a number of {len(text.lstrip('-'))} digits "
                                        f"(at most {MAX_DIGITS})")
    return int(text)


def _no_constant(name: str) -> Any:
    raise InvalidInputError("JSON", f"{name} is not a number JSON allows")


def _depth_ok(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def read_json(data: str | bytes, what: str = "JSON") -> Any:
    """Parse JSON text (``bytes``: UTF-8, or UTF-16/32 with their byte order)
    with its depth and numbers bounded; ``InvalidInputError`` says why not."""
    if isinstance(data, bytes):
        try:
            text = _decode(data)
        except UnicodeDecodeError as exc:
            raise InvalidInputError(what, f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
    try:
        value = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except InvalidInputError as exc:
        raise InvalidInputError(what, exc.reason) from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(what, f"line {exc.lineno} column {exc.colno}: not JSON: "
                                      f"{exc.msg}") from None
    except RecursionError:
        raise InvalidInputError(what, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # pragma: no cover - any other refusal of the parser
        raise InvalidInputError(what, f"not JSON: {exc}") from None
    if not _depth_ok(value):
        raise InvalidInputError(what, f"nested deeper than {MAX_DEPTH} levels")
    return value


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # UTF-16 and UTF-32 are told apart by their zero bytes (RFC 8259, 8.1).
    return data.decode(json.detect_encoding(data))


def seat(value: Any, field: str) -> str:
    """One of ``N E S W`` (any case)."""
    if isinstance(value, str) and value.strip().upper() in SEATS:
        return value.strip().upper()
    raise InvalidInputError(field, f"not a seat: {_short(value)} (one of N E S W)")


def card(value: Any, field: str) -> str:
    """A card code in the notation (``TH``; ``10h`` is read as ``TH``)."""
    if not isinstance(value, str) or not 0 < len(value.strip()) <= 3:
        raise InvalidInputError(field, f"not a card: {_short(value)} (a card such as TH)")
    try:
        return str(Card.parse(value))
    except InvalidCardError as exc:
        raise InvalidInputError(field, str(exc)) from None


def bid(value: Any, field: str) -> str:
    """A bid as spoken (``pass``, ``80H``, ``capotH``, ``contre``, ``take:S``)."""
    if not isinstance(value, str) or not 0 < len(value) <= 12:
        raise InvalidInputError(field, f"not a bid: {_short(value)}")
    try:
        Bid.parse(value)
    except InvalidBidError as exc:
        raise InvalidInputError(field, str(exc)) from None
    return value


def settings(preset: Any, overrides: Any, field: str = "rules") -> Any:
    """The rules of a preset with ``overrides``: every name, type, choice and
    range checked (``scorer.rules``); returns the ``Rules``."""
    from scorer.rules import Rules, UnknownSettingError

    if overrides is not None and not isinstance(overrides, dict):
        raise InvalidInputError(field, f"settings are an object of name: value, not "
                                       f"{_short(overrides)}")
    if preset is not None and not isinstance(preset, str):
        raise InvalidInputError(field, f"not a preset name: {_short(preset)}")
    try:
        return Rules.from_preset(preset, overrides)
    except UnknownSettingError as exc:
        raise InvalidInputError(field, str(exc)) from None
