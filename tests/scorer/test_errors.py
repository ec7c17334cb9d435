"""The scorer's refusals carry a code and their values (scorer.errors).

Every raise site of a scorer error names a code of ``MESSAGES`` (read from the
source, so that a new raise site without one fails here), every code is used,
and ``str(error)`` is the English message behind its places.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import scorer
from scorer.bidding import InvalidContractError, verify_contract
from scorer.errors import MESSAGES, ScorerError
from scorer.events import BidMade, CardPlayed, ContractSet, GameStarted, event_from_json
from scorer.fold import replay
from scorer.record import InvalidRecordError, record_to_events
from scorer.validate import InvalidInputError, read_json
from scorer.verify import IllegalEventError, verify_event

SCORER = pathlib.Path(scorer.__file__).parent
# Constructors whose code comes after a field (InvalidInputError(field, code, ...)).
_FIELD_FIRST = {"InvalidInputError", "InvalidContractError"}


def _raise_sites() -> list[tuple[str, int, str, ast.Call]]:
    sites = []
    for path in sorted(SCORER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            calls = [node.exc] if isinstance(node.exc, ast.Call) else []
            if isinstance(node.exc, ast.IfExp):
                calls = [c for c in (node.exc.body, node.exc.orelse) if isinstance(c, ast.Call)]
            for call in calls:
                func = call.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                owner = func.value.id if (isinstance(func, ast.Attribute)
                                          and isinstance(func.value, ast.Name)) else name
                sites.append((path.name, node.lineno, owner if name == "wrap" else name, call))
    return sites


def test_every_raise_site_of_a_scorer_error_names_a_known_code():
    errors = {name for name in dir(scorer) if name.endswith("Error")}
    classes = set()
    for module in ("bidding", "cards", "events", "record", "rules", "validate", "verify"):
        mod = __import__(f"scorer.{module}", fromlist=["_"])
        classes |= {n for n, v in vars(mod).items()
                    if isinstance(v, type) and issubclass(v, ScorerError)}
    used = set()
    checked = 0
    for file, line, name, call in _raise_sites():
        if name not in classes:
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "wrap":
            checked += 1  # a caught scorer error, its code kept
            continue
        at = 1 if name in _FIELD_FIRST else 0
        arg = call.args[at] if len(call.args) > at else None
        assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
            f"{file}:{line}: {name} raised without a literal code")
        assert arg.value in MESSAGES, f"{file}:{line}: unknown code {arg.value!r}"
        keys = {k.arg for k in call.keywords} - {"places"}
        needed = {f.split("!")[0] for f in _fields(MESSAGES[arg.value])}
        assert needed <= keys, f"{file}:{line}: {arg.value} lacks {needed - keys}"
        used.add(arg.value)
        checked += 1
    assert checked > 100 and not errors - {"ScorerError"} - classes
    assert set(MESSAGES) - used == {"text"}


def _fields(template: str) -> list[str]:
    import string
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


@pytest.mark.parametrize("make, code, values, text", [
    (lambda: verify_event(replay([GameStarted(dealer="N")]), BidMade("S", "80H")),
     "bid.out_of_turn", {"seat": "S", "other": "W"}, "S spoke out of turn, W to speak"),
    (lambda: verify_event(replay([GameStarted(dealer="N"), ContractSet("W", 80, "H")]),
                          CardPlayed("E", "7S")),
     "play.out_of_turn", {"seat": "E", "other": "W"}, "E played out of turn, W to play"),
    (lambda: verify_contract(85, "H", 1), "contract.value",
     {"value": 85, "low": 80, "high": 160},
     "value: not a contract value: 85 (capot, or 80 to 160 by tens)"),
    (lambda: event_from_json({"type": "CardPlayed", "seat": "X", "card": "7S"}),
     "seat.not_seat", {"value": "X"}, "CardPlayed.seat: not a seat: 'X' (one of N E S W)"),
    (lambda: read_json("[1, 2", "body"), "input.not_json",
     {"line": 1, "column": 6, "message": "Expecting ',' delimiter"},
     "body: line 1 column 6: not JSON: Expecting ',' delimiter"),
    (lambda: record_to_events({"bids": ["80H", "85H"]}), "bid.not_notation",
     {"value": "85H"}, "bids[1]: not a bid: '85H' (80..160 by tens, or capot, then S H D C NT AT)"),
])
def test_errors_carry_their_code_values_and_english_text(make, code, values, text):
    with pytest.raises(ScorerError) as caught:
        make()
    assert caught.value.code == code and caught.value.values == values
    assert str(caught.value) == text


def test_wrapping_keeps_the_code_and_adds_the_place():
    with pytest.raises(InvalidRecordError) as caught:
        record_to_events({"dealer": "N", "bids": ["80H", "90H", "pass", "80S"]})
    error = caught.value
    assert error.code == "bid.not_above" and error.places == ("bids[3]",)
    assert error.values == {"bid": "80S", "high": "90H"}
    assert str(error) == "bids[3]: '80S' is not above 90H"
    with pytest.raises(InvalidContractError) as contract:
        verify_contract("capot", "H", 3)
    assert contract.value.field == "double" and contract.value.reason == (
        "3 is not 1, 2 (contré) or 4 (surcontré)")
    with pytest.raises(IllegalEventError) as illegal:
        verify_event(replay([GameStarted(dealer="N")]), ContractSet("W", 80, "H", 3))
    assert illegal.value.code == "contract.double" and str(illegal.value) == (
        "3 is not 1, 2 (contré) or 4 (surcontré)")


def test_a_reason_given_as_text_above_the_scorer_keeps_its_words():
    error = InvalidInputError("undo", "nothing of yours to undo")
    assert error.code == "text" and str(error) == "undo: nothing of yours to undo"
    assert error.field == "undo" and error.reason == "nothing of yours to undo"
    with pytest.raises(KeyError):
        ScorerError("no.such_code", value=1)


def test_errors_survive_pickling():
    import pickle
    error = ScorerError.wrap(ScorerError("bid.not_above", bid="80H", high="90H"), "bids[1]")
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, again.values, again.places, str(again)) == (
        error.code, error.values, error.places, str(error))
