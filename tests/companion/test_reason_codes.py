"""The rules engine's refusals said from their code (companion.reasons.CODES):
every code of the table is the scorer's and has its French and English text in
the catalogs; said from the code, a refusal reads word for word as the pages'
patterns said its English text.
"""

from __future__ import annotations

import gettext
import random
from pathlib import Path

from babel.messages.pofile import read_po

from companion import reasons
from scorer.errors import MESSAGES, ScorerError
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardCorrected,
    CardPlayed,
    CardTurned,
    ContractSet,
    EntryUndone,
    GameStarted,
    TallyEntered,
)
from scorer.fold import GameState
from scorer.record import record_to_events
from scorer.simulate import simulate_game
from scorer.verify import verify_event

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {"W_": ROOT / "web/translations/fr/LC_MESSAGES/messages.po",
            "N_": ROOT / "companion/translations/fr/LC_MESSAGES/companion.po"}


def _french() -> reasons.Words:
    web = gettext.translation("messages", ROOT / "web/translations", ["fr"])
    cli = gettext.translation("companion", ROOT / "companion/translations", ["fr"])
    cli.add_fallback(web)
    return reasons.Words(gettext=cli.gettext, seat={"N": "Nord", "E": "Est", "S": "Sud",
                                                    "W": "Ouest"}.get)


def test_every_code_of_the_scorer_has_french_and_english():
    translated = {}
    for path in CATALOGS.values():
        with path.open("rb") as f:
            translated.update({m.id: m.string for m in read_po(f) if m.id and m.string})
    # Every code of the scorer has its text here ("text" is a reason given as text).
    assert set(reasons.CODES) == set(MESSAGES) - {"text"}
    for code, (message, shows, names) in reasons.CODES.items():
        assert message.strip(), code                       # the English text
        assert translated.get(message), f"{code}: no French for {message!r}"
        for name in reasons._names(message):               # every value it names exists
            assert names.get(name, name) in _fields(MESSAGES[code]), (code, name)
        assert set(shows) <= set(reasons._names(message)), code


def _fields(template: str) -> set[str]:
    import string
    return {f.split("!")[0] for _, f, _, _ in string.Formatter().parse(template) if f}


def _refusals() -> list[ScorerError]:
    """Refusals of every kind the rules engine gives a table: out of turn, bids,
    cards again, undo, corrections, tallies, belote, records."""
    rng = random.Random(7)
    tries = ([BidMade(s, b) for s in "NESW" for b in ("pass", "80H", "90S", "contre",
                                                     "surcontre", "take", "100NT")]
             + [CardPlayed(s, c) for s in "NESW" for c in ("7S", "AH", "JD")]
             + [CardTurned("9H"), BeloteAnnounced("N"), EntryUndone(0), EntryUndone(99),
                ContractSet("W", 80, "H", 1), CardCorrected(seat="N", trick=3, new="7S"),
                TallyEntered(points={"NS": 80, "EW": 82}, tricks={"NS": 4, "EW": 3})])
    errors: list[ScorerError] = []
    for seed in range(3):
        for rules in ("ffb", "classic"):
            state = GameState()
            for event in simulate_game(seed, hands=2, rules=rules):
                state = state.apply(event)
                for bad in rng.sample(tries, 6):
                    try:
                        verify_event(state, bad)
                    except ScorerError as exc:
                        errors.append(exc)
    for record in ({"bids": ["80H", "85H"]}, {"bids": ["80H", "80S"]}, {"dealer": "X"},
                   {"bids": "80H"}, {"turned": "9H"}, {"plays": ["N 7S"]}, [1],
                   {"contract": {"taker": "N"}}, {"bids": ["pass"] * 4, "plays": ["N:7S"]},
                   {"contract": {"taker": "N", "value": 80, "trump": "H"}, "plays": ["N:7S"]}):
        try:
            record_to_events(record)
        except ScorerError as exc:
            errors.append(exc)
    return errors


def test_said_from_the_code_as_the_patterns_said_the_english():
    words = _french()
    said_by_code = 0
    codes = set()
    for error in _refusals():
        if error.code not in reasons.CODES:
            continue
        by_code = reasons.explain(error, words)
        assert by_code == reasons.explain(str(error), words), error.code
        assert by_code != str(error), error.code           # French, not the English
        if not error.places and reasons.say(str(error), words) is not None:
            assert reasons.say(error, words) == reasons.say(str(error), words)
        said_by_code += 1
        codes.add(error.code)
    assert said_by_code > 100 and len(codes) >= 15, sorted(codes)
