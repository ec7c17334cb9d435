"""Refusals as people read them: the English reasons of the rules engine, the
entry checks and the store, said again in the visitor's language.

The scorer is pure (no gettext) and the entry checks name fields by their API
names, so their messages are English text with codes in it ("bid: '80S' is not
above 80H"). ``human()`` names the field as the forms do and has
``companion.reasons`` (the patterns, shared with the command line) say the
reason with Flask-Babel's words and the codes shown the way the pages do (seats,
cards, bids, teams): "Enchère : 80♠ n'est pas au-dessus de 80♥". The API keeps
the field's code apart, in its ``field`` key, for programs.

A reason no pattern knows is passed through as it is; the French pages' test
(tests/web/test_french.py) looks for English words left on the pages.
"""

from __future__ import annotations

import re

from flask_babel import gettext as _

from companion import reasons
from scorer.errors import ScorerError
from web import i18n


def field_names() -> dict[str, str]:
    """The API's field names, as the forms call them."""
    return {
        "seat": _("Seat"), "card": _("Card"), "bid": _("Bid"), "taker": _("Taker"),
        "value": _("Value"), "trump": _("Trump"), "double": _("Contré"),
        "trick": _("Trick"), "hand": _("Hand"), "pin": _("PIN"), "rules": _("Rule set"),
        "settings": _("Settings"), "target": _("Target"), "direction": _("Direction of play"),
        "dealer": _("First dealer"), "teams.NS": _("Team North–South"),
        "teams.EW": _("Team East–West"), "players.N": _("North"), "players.E": _("East"),
        "players.S": _("South"), "players.W": _("West"), "points": _("Points"),
        "tricks": _("Tricks"), "belote": _("Belote"), "tally": _("Tally"), "undo": _("Undo"),
        "body": _("Request"), "contract": _("Contract"), "hands": _("Number of hands"),
        "minutes": _("Time limit"), "end": _("End of the game"), "mode": _("Entry"),
        **{f"points_{t}": _("Points") + " " + i18n.team_code(t) for t in ("NS", "EW")},
        **{f"tricks_{t}": _("Tricks") + " " + i18n.team_code(t) for t in ("NS", "EW")},
    }


def words() -> reasons.Words:
    """How the visitor's language says a reason (Flask-Babel, the pages' labels)."""
    return reasons.Words(gettext=_, seat=lambda code: i18n.seat_names().get(code, code),
                         card=i18n.card_label, bid=i18n.bid_label, team=i18n.team_code,
                         setting=i18n.setting_label)


_FIELD = re.compile(r"^(?P<field>[a-z_]+(?:_NS|_EW)?(?:\.[A-Za-z]+)?): (?P<rest>.+)$", re.S)


def human(message: str | BaseException, field: str | None = None) -> str:
    """``message`` (an English reason, perhaps behind ``field: ``, or a refusal of
    the rules engine, said from its code) in the visitor's language, its codes
    shown as the pages show them.

    Outside a request (tests, the CLI) Flask-Babel leaves the English words.
    """
    names = field_names()
    if isinstance(message, ScorerError):
        where = message.places[0] if message.places else None
        label = names.get(where, where) if where in names or (where and where == field) else (
            names.get(field) if field and not message.places else None)
        inner = ScorerError.wrap(message, drop=1) if label is not None and where else message
        said = reasons.say_error(inner, words())
        if said is not None:
            return said if label is None else str(_("%(field)s: %(reason)s") % {
                "field": label, "reason": said})
    text = str(message).strip()
    m = _FIELD.match(text)
    label = None
    if m and (m.group("field") in names or m.group("field") == field):
        label = names.get(m.group("field"), m.group("field"))
        text = m.group("rest")
    elif field and field in names:
        label = names[field]
    said = reasons.say(text, words())
    if said is None:
        # The reasons of the input checks (scorer.validate, the request limits).
        said = i18n.refusal(text, whole=True)
    if label is None:
        return str(said)
    return str(_("%(field)s: %(reason)s") % {"field": label, "reason": said})


def http_reason(code: int | None) -> str:
    """An HTTP refusal in words (Werkzeug's own descriptions are English)."""
    return str({
        400: _("the request could not be read"),
        403: _("this change needs the table's PIN"),
        404: _("this page does not exist"),
        405: _("this address does not take this kind of request"),
        413: _("the request is too large"),
        429: _("too many PIN attempts: wait a minute and try again"),
        503: _("the table is busy: try again in a moment"),
    }.get(code or 500, _("something went wrong on the table's computer")))
