"""Words the pages show, in the visitor's language (French by default).

The page script draws the table from the state JSON, so it gets its words
from here, translated on the server by Flask-Babel, in one JSON object.
"""

from __future__ import annotations

from typing import Any

from flask_babel import get_locale
from flask_babel import gettext as _

from scorer.bidding import PASS, TAKE, Bid, InvalidBidError
from scorer.cards import RANK_INDEX_EN, RANK_INDEX_FR, SEATS, SUIT_SYMBOLS, TRUMPS, Card


def seat_names() -> dict[str, str]:
    return dict(zip(SEATS, (_("North"), _("East"), _("South"), _("West")), strict=True))


def trump_names() -> dict[str, str]:
    return dict(zip(TRUMPS, (_("spades"), _("hearts"), _("diamonds"), _("clubs"),
                             _("no trump"), _("all trump")), strict=True))


def rule_names() -> dict[str, str]:
    """What each kind of renonce means (DESIGN.md's ``rule`` values)."""
    return {"follow": _("did not follow suit"), "trump": _("did not trump"),
            "overtrump": _("did not overtrump"), "undertrump": _("did not undertrump"),
            "turn": _("played out of turn")}


def penalty_names() -> dict[str, str]:
    """What each ``renonce_penalty`` setting does, for the history."""
    return {"hand-lost": _("the hand lost, valued by the FFB 10.2 table"),
            "flat-160": _("160 whatever the contract"),
            "flat-162": _("the whole deal, 162"),
            "contract": _("the contract in play"),
            "cancel": _("the hand cancelled")}


def rank_index() -> dict[str, str]:
    """Card indices: R D V (roi, dame, valet) in French, K Q J in English."""
    return dict(RANK_INDEX_EN if str(get_locale()) == "en" else RANK_INDEX_FR)


def card_label(code: str | None) -> str:
    """``TH`` -> ``10♥``, ``KS`` -> ``R♠`` in French; ``?`` for an unknown card."""
    if not code:
        return "?"
    card = Card.parse(code)
    return rank_index()[card.rank] + SUIT_SYMBOLS[card.suit]


def bid_label(bid: str) -> str:
    """A bid as the page shows it: ``80H`` -> ``80♥``, ``pass`` -> ``passe``.

    The notation's own form stays in the API and the records; the bid is read
    by ``Bid.parse``, and text that is no bid is shown as written.

    >>> from flask import Flask
    >>> from flask_babel import Babel
    >>> app = Flask("doctest")
    >>> _ = Babel(app, locale_selector=lambda: "en")
    >>> with app.test_request_context():
    ...     [bid_label(b) for b in ("80H", "capotS", "120NT", "take:C", "contre", "pass")]
    ['80♥', 'capot♠', '120 no trump', 'take♣', 'contre', 'pass']
    """
    try:
        parsed = Bid.parse(bid)
    except InvalidBidError:
        return bid  # not in the notation: shown as written
    if parsed.kind == PASS:
        return str(_("pass"))
    if parsed.kind == TAKE:
        value = str(_("take"))
    elif parsed.value == "capot":
        value = str(_("capot"))
    elif parsed.kind == "value":
        value = str(parsed.value)
    else:
        return str(parsed)  # contre, surcontre: the players' own words
    trump = parsed.trump
    if not trump:
        return value
    return value + (SUIT_SYMBOLS[trump] if trump in SUIT_SYMBOLS else " " + trump_names()[trump])


def words() -> dict[str, Any]:
    return {
        "seats": seat_names(),
        "trumps": trump_names(),
        "rules": rule_names(),
        "penalties": penalty_names(),
        "ranks": rank_index(),
        "suits": dict(SUIT_SYMBOLS),
        "phases": {"setup": _("no game yet"), "bidding": _("auction"), "play": _("play"),
                   "over": _("game over")},
        "dealer": _("Dealer"),
        "target": _("Target"),
        "hand": _("Hand"),
        "trick": _("Trick"),
        "contract": _("Contract"),
        "no_contract": _("no contract yet"),
        "contre": _("contré"),
        "surcontre": _("surcontré"),
        "capot": _("capot"),
        "to_play": _("to play"),
        "to_speak": _("to speak"),
        "tricks_won": _("Tricks won"),
        "card_points": _("Card points"),
        "renonce": _("Renonce"),
        "renonce_by": _("%(seat)s in trick %(trick)s: %(rule)s, proved by %(card)s in trick "
                        "%(proof)s"),
        "unknown": _("Unknown card at %(seat)s (trick %(trick)s): name it on the control page"),
        "out_of_turn": _("%(card)s put down at %(seat)s out of turn, %(to_play)s to play"),
        "camera": _("camera"),
        "display": _("display"),
        # What the camera and the display say of themselves (service status).
        "health": {"ok": _("working"), "off": _("off"), "searching": _("searching"),
                   "lost": _("lost: hand entry works, looking for it again…"),
                   "error": _("fault")},
        "connected": _("live"),
        "disconnected": _("connection lost, reconnecting…"),
        "winner": _("%(team)s wins the game"),
        "pass": _("pass"),
        "bids": _("Bids"),
        "belote": _("belote"),
        "last_trick": _("Last trick"),
        "won_by": _("won by"),
        "played": _("played"),
        "made": _("made"),
        "fallen": _("fallen"),
        "last_hand": _("Last hand"),
        "pick_card": _("First pick a card among the 32."),
        "pick_played": _("First pick a card played this hand (the list above the buttons)."),
    }


