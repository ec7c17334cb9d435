"""The rules engine's refusals said from their code (companion.reasons.CODES):
every code of the scorer has its French and English text in the catalogs; said
from its code, a refusal reads word for word as the pages' and the command
line's patterns said its English text before the code table.
"""

from __future__ import annotations

import dataclasses
import gettext
import random
from pathlib import Path

import pytest
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
from scorer.fold import GameState, replay
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


def test_every_refusal_is_said_in_french_from_its_code():
    words = _french()
    codes = set()
    errors = _refusals()
    for error in errors:
        said = reasons.explain(error, words)
        assert said != str(error) and "%(" not in said, (error.code, said)
        codes.add(error.code)
    assert len(errors) > 1000 and len(codes) >= 30, sorted(codes)


@pytest.mark.parametrize("make, french", [
    (lambda: verify_event(replay([GameStarted(dealer="N")]), BidMade("S", "80H")),
     "Sud a parlé hors de son tour : à Ouest de parler"),
    (lambda: verify_event(replay([GameStarted(dealer="N"), BidMade("W", "80D")]),
                          BidMade("S", "80H")),
     "80H n'est pas au-dessus de 80D"),
    (lambda: verify_event(replay([GameStarted(dealer="N"), ContractSet("W", 80, "H")]),
                          CardPlayed("E", "7S")),
     "Est a joué hors de son tour : à Ouest de jouer"),
    (lambda: verify_event(replay([GameStarted(dealer="N")]), EntryUndone(0)),
     "la saisie n° 0 ne peut pas être annulée"),
    (lambda: record_to_events({"bids": ["80H", "85H"]}), "bids[1] : 85H n'est pas une enchère"),
    (lambda: record_to_events({"dealer": "X"}),
     "dealer : X n'est pas une place (Nord, Est, Sud ou Ouest)"),
    (lambda: record_to_events({"bids": "80H"}), "bids : une liste est attendue, pas du texte"),
    (lambda: record_to_events([1]), "une donne est un objet JSON, pas une liste"),
])
def test_refusals_read_as_the_pages_and_the_command_line_said_them(make, french):
    words = dataclasses.replace(_french(), located=lambda where, why: f"{where} : {why}")
    with pytest.raises(ScorerError) as caught:
        make()
    assert reasons.explain(caught.value, words) == french
