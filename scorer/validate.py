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
from scorer.errors import FieldError

MAX_DEPTH: Final = 32        # a hand record is 4 levels deep
MAX_DIGITS: Final = 12       # no count, score or setting needs more
_WHOLE: Final = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)


class InvalidInputError(FieldError):
    """Input refused: ``field`` names where, the message says why.

    ``code`` is one of :data:`scorer.errors.MESSAGES`; a reason a layer above
    gives as text instead (an entry check of its own) is kept as the code ``text``.
    """


def _short(value: Any, limit: int = 40) -> str:
    """``repr`` cut short, so a huge or deep value never ends in a huge message."""
    if isinstance(value, list | dict):
        return f"a JSON {'list' if isinstance(value, list) else 'object'}"
    text = repr(value) if len(str(value)) <= 4 * limit else repr(str(value)[:limit]) + "..."
    return text if len(text) <= limit + 10 else text[:limit] + "..."


def whole_number(value: Any, field: str, low: int, high: int) -> int:
    """A whole number between ``low`` and ``high``, from an int or its ASCII digits."""
    if isinstance(value, bool):
        raise InvalidInputError(field, "input.not_whole", value=_short(value))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    elif isinstance(value, float) and value.is_integer() and abs(value) < 10 ** MAX_DIGITS:
        number = int(value)
    else:
        raise InvalidInputError(field, "input.not_whole", value=_short(value))
    if not low <= number <= high:
        # str() of an int over 4300 digits raises: say its size instead.
        shown = (str(number) if abs(number) < 10 ** MAX_DIGITS
                 else f"a number over {MAX_DIGITS} digits")
        raise InvalidInputError(field, "input.out_of_range", number=shown, low=low, high=high)
    return number


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise InvalidInputError("JSON", "input.too_many_digits", digits=len(text.lstrip("-")),
                                most=MAX_DIGITS)
    return int(text)


def _no_constant(name: str) -> Any:
    raise InvalidInputError("JSON", "input.json_constant", name=name)


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
            raise InvalidInputError(what, "input.not_utf8", byte=exc.start) from None
    else:
        text = data
    try:
        value = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except InvalidInputError as exc:
        raise InvalidInputError.wrap(exc, what, drop=1) from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(what, "input.not_json", line=exc.lineno, column=exc.colno,
                                message=exc.msg) from None
    except RecursionError:
        raise InvalidInputError(what, "input.too_deep", depth=MAX_DEPTH) from None
    except ValueError as exc:  # pragma: no cover - any other refusal of the parser
        raise InvalidInputError(what, "input.not_json_other", error=str(exc)) from None
    if not _depth_ok(value):
        raise InvalidInputError(what, "input.too_deep", depth=MAX_DEPTH)
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
    raise InvalidInputError(field, "input.not_seat", value=_short(value))


def card(value: Any, field: str) -> str:
    """A card code in the notation (``TH``; ``10h`` is read as ``TH``)."""
    if not isinstance(value, str) or not 0 < len(value.strip()) <= 3:
        raise InvalidInputError(field, "input.not_card", value=_short(value))
    try:
        return str(Card.parse(value))
    except InvalidCardError as exc:
        raise InvalidInputError.wrap(exc, field) from None


def bid(value: Any, field: str) -> str:
    """A bid as spoken (``pass``, ``80H``, ``capotH``, ``contre``, ``take:S``)."""
    if not isinstance(value, str) or not 0 < len(value) <= 12:
        raise InvalidInputError(field, "input.not_bid", value=_short(value))
    try:
        Bid.parse(value)
    except InvalidBidError as exc:
        raise InvalidInputError.wrap(exc, field) from None
    return value


def settings(preset: Any, overrides: Any, field: str = "rules") -> Any:
    """The rules of a preset with ``overrides``: every name, type, choice and
    range checked (``scorer.rules``); returns the ``Rules``."""
    from scorer.rules import Rules, UnknownSettingError

    if overrides is not None and not isinstance(overrides, dict):
        raise InvalidInputError(field, "input.settings_kind", value=_short(overrides))
    if preset is not None and not isinstance(preset, str):
        raise InvalidInputError(field, "input.not_preset", value=_short(preset))
    try:
        return Rules.from_preset(preset, overrides)
    except UnknownSettingError as exc:
        raise InvalidInputError.wrap(exc, field) from None