# The refusals of the one validator (scorer.validate, scorer.rules, web.entries)
# are written in English in the pure scorer; the page and the API say them in
# the visitor's language. Each pattern is a whole reason; the names (fields,
# settings) and the values stay as they were given.
_REASONS: list[tuple[str, Any]] = [
    (r"expected a whole number, got (?P<v>.+)", lambda: _("expected a whole number, got %(v)s")),
    (r"(?P<n>-?\d+) is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     lambda: _("%(n)s is out of range (%(low)s to %(high)s)")),
    (r"a number over (?P<d>\d+) digits is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     lambda: _("a number over %(d)s digits is out of range (%(low)s to %(high)s)")),
    (r"(?P<n>-?\d+) is not a multiple of (?P<step>\d+)",
     lambda: _("%(n)s is not a multiple of %(step)s")),
    (r"a number of (?P<n>\d+) digits \(at most (?P<d>\d+)\)",
     lambda: _("a number of %(n)s digits (at most %(d)s)")),
    (r"nested deeper than (?P<d>\d+) levels", lambda: _("nested deeper than %(d)s levels")),
    (r"not UTF-8 text \(byte (?P<b>\d+)\)", lambda: _("not UTF-8 text (byte %(b)s)")),
    (r"line (?P<l>\d+) column (?P<c>\d+): not JSON: (?P<m>.+)",
     lambda: _("line %(l)s column %(c)s: not JSON (%(m)s)")),
    (r"expected a JSON object", lambda: _("expected a JSON object")),
    (r"missing \(a whole number\)", lambda: _("missing (a whole number)")),
    (r"missing \(one of N E S W\)", lambda: _("missing (one of N E S W)")),
    (r"not a seat: (?P<v>.+) \(one of N E S W\)", lambda: _("not a seat: %(v)s (one of N E S W)")),
    (r"missing \(a card such as TH\)", lambda: _("missing (a card such as TH)")),
    (r"not a belote card: (?P<v>.+)", lambda: _("not a belote card: %(v)s")),
    (r"the table's PIN must be (?P<a>\d+) to (?P<b>\d+) digits",
     lambda: _("the table's PIN must be %(a)s to %(b)s digits")),
    (r"longer than (?P<n>\d+) characters", lambda: _("longer than %(n)s characters")),
    (r"setting '(?P<s>\w+)': (?P<rest>.+)", None),  # the setting's name, then a reason
    (r"unknown setting (?P<s>'[^']*') \(known: (?P<k>.+)\)",
     lambda: _("unknown setting %(s)s (known: %(k)s)")),
    (r"(?P<a>\d+) is over 'max_bid' (?P<b>\d+)",
     lambda: _("%(a)s is over 'max_bid' %(b)s")),
    (r"the two teams' tricks add up to (?P<n>-?\d+), not 8",
     lambda: _("the two teams' tricks add up to %(n)s, not 8")),
    (r"nothing to undo", lambda: _("nothing to undo")),
]


def refusal(text: str) -> str:
    """A refusal of bad input (``field: reason``) in the visitor's language;
    a reason no pattern knows stays as written."""
    import re

    field, sep, reason = text.partition(": ")
    if not sep:
        field, reason = "", text
    said = _reason(reason, re)
    return f"{field}: {said}" if field else said


def _reason(reason: str, re: Any) -> str:
    for pattern, template in _REASONS:
        m = re.fullmatch(pattern, reason)
        if m is None:
            continue
        if template is None:  # "setting 'x': why": say the why in turn
            return str(_("setting '%(s)s': %(why)s", s=m["s"], why=_reason(m["rest"], re)))
        return str(template() % m.groupdict())
    return reason
