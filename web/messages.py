"""Refusals as people read them: the English reasons of the rules engine, the
entry checks and the store, said again in the visitor's language.

The scorer is pure (no gettext) and the entry checks name fields by their API
names, so their messages are English text with codes in it ("bid: '80S' is not
above 80H"). ``human()`` recognises each known reason, translates its words with
Flask-Babel and shows the codes in it the way the pages do (seats, cards, bids,
teams): "Enchère : 80♠ n'est pas au-dessus de 80♥". The API keeps the field's
code apart, in its ``field`` key, for programs.

A reason no pattern knows is passed through as it is; the French pages' test
(tests/web/test_french.py) looks for English words left on the pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _

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


def _unquote(text: str) -> str:
    return text.strip().strip("'\"")


def _seat(code: str) -> str:
    return i18n.seat_names().get(_unquote(code), _unquote(code))


def _card(code: str) -> str:
    raw = _unquote(code).upper()
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    if len(raw) == 2 and raw[0] in "789TJQKA" and raw[1] in "SHDC":
        return i18n.card_label(raw)
    return _unquote(code)


def _bid(code: str) -> str:
    return i18n.bid_label(_unquote(code))


def _team(code: str) -> str:
    return i18n.team_code(_unquote(code))


def _setting(name: str) -> str:
    return i18n.setting_label(_unquote(name))


# (pattern, message, how to show each named group). Patterns match the whole
# reason; the groups are shown in French by the function named beside them.
Rule = tuple[str, Callable[[], str], dict[str, Callable[[str], str]]]
RULES: list[Rule] = [
    # -- the entry checks (web.entries) --
    (r"expected text, got (?P<value>.+)", lambda: _("expected text, got %(value)s"), {}),
    (r"missing \(one of N E S W\)", lambda: _("missing (North, East, South or West)"), {}),
    (r"not a seat: (?P<value>.+) \(one of N E S W\)",
     lambda: _("%(value)s is not a seat (North, East, South or West)"), {}),
    (r"missing \(a card such as TH\)", lambda: _("missing (a card such as 10♥)"), {}),
    (r"not a belote card: (?P<value>.+)", lambda: _("%(value)s is not a belote card"), {}),
    (r"not a card: (?P<value>.+)", lambda: _("%(value)s is not a card"), {}),
    (r"missing \(a whole number\)", lambda: _("missing (a whole number)"), {}),
    (r"expected a whole number, got (?P<value>.+)",
     lambda: _("a whole number is expected, not %(value)s"), {}),
    (r"(?P<number>-?\d+) is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     lambda: _("%(number)s is out of range (%(low)s to %(high)s)"), {}),
    (r"expected true or false, got (?P<value>.+)",
     lambda: _("yes or no is expected, not %(value)s"), {}),
    (r"longer than (?P<n>\d+) characters", lambda: _("longer than %(n)s characters"), {}),
    (r"unknown rule preset (?P<value>\S+) \(known: .*\)",
     lambda: _("unknown rule set %(value)s"), {}),
    (r"(?P<value>.+) is not clockwise or counterclockwise",
     lambda: _("%(value)s is neither clockwise nor counterclockwise"), {}),
    (r"unknown setting (?P<name>\S+) \(known: .*\)", lambda: _("unknown setting %(name)s"), {}),
    (r"setting (?P<name>\S+): expected true or false, got (?P<value>.+)",
     lambda: _("%(name)s: yes or no is expected, not %(value)s"), {"name": _setting}),
    (r"setting (?P<name>\S+): expected a whole number, got (?P<value>.+)",
     lambda: _("%(name)s: a whole number is expected, not %(value)s"), {"name": _setting}),
    (r"setting (?P<name>\S+): must not be negative, got (?P<value>.+)",
     lambda: _("%(name)s: must not be negative (%(value)s)"), {"name": _setting}),
    (r"setting (?P<name>\S+): (?P<value>.+) is not one of .*",
     lambda: _("%(name)s: %(value)s is not one of the choices"), {"name": _setting}),
    (r"the table's PIN must be (?P<a>\d+) to (?P<b>\d+) digits",
     lambda: _("the table's PIN must be %(a)s to %(b)s digits"), {}),
    (r"missing \(pass, 80H \.\.\. 160H, capotH, contre, surcontre\)",
     lambda: _("missing (pass, 80♥ … 160♥, capot, contre, surcontre)"), {}),
    (r"not a bid: (?P<value>[^(]+)( \(.*\))?", lambda: _("%(value)s is not a bid"), {}),
    (r"(?P<value>\d+) is not a multiple of 10", lambda: _("%(value)s is not a multiple of 10"),
     {}),
    (r"not a trump: (?P<value>\S+)( \(.*\))?", lambda: _("%(value)s is not a trump"), {}),
    (r"(?P<value>\S+) is not 1, 2 \(contré\) or 4 \(surcontré\)",
     lambda: _("%(value)s is not 1, 2 (contré) or 4 (surcontré)"), {}),
    (r"the two teams' tricks add up to (?P<n>\d+), not 8",
     lambda: _("the two teams' tricks add up to %(n)s, not 8"), {}),
    (r"the two teams' points add up to (?P<n>\d+), not (?P<total>\d+)",
     lambda: _("the two teams' points add up to %(n)s, not %(total)s"), {}),
    (r"not a team: (?P<value>\S+) \(NS or EW\)", lambda: _("%(value)s is not a team (NS or EO)"),
     {"value": _team}),
    (r"nothing to undo", lambda: _("nothing of yours to undo"), {}),
    (r"nothing of yours to undo", lambda: _("nothing of yours to undo"), {}),
    (r"(?P<value>.*) is not camera or manual", lambda: _("%(value)s is not camera or manual"), {}),
    (r"not valid JSON", lambda: _("not valid JSON"), {}),
    (r"expected a JSON object", lambda: _("a JSON object is expected"), {}),
    (r"expected an object or name=value lines, got .*", lambda: _("not a list of settings"), {}),
    (r"line (?P<n>\d+): expected name=value, got (?P<value>.+)",
     lambda: _("line %(n)s: a setting is expected, not %(value)s"), {}),
    (r"entry (?P<n>\d+) is no longer your last entry \((?P<m>\d+) is\)",
     lambda: _("entry %(n)s is no longer your last entry (%(m)s is)"), {}),
    (r"a camera card is corrected, not undone.*",
     lambda: _("a card the camera read is corrected, not undone"), {}),
    (r"the game is not over: (?P<n>\d+) hands? to play",
     lambda: _("the game is not over: %(n)s hands to play"), {}),
    # -- the history --
    (r"(events: )?no game (?P<n>\d+)", lambda: _("no game %(n)s"), {}),
    (r"game (?P<n>\d+) has no finished hand (?P<hand>\d+)",
     lambda: _("game %(n)s has no finished hand %(hand)s"), {}),
    (r"no picture", lambda: _("no picture"), {}),
    (r"only on the table's own computer", lambda: _("only on the table's own computer"), {}),
    (r"no frame from the camera yet", lambda: _("no frame from the camera yet"), {}),
    (r"the frame could not be encoded", lambda: _("the frame could not be encoded"), {}),
    # -- the service and the store --
    (r"(submit: )?no game is open[:;] start a game first", lambda: _("no game is open: start a "
                                                                     "game first"), {}),
    (r"append to game \d+: the game is over", lambda: _("the game is over"), {}),
    # -- the rules engine (scorer.game) --
    (r"the game has already started", lambda: _("the game has already started"), {}),
    (r"the game has not started \(no GameStarted\)", lambda: _("the game has not started"), {}),
    (r"no entry (?P<n>\d+) to undo", lambda: _("no entry %(n)s to undo"), {}),
    (r"entry (?P<n>\d+) is already undone", lambda: _("entry %(n)s is already undone"), {}),
    (r"entry (?P<n>\d+) \(\w+\) cannot be undone", lambda: _("entry %(n)s cannot be undone"), {}),
    (r"the game is over \((?P<team>\S+) won\)", lambda: _("the game is over (%(team)s won)"),
     {"team": _team}),
    (r"the game is over", lambda: _("the game is over"), {}),
    (r"no turned card in contrée", lambda: _("no turned card in contrée"), {}),
    (r"the card is turned once, before the bids",
     lambda: _("the card is turned once, before the bids"), {}),
    (r"the turned card must be named \(such as 9H\)",
     lambda: _("the turned card must be named (such as 9♥)"), {}),
    (r"a contract is entered before any bid of the hand",
     lambda: _("a contract is entered before any bid of the hand"), {}),
    (r"double must be 1, 2 or 4, not (?P<value>.+)",
     lambda: _("%(value)s is not 1, 2 (contré) or 4 (surcontré)"), {}),
    (r"not a contract value: (?P<value>[^ ]+) \(capot, or (?P<low>\d+) to (?P<high>\d+) by "
     r"tens\)",
     lambda: _("%(value)s is not a contract value (capot, or %(low)s to %(high)s by tens)"), {}),
    (r"not a contract value: (?P<value>.+)", lambda: _("%(value)s is not a contract value"), {}),
    (r"belote is announced during the play", lambda: _("belote is announced during the play"),
     {}),
    (r"no belote at Sans Atout", lambda: _("no belote at no trump"), {}),
    (r"a tally replaces the play of a hand: enter it before any card",
     lambda: _("a tally replaces the play of a hand: enter it before any card"), {}),
    (r"a tally gives points and tricks for NS and EW",
     lambda: _("a tally gives points and tricks for both teams"), {}),
    (r"a tally's tricks add up to 8", lambda: _("the two teams' tricks add up to 8"), {}),
    (r"(?P<seat>[NESW]) bid (?P<bid>\S+) outside the auction",
     lambda: _("%(seat)s bid %(bid)s outside the auction"), {"seat": _seat, "bid": _bid}),
    (r"turn the card before the bids", lambda: _("turn the card before the bids"), {}),
    (r"(?P<seat>[NESW]) spoke out of turn, (?P<other>[NESW]) to speak",
     lambda: _("%(seat)s spoke out of turn: %(other)s to speak"),
     {"seat": _seat, "other": _seat}),
    (r"(?P<bid>\S+): classic belote bids are pass, take, take:S",
     lambda: _("%(bid)s: in classic belote one passes or takes"), {"bid": _bid}),
    (r"first round: take the turned suit (?P<card>\S+)",
     lambda: _("first round: one takes the turned card's suit (%(card)s)"), {"card": _card}),
    (r"second round: name a suit other than (?P<card>\S+)",
     lambda: _("second round: name a suit other than the turned card's (%(card)s)"),
     {"card": _card}),
    (r"'take' is classic belote; contrée bids a value and a trump",
     lambda: _("one takes in classic belote; in contrée one bids a value and a trump"), {}),
    (r"(?P<bid>\S+): the contract is contré, only pass or .*",
     lambda: _("%(bid)s: the contract is contré, only pass or surcontre now"), {"bid": _bid}),
    (r"(?P<bid>\S+): Sans Atout / Tout Atout bids are not in .*",
     lambda: _("%(bid)s: no trump and all trump bids are not in these rules"), {"bid": _bid}),
    (r"(?P<bid>\S+): bids go from (?P<low>\d+) to (?P<high>\d+).*",
     lambda: _("%(bid)s: bids go from %(low)s to %(high)s"), {"bid": _bid}),
    (r"(?P<bid>\S+) is not above (?P<high>\S+)", lambda: _("%(bid)s is not above %(high)s"),
     {"bid": _bid, "high": _bid}),
    (r"(?P<seat>[NESW]) cannot bid over their own bid",
     lambda: _("%(seat)s cannot bid over their own bid"), {"seat": _seat}),
    (r"nothing to contre", lambda: _("nothing to contre"), {}),
    (r"already contré", lambda: _("already contré"), {}),
    (r"(?P<seat>[NESW]) cannot contre their own team's bid",
     lambda: _("%(seat)s cannot contre their own team's bid"), {"seat": _seat}),
    (r"surcontre answers a contre", lambda: _("surcontre answers a contre"), {}),
    (r"(?P<seat>[NESW]): only the contré team surcontres",
     lambda: _("%(seat)s: only the contré team surcontres"), {"seat": _seat}),
    (r"(?P<seat>[NESW]) played (?P<card>\S+) outside the play \((?P<phase>\w+)\)",
     lambda: _("%(seat)s played %(card)s outside the play"), {"seat": _seat, "card": _card}),
    (r"(?P<seat>[NESW]) played out of turn, (?P<other>[NESW]) to play",
     lambda: _("%(seat)s played out of turn: %(other)s to play"),
     {"seat": _seat, "other": _seat}),
    (r"(?P<seat>[NESW]) has already played in trick (?P<n>\d+)",
     lambda: _("%(seat)s has already played in trick %(n)s"), {"seat": _seat}),
    (r"(?P<card>\S+) has already been played in this hand",
     lambda: _("%(card)s has already been played in this hand"), {"card": _card}),
    (r"no card of (?P<seat>[NESW]) in trick (?P<n>\d+) of hand (?P<hand>\d+)",
     lambda: _("no card of %(seat)s in trick %(n)s of hand %(hand)s"), {"seat": _seat}),
    (r"(?P<card>\S+) has already been played in hand (?P<hand>\d+) \(trick (?P<n>\d+), "
     r"(?P<seat>[NESW])\)",
     lambda: _("%(card)s has already been played in hand %(hand)s (trick %(n)s, %(seat)s)"),
     {"card": _card, "seat": _seat}),
    (r"event (?P<n>\d+) \(\w+\): (?P<reason>.+)", lambda: "%(reason)s", {}),
]
_COMPILED = [(re.compile(p + r"\Z"), m, shows) for p, m, shows in RULES]
_FIELD = re.compile(r"^(?P<field>[a-z_]+(?:_NS|_EW)?(?:\.[A-Za-z]+)?): (?P<rest>.+)$", re.S)
# A field the event itself refused, inside the entry's message ("card: CardPlayed.card: ...").
_EVENT_FIELD = re.compile(r"^[A-Z][A-Za-z]+\.[a-z_]+: (?P<rest>.+)$", re.S)


def _reason(text: str) -> str | None:
    text = text.strip()
    inner = _EVENT_FIELD.match(text)
    if inner:
        text = inner.group("rest")
    for pattern, message, shows in _COMPILED:
        m = pattern.match(text)
        if m is None:
            continue
        values = {k: (shows[k](v) if k in shows else
                      (_reason(v) or v) if k == "reason" else _unquote(v))
                  for k, v in m.groupdict().items() if v is not None}
        return message() % values
    return None


def human(message: str, field: str | None = None) -> str:
    """``message`` (an English reason, perhaps behind ``field: ``) in the
    visitor's language, its codes shown as the pages show them.

    Outside a request (tests, the CLI) Flask-Babel leaves the English words.
    """
    text = str(message).strip()
    names = field_names()
    m = _FIELD.match(text)
    label = None
    if m and (m.group("field") in names or m.group("field") == field):
        label = names.get(m.group("field"), m.group("field"))
        text = m.group("rest")
    elif field and field in names:
        label = names[field]
    said = _reason(text)
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
