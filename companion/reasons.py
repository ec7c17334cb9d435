"""Refusals as people read them: the English reasons of the rules engine, the
entry checks and the store, said again in French (or left in English).

The scorer is pure (no gettext) and the entry checks name fields by their API
names, so their reasons are English text with codes in it ("bid: '80S' is not
above 80H"). :func:`say` recognises each known reason, translates its words and
shows the codes in it as people read them (seats, cards, bids, teams):
"80♠ n'est pas au-dessus de 80♥". The web pages (``web.messages``, Flask-Babel)
and the command line (``companion.i18n``, the standard library's gettext) both
use it, each with its own :class:`Words`; this module imports neither Flask nor
Babel, so ``belote-table score`` stays light.

The messages are the web pages' catalog's (``web/translations``), marked ``W_``;
the command line's catalog falls back to it; the hand records' reasons, which
only the command line reads, are in its own catalog (``companion/i18n.py`` says
how to update it), marked ``N_``. After changing a ``W_`` message::

    pybabel extract -F web/babel.cfg --no-default-keywords -k _ -k gettext \
        -k ngettext:1,2 -k W_ --ignore-dirs club -o web/translations/messages.pot \
        web companion/reasons.py
    pybabel update -d web/translations -i web/translations/messages.pot
    (translate it in web/translations/fr/LC_MESSAGES/messages.po)
    pybabel compile -d web/translations

A reason no pattern knows is passed through as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from companion.i18n import N_
from scorer.errors import ScorerError


def W_(message: str) -> str:
    """Marks a message of the web pages' catalog, translated where it is said."""
    return message


def _as_written(code: str) -> str:
    return code


def _joined(where: str, reason: str) -> str:
    return f"{where}: {reason}"


@dataclass(frozen=True)
class Words:
    """How one reader's language says things: its ``gettext`` and how it shows codes."""

    gettext: Callable[[str], str]
    seat: Callable[[str], str] = _as_written  # "N" -> "Nord"
    card: Callable[[str], str] = _as_written  # "TH" -> "10♥"
    bid: Callable[[str], str] = _as_written  # "80H" -> "80♥"
    team: Callable[[str], str] = _as_written  # "EW" -> "EO"
    setting: Callable[[str], str] = _as_written  # "max_bid" -> "Enchère la plus haute"
    located: Callable[[str, str], str] = _joined  # "place: reason"


ENGLISH = Words(gettext=_as_written)


def _unquote(text: str) -> str:
    return text.strip().strip("'\"")


def _card_code(text: str) -> str | None:
    raw = _unquote(text).upper()
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    if len(raw) == 2 and raw[0] in "789TJQKA" and raw[1] in "SHDC":
        return raw
    return None


# What Python's JSON parser says of bad JSON (``json.JSONDecodeError.msg``), each
# a message of the pages' catalog: a refusal says it in the reader's language,
# its line and column kept.
JSON_MESSAGES = frozenset((
    W_("Expecting value"), W_("Expecting ',' delimiter"), W_("Expecting ':' delimiter"),
    W_("Expecting property name enclosed in double quotes"),
    W_("Unterminated string starting at"), W_("Invalid control character at"),
    W_("Invalid \\escape"), W_("Invalid \\uXXXX escape"), W_("Extra data"),
    W_("Illegal trailing comma before end of object"),
    W_("Illegal trailing comma before end of array"),
))


def _json_said(message: str, words: Words) -> str:
    """A message of Python's JSON parser in ``words``' language (as written if unknown)."""
    return words.gettext(message) if message in JSON_MESSAGES else message


def _show(kind: str, value: str, words: Words) -> str:
    if kind == "json":
        return _json_said(value, words)
    code = _unquote(value)
    if kind == "type":
        return words.gettext(TYPE_NAMES[code]) if code in TYPE_NAMES else code
    if kind == "card":
        card = _card_code(value)
        return words.card(card) if card else code
    shown: str = {"seat": words.seat, "bid": words.bid, "team": words.team,
                  "setting": words.setting}[kind](code)
    return shown


# (pattern, message, how to show each named group: "seat", "card", "bid", "team", "type"
# or "setting"). Patterns match the whole reason; the other groups are shown as given.
Rule = tuple[str, str, dict[str, str]]
RULES: list[Rule] = [
    # -- the entry checks (web.entries) --
    (r"expected text, got (?P<value>.+)", W_("expected text, got %(value)s"), {}),
    (r"missing \(one of N E S W\)", W_("missing (North, East, South or West)"), {}),
    (r"not a seat: (?P<value>.+) \(one of N E S W\)",
     W_("%(value)s is not a seat (North, East, South or West)"), {}),
    (r"missing \(a card such as TH\)", W_("missing (a card such as 10♥)"), {}),
    (r"not a belote card: (?P<value>.+)", W_("%(value)s is not a belote card"), {}),
    (r"not a card: (?P<value>.+)", W_("%(value)s is not a card"), {}),
    (r"missing \(a whole number\)", W_("missing (a whole number)"), {}),
    (r"expected a whole number, got (?P<value>.+)",
     W_("a whole number is expected, not %(value)s"), {}),
    (r"(?P<number>-?\d+) is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     W_("%(number)s is out of range (%(low)s to %(high)s)"), {}),
    (r"expected true or false, got (?P<value>.+)",
     W_("yes or no is expected, not %(value)s"), {}),
    (r"longer than (?P<n>\d+) characters", W_("longer than %(n)s characters"), {}),
    (r"unknown rule preset (?P<value>\S+) \(known: .*\)",
     W_("unknown rule set %(value)s"), {}),
    (r"(?P<value>.+) is not clockwise or counterclockwise",
     W_("%(value)s is neither clockwise nor counterclockwise"), {}),
    (r"unknown setting (?P<name>\S+) \(known: .*\)", W_("unknown setting %(name)s"), {}),
    (r"setting (?P<name>\S+): expected true or false, got (?P<value>.+)",
     W_("%(name)s: yes or no is expected, not %(value)s"), {"name": "setting"}),
    (r"setting (?P<name>\S+): expected a whole number, got (?P<value>.+)",
     W_("%(name)s: a whole number is expected, not %(value)s"), {"name": "setting"}),
    (r"setting (?P<name>\S+): must not be negative, got (?P<value>.+)",
     W_("%(name)s: must not be negative (%(value)s)"), {"name": "setting"}),
    (r"setting (?P<name>\S+): (?P<value>.+) is not one of .*",
     W_("%(name)s: %(value)s is not one of the choices"), {"name": "setting"}),
    (r"the table's PIN must be (?P<a>\d+) to (?P<b>\d+) digits",
     W_("the table's PIN must be %(a)s to %(b)s digits"), {}),
    (r"missing \(pass, 80H \.\.\. 160H, capotH, contre, surcontre\)",
     W_("missing (pass, 80♥ … 160♥, capot, contre, surcontre)"), {}),
    (r"not a bid: (?P<value>[^(]+)( \(.*\))?", W_("%(value)s is not a bid"), {}),
    (r"(?P<value>\d+) is not a multiple of 10", W_("%(value)s is not a multiple of 10"),
     {}),
    (r"not a trump: (?P<value>\S+)( \(.*\))?", W_("%(value)s is not a trump"), {}),
    (r"(?P<value>\S+) is not 1, 2 \(contré\) or 4 \(surcontré\)",
     W_("%(value)s is not 1, 2 (contré) or 4 (surcontré)"), {}),
    (r"the two teams' tricks add up to (?P<n>\d+), not 8",
     W_("the two teams' tricks add up to %(n)s, not 8"), {}),
    (r"the two teams' points add up to (?P<n>\d+), not (?P<total>\d+)",
     W_("the two teams' points add up to %(n)s, not %(total)s"), {}),
    (r"not a team: (?P<value>\S+) \(NS or EW\)", W_("%(value)s is not a team (NS or EO)"),
     {"value": "team"}),
    (r"nothing to undo", W_("nothing of yours to undo"), {}),
    (r"nothing of yours to undo", W_("nothing of yours to undo"), {}),
    (r"(?P<value>.*) is not camera or manual", W_("%(value)s is not camera or manual"), {}),
    (r"not valid JSON", W_("not valid JSON"), {}),
    (r"expected a JSON object", W_("a JSON object is expected"), {}),
    (r"expected an object or name=value lines, got .*", W_("not a list of settings"), {}),
    (r"line (?P<n>\d+): expected name=value, got (?P<value>.+)",
     W_("line %(n)s: a setting is expected, not %(value)s"), {}),
    (r"entry (?P<n>\d+) is no longer your last entry \((?P<m>\d+) is\)",
     W_("entry %(n)s is no longer your last entry (%(m)s is)"), {}),
    (r"a camera card is corrected, not undone.*",
     W_("a card the camera read is corrected, not undone"), {}),
    (r"the game is not over: (?P<n>\d+) hands? to play",
     W_("the game is not over: %(n)s hands to play"), {}),
    # -- the history --
    (r"(events: )?no game (?P<n>\d+)", W_("no game %(n)s"), {}),
    (r"game (?P<n>\d+) has no finished hand (?P<hand>\d+)",
     W_("game %(n)s has no finished hand %(hand)s"), {}),
    (r"no picture", W_("no picture"), {}),
    (r"only on the table's own computer", W_("only on the table's own computer"), {}),
    (r"no frame from the camera yet", W_("no frame from the camera yet"), {}),
    (r"the frame could not be encoded", W_("the frame could not be encoded"), {}),
    # -- the service and the store --
    (r"(submit: )?no game is open[:;] start a game first", W_("no game is open: start a "
                                                                     "game first"), {}),
    (r"append to game \d+: the game is over", W_("the game is over"), {}),
    # -- the club's players, teams and concours (club: store, concours, evening) --
    (r"a player needs a name", W_("a player needs a name"), {}),
    (r"a team needs a name", W_("a team needs a name"), {}),
    (r"a concours needs a name", W_("a concours needs a name"), {}),
    (r"player name (?P<value>.+)\.\.\.: 60 characters at most",
     W_("player name '%(value)s...': 60 characters at most"), {}),
    (r"team name (?P<value>.+)\.\.\.: 60 characters at most",
     W_("team name '%(value)s...': 60 characters at most"), {}),
    (r"concours name (?P<value>.+)\.\.\.: 60 characters at most",
     W_("concours name '%(value)s...': 60 characters at most"), {}),
    (r"team (?P<name>.+): two different players, please",
     W_("team '%(name)s': two different players, please"), {}),
    (r"team (?P<name>.+): a player already plays in (?P<other>.+)",
     W_("team '%(name)s': a player already plays in '%(other)s'"), {}),
    (r"team (?P<name>.+): this concours already has a team of that name",
     W_("team '%(name)s': this concours already has a team of that name"), {}),
    (r"team (?P<name>.+): no such player or concours",
     W_("team '%(name)s': no such player or concours"), {}),
    (r"concours (?P<n>\d+): no team can join once it has started \(or there is no such "
     r"concours\)",
     W_("concours %(n)s: no team can join once it has started (or there is no such concours)"),
     {}),
    (r"concours (?P<n>\d+): round (?P<round>\d+) cannot start now",
     W_("concours %(n)s: round %(round)s cannot start now"), {}),
    (r"no concours (?P<n>\d+)", W_("no concours %(n)s"), {}),
    (r"concours (?P<name>.+): all (?P<n>\d+) rounds were played",
     W_("concours '%(name)s': all its rounds (%(n)s) were played"), {}),
    (r"(?P<n>\d+) teams: a concours needs an even number, 2 or more",
     W_("teams entered: %(n)s; a concours needs an even number of them, 2 or more"), {}),
    (r"(?P<n>\d+) teams: a concours needs 2 teams or more",
     W_("teams entered: %(n)s; a concours needs 2 or more"), {}),
    (r"rules (?P<value>.+) are not one of .+",
     W_("unknown rules '%(value)s': pick them from the list"), {}),
    (r"bye points (?P<value>.+): a whole number from 0",
     W_("points of the exempt team %(value)s: a whole number from 0"), {}),
    (r"points (?P<value>.+): a whole number from 0",
     W_("points %(value)s: a whole number from 0"), {}),
    (r"team (?P<name>.+) has played a round already: it stays as it is",
     W_("team '%(name)s' has played a round already: it stays as it is"), {}),
    (r"concours (?P<n>\d+) has no team (?P<team>\d+)",
     W_("this concours has no team %(team)s"), {}),
    (r"no match (?P<n>\d+)", W_("no match %(n)s"), {}),
    (r"match (?P<n>\d+) is a bye: it has no result to enter",
     W_("match %(n)s is a bye: it has no result to enter"), {}),
    (r"table (?P<n>\d+) exists already: choose a free number",
     W_("table %(n)s exists already: choose a free number"), {}),
    (r"mix-up (?P<n>\d+) was decided already", W_("mix-up %(n)s was decided already"), {}),
    (r"no mix-up (?P<n>\d+)", W_("no mix-up %(n)s"), {}),
    (r"table number (?P<value>.+): a whole number from 1 to 999",
     W_("table number %(value)s: a whole number from 1 to 999"), {}),
    (r"(?P<n>\d+) teams need (?P<pairs>\d+) tables; the club has (?P<tables>\d+)",
     W_("tables needed for %(n)s teams: %(pairs)s; the club has %(tables)s"), {}),
    (r"a round ends after a number of hands, at a target or after a time: choose one",
     W_("a round ends after a number of hands, at a target or after a time: choose one"), {}),
    (r"rounds (?P<value>.+): a whole number from 1",
     W_("number of rounds %(value)s: a whole number from 1"), {}),
    (r"hands (?P<value>.+): a whole number from 1",
     W_("number of hands %(value)s: a whole number from 1"), {}),
    (r"target (?P<value>.+): a whole number from 1",
     W_("target %(value)s: a whole number from 1"), {}),
    (r"minutes (?P<value>.+): a whole number from 1",
     W_("minutes per round %(value)s: a whole number from 1"), {}),
    (r"ranking (?P<value>.+) is not one of .+", W_("unknown ranking order '%(value)s'"), {}),
    (r"(?:draw|draw method) (?P<value>.+) is not draw or rotate",
     W_("the tables are drawn or rotated, not '%(value)s'"), {}),
    # -- the club server's refused messages (club.server), as its screen lists them --
    (r"table (?P<n>\d+): (?P<reason>.+)", W_("table %(n)s: %(reason)s"), {}),
    (r"not a table of this club", W_("not a table of this club"), {}),
    (r"not JSON", W_("not JSON"), {}),
    (r"not a JSON object", W_("not a JSON object"), {}),
    (r"(?P<n>\d+) bytes is too long for one event",
     W_("%(n)s bytes is too long for one event"), {}),
    (r"fields .+ are not .+", W_("not the fields of a table's event"), {}),
    (r"origin (?P<value>.+) is not a store identity",
     W_("%(value)s is not a store's identity"), {}),
    (r"says table (?P<value>.+) on table (?P<n>\d+)'s topic",
     W_("says table %(value)s on table %(n)s's topic"), {}),
    (r"(?P<key>seq|game_id|game_seq|hand_no) (?P<value>.+) is not a whole number from "
     r"(?P<low>\d+)", W_("%(key)s %(value)s is not a whole number from %(low)s"), {}),
    (r"source (?P<value>.+) is not one of (?P<known>.+)",
     W_("source %(value)s is not one of %(known)s"), {}),
    (r"ts (?P<value>.+) is not a time", W_("time %(value)s is not a time"), {}),
    (r"confidence (?P<value>.+) is not a number from 0 to 1",
     W_("confidence %(value)s is not a number from 0 to 1"), {}),
    (r"author (?P<value>.+) is not a short text",
     W_("author %(value)s is not a short text"), {}),
    (r"a game starts with GameStarted, and only there",
     W_("a game starts with its start, and only there"), {}),
    (r"seq (?P<n>\d+) differs from the event stored there",
     W_("event %(n)s differs from the one the club stored"), {}),
    (r"game (?P<n>\d+) has started already", W_("game %(n)s has started already"), {}),
    (r"game (?P<n>\d+) has not started", W_("game %(n)s has not started"), {}),
    (r"game (?P<n>\d+): event (?P<x>\d+) expected, not (?P<y>\d+)",
     W_("game %(n)s: event %(x)s expected, not %(y)s"), {}),
    (r"seq (?P<n>\d+): (?P<reason>.+)", W_("event %(n)s: %(reason)s"), {}),
    (r"event: (?P<reason>.+)", W_("event: %(reason)s"), {}),
    (r"unknown topic (?P<value>.+)", W_("unknown topic %(value)s"), {}),
]
_COMPILED = [(re.compile(p + r"\Z"), m, shows) for p, m, shows in RULES]

# The rules engine's refusals by their code (``scorer.errors``): the message people
# read (the English msgid of a catalog: W_ the pages', N_ the command line's), how
# to show each value ("seat", "card", "bid", "team", "setting" or "type"), and which
# of the error's values each name of the message takes when it is named otherwise.
# French and English are the catalogs' (``web/translations``, ``companion/translations``).
Said = tuple[str, dict[str, str], dict[str, str]]
CODES: dict[str, Said] = {
    "card.not_card": (W_("%(value)s is not a card"), {}, {}),
    "card.not_belote_card": (W_("%(value)s is not a belote card"), {}, {}),
    "card.bad_parts": (W_("%(value)s is not a belote card"), {}, {}),
    "card.written_form": (N_("%(value)s is not a belote card: rank then suit is expected, "
                             "such as TH, 10H, J♥ or 1♠ (ranks 7 8 9 10 J Q K A, or V D R "
                             "and 1 as French decks print them; suits S H D C or ♠ ♥ ♦ ♣)"),
                          {}, {}),
    "seat.not_seat": (W_("%(value)s is not a seat (North, East, South or West)"), {}, {}),
    "team.not_team": (W_("%(value)s is not a team (NS or EO)"), {"value": "team"}, {}),
    "bid.not_bid": (W_("%(value)s is not a bid"), {}, {}),
    "bid.not_notation": (W_("%(value)s is not a bid"), {}, {}),
    "contract.value": (
        W_("%(value)s is not a contract value (capot, or %(low)s to %(high)s by tens)"), {}, {}),
    "contract.trump": (W_("%(value)s is not a trump"), {}, {}),
    "contract.double": (W_("%(value)s is not 1, 2 (contré) or 4 (surcontré)"), {}, {}),
    "game.started": (W_("the game has already started"), {}, {}),
    "game.not_started": (W_("the game has not started"), {}, {}),
    "game.over_won": (W_("the game is over (%(team)s won)"), {"team": "team"},
                      {"team": "winner"}),
    "game.over_draw": (W_("the game is over"), {}, {}),
    "undo.no_entry": (W_("no entry %(n)s to undo"), {}, {"n": "index"}),
    "undo.already": (W_("entry %(n)s is already undone"), {}, {"n": "index"}),
    "undo.cannot": (W_("entry %(n)s cannot be undone"), {}, {"n": "index"}),
    "turn.contree": (W_("no turned card in contrée"), {}, {}),
    "turn.once": (W_("the card is turned once, before the bids"), {}, {}),
    "turn.unnamed": (W_("the turned card must be named (such as 9♥)"), {}, {}),
    "contract.after_bids": (W_("a contract is entered before any bid of the hand"), {}, {}),
    "belote.outside_play": (W_("belote is announced during the play"), {}, {}),
    "belote.sans_atout": (W_("no belote at no trump"), {}, {}),
    "tally.after_cards": (
        W_("a tally replaces the play of a hand: enter it before any card"), {}, {}),
    "tally.teams": (W_("a tally gives points and tricks for both teams"), {}, {}),
    "tally.tricks_sum": (W_("the two teams' tricks add up to 8"), {}, {}),
    "tally.points_sum": (
        W_("the two teams' points make %(total)s (%(ns)s + %(ew)s), not %(expected)s: "
           "%(cards)s card points and 10 for the last trick"), {}, {"ns": "NS", "ew": "EW"}),
    "tally.capot_points": (
        W_("a capot makes %(expected)s points for the team with the 8 tricks (%(team)s) "
           "and 0 for the other, not %(points)s and %(other)s"), {"team": "team"}, {}),
    "bid.outside": (W_("%(seat)s bid %(bid)s outside the auction"),
                    {"seat": "seat", "bid": "bid"}, {}),
    "bid.unturned": (W_("turn the card before the bids"), {}, {}),
    "bid.out_of_turn": (W_("%(seat)s spoke out of turn: %(other)s to speak"),
                        {"seat": "seat", "other": "seat"}, {}),
    "bid.classic_kind": (W_("%(bid)s: in classic belote one passes or takes"),
                         {"bid": "bid"}, {}),
    "bid.first_round": (W_("first round: one takes the turned card's suit (%(card)s)"),
                        {"card": "card"}, {"card": "suit"}),
    "bid.second_round": (W_("second round: name a suit other than the turned card's "
                            "(%(card)s)"), {"card": "card"}, {"card": "suit"}),
    "bid.take_contree": (
        W_("one takes in classic belote; in contrée one bids a value and a trump"), {}, {}),
    "bid.contre_only": (W_("%(bid)s: the contract is contré, only pass or surcontre now"),
                        {"bid": "bid"}, {}),
    "bid.no_sans_tout": (W_("%(bid)s: no trump and all trump bids are not in these rules"),
                         {"bid": "bid"}, {}),
    "bid.range": (W_("%(bid)s: bids go from %(low)s to %(high)s"), {"bid": "bid"}, {}),
    "bid.not_above": (W_("%(bid)s is not above %(high)s"), {"bid": "bid", "high": "bid"}, {}),
    "bid.own_bid": (W_("%(seat)s cannot bid over their own bid"), {"seat": "seat"}, {}),
    "bid.nothing_to_contre": (W_("nothing to contre"), {}, {}),
    "bid.already_contre": (W_("already contré"), {}, {}),
    "bid.contre_own_team": (W_("%(seat)s cannot contre their own team's bid"),
                            {"seat": "seat"}, {}),
    "bid.surcontre_answers": (W_("surcontre answers a contre"), {}, {}),
    "bid.surcontre_team": (W_("%(seat)s: only the contré team surcontres"),
                           {"seat": "seat"}, {}),
    "correct.no_card": (W_("no card of %(seat)s in trick %(n)s of hand %(hand)s"),
                        {"seat": "seat"}, {"n": "trick"}),
    "correct.played": (
        W_("%(card)s has already been played in hand %(hand)s (trick %(n)s, %(seat)s)"),
        {"card": "card", "seat": "seat"}, {"n": "trick"}),
    "play.outside": (W_("%(seat)s played %(card)s outside the play"),
                     {"seat": "seat", "card": "card"}, {}),
    "play.out_of_turn": (W_("%(seat)s played out of turn: %(other)s to play"),
                         {"seat": "seat", "other": "seat"}, {}),
    "play.seat_played": (W_("%(seat)s has already played in trick %(n)s"),
                         {"seat": "seat"}, {"n": "trick"}),
    "play.card_played": (W_("%(card)s has already been played in this hand"),
                         {"card": "card"}, {}),
    "input.not_whole": (W_("a whole number is expected, not %(value)s"), {}, {}),
    "input.out_of_range": (W_("%(number)s is out of range (%(low)s to %(high)s)"), {}, {}),
    "input.too_many_digits": (W_("a number of %(n)s digits (at most %(d)s)"), {},
                              {"n": "digits", "d": "most"}),
    "input.json_constant": (W_("%(name)s is not a number JSON allows"), {}, {}),
    "input.not_utf8": (W_("not UTF-8 text (byte %(b)s)"), {}, {"b": "byte"}),
    "input.not_json": (W_("line %(l)s column %(c)s: not JSON (%(m)s)"), {"m": "json"},
                       {"l": "line", "c": "column", "m": "message"}),
    "input.not_json_other": (W_("not JSON: %(error)s"), {}, {}),
    "input.too_deep": (W_("nested deeper than %(d)s levels"), {}, {"d": "depth"}),
    "input.not_seat": (W_("%(value)s is not a seat (North, East, South or West)"), {}, {}),
    "input.not_card": (W_("%(value)s is not a card"), {}, {}),
    "input.not_bid": (W_("%(value)s is not a bid"), {}, {}),
    "input.settings_kind": (W_("settings are an object of name: value, not %(kind)s"), {},
                            {"kind": "value"}),
    "input.not_preset": (W_("%(value)s is not a rule set's name"), {}, {}),
    # -- events and rule sets (scorer.events, scorer.rules) --
    "event.not_event": (W_("not an event (no type): %(value)s"), {}, {}),
    "event.unknown_type": (W_("unknown event type %(value)s"), {}, {}),
    "event.unknown_fields": (W_("unknown field(s) %(fields)s"), {}, {}),
    "event.arguments": (W_("the event's fields do not fit: %(error)s"), {}, {}),
    "event.end_reason": (W_("%(value)s is not one of %(choices)s"), {}, {}),
    "event.misfit": (W_("it does not fit the game there"), {}, {}),
    "rules.unknown_preset": (W_("unknown rule set %(value)s"), {}, {}),
    "rules.settings_kind": (W_("settings are an object of name: value, not %(kind)s"),
                            {"kind": "type"}, {}),
    "rules.unknown_setting": (W_("unknown setting %(name)s"), {}, {}),
    "rules.min_over_max": (W_("%(a)s is over 'max_bid' %(b)s"), {}, {"a": "low", "b": "high"}),
    "rules.not_bool": (W_("yes or no is expected, not %(value)s"), {}, {}),
    "rules.not_multiple": (W_("%(n)s is not a multiple of %(step)s"), {}, {"n": "value"}),
    "rules.not_choice": (W_("%(value)s is not one of %(choices)s"), {}, {}),
    # -- with the players' hands known (the simulator, the tests) and tallies --
    "play.not_held": (W_("%(seat)s does not hold %(card)s"), {"seat": "seat", "card": "card"},
                      {}),
    "play.renonce": (W_("%(seat)s played %(card)s: renonce, holding %(cards)s"),
                     {"seat": "seat", "card": "card"}, {}),
    "tally.belote_kind": (
        W_("a tally's belote is NS, EW, a list of them or null, not %(value)s"), {}, {}),
    "tally.belote_sans_atout": (W_("no belote at no trump"), {}, {}),
    "tally.one_belote": (W_("at most 1 belote in this hand"), {}, {}),
    "tally.belotes_tout_atout": (
        W_("at most %(allowed)s belotes in this hand (one per suit at all trump)"), {}, {}),
    # -- the hand records (scorer.record), which only the command line reads --
    "record.not_object": (N_("a hand record is a JSON object, not %(value)s"),
                          {"value": "type"}, {"value": "kind"}),
    "record.not_list": (N_("a list is expected, not %(value)s"), {"value": "type"},
                        {"value": "kind"}),
    "record.unknown_key": (N_("unknown key (known: %(known)s)"), {}, {}),
    "record.preset_name": (N_("%(value)s is not a rule set's name"), {}, {}),
    "record.rules_kind": (
        N_("a rule set's name or an object of settings is expected, not %(value)s"), {}, {}),
    "record.unknown_preset": (N_("unknown rule set %(value)s (known: %(known)s)"), {}, {}),
    "record.turned_missing": (N_("a classic belote record names the turned card"), {}, {}),
    "record.turned_contree": (N_("only classic belote turns a card"), {}, {}),
    "record.bids_and_contract": (N_("give bids or a contract, not both"), {}, {}),
    "record.contract_kind": (N_("an object with taker, value, trump (double) is expected"),
                             {}, {}),
    "record.auction_over": (N_("the auction is already over"), {}, {}),
    "record.auction_open": (N_("the auction is not over (%(seat)s to speak)"),
                            {"seat": "seat"}, {}),
    "record.passed_out": (N_("every player passed: there is no play"), {}, {}),
    "record.plays_and_tally": (N_("give plays or a tally, not both"), {}, {}),
    "record.hand_over": (N_("the hand is over after 32 cards"), {}, {}),
    "record.play_form": (N_("'seat:card' such as 'W:7H' is expected, not %(value)s"), {}, {}),
    "record.play_count": (N_("%(n)s cards: a hand has 32"), {}, {"n": "count"}),
    "record.card_again": (N_("%(card)s is played twice: by %(first)s in trick %(trick)s, "
                             "then by %(seat)s"),
                          {"card": "card", "first": "seat", "seat": "seat"}, {}),
    "record.dealer_missing": (N_("no dealer given: %(seat)s plays first, which is out of turn "
                                 "when North deals (the default); give \"dealer\": "
                                 "\"%(dealer)s\""), {"seat": "seat"}, {}),
    "record.missing": (N_("missing"), {}, {}),
    "record.not_object_part": (N_("an object is expected"), {}, {}),
    "record.tally_number": (W_("a whole number is expected, not %(value)s"), {}, {}),
    "record.tally_belote": (N_("NS, EW, a list of them (one per belote) or null is expected"),
                            {}, {}),
    "record.tally_kind": (N_("an object such as %(value)s is expected"), {},
                          {"value": "example"}),
    "record.no_hand": (W_("no finished hand to export"), {}, {}),
    "record.no_hand_number": (W_("no finished hand number %(hand_no)s"), {}, {}),
}

# A field the event itself refused, inside the entry's message ("card: CardPlayed.card: ...").
_EVENT_FIELD = re.compile(r"^[A-Z][A-Za-z]+\.[a-z_]+: (?P<rest>.+)$", re.S)


# Places that people do not read: the field of an event ("CardPlayed.card"), the
# place of an event in a stream ("event 4 (CardPlayed)").
_UNREAD_PLACE = re.compile(r"[A-Z][A-Za-z]+\.[a-z_]+|event \d+ \(\w+\)")


def say_error(error: ScorerError, words: Words) -> str | None:
    """A refusal of the rules engine in ``words``' language, from its code and
    values (:data:`CODES`); None when its code has no text here, or when it
    happened at a place people read (``bids[1]``: :func:`explain` says those)."""
    said = CODES.get(error.code)
    if said is None or any(not _UNREAD_PLACE.fullmatch(p) for p in error.places):
        return None
    message, shows, names = said
    values = {}
    for name in _names(message):
        value = str(error.values[names.get(name, name)])
        values[name] = _show(shows[name], value, words) if name in shows else _unquote(value)
    return words.gettext(message) % values


def _names(message: str) -> list[str]:
    return re.findall(r"%\((\w+)\)s", message)


def say(text: str | BaseException, words: Words) -> str | None:
    """``text``, one whole reason of the rules engine, the entry checks or the store,
    in ``words``' language; None when no pattern knows it. A refusal of the rules
    engine (``scorer.errors.ScorerError``) is said from its code."""
    if isinstance(text, ScorerError):
        said = say_error(text, words)
        if said is not None:
            return said
    text = str(text).strip()
    inner = _EVENT_FIELD.match(text)
    if inner:
        text = inner.group("rest")
    return _match(text, words, _COMPILED)


def _match(text: str, words: Words,
           rules: list[tuple[re.Pattern[str], str, dict[str, str]]]) -> str | None:
    for pattern, message, shows in rules:
        m = pattern.match(text)
        if m is None:
            continue
        values = {k: (_show(shows[k], v, words) if k in shows else
                      (say(v, words) or v) if k == "reason" else _unquote(v))
                  for k, v in m.groupdict().items() if v is not None}
        return words.gettext(message) % values
    return None


# What only the command line reads (the hand records' own reasons, scorer.record; the
# settings it is given, with the choices the pages show in their forms): in the command
# line's catalog (``companion/translations``), marked N_. Tried before RULES.
CLI_RULES: list[Rule] = [
    (r"unknown setting (?P<name>'[^']*') \(known: (?P<known>.+)\)",
     N_("unknown setting %(name)s (known: %(known)s)"), {}),
    (r"setting (?P<name>'[^']*'): (?P<value>.+) is not one of (?P<choices>.+)",
     N_("setting %(name)s: %(value)s is not one of %(choices)s"), {}),
    # the club's names and addresses (common.topics) and its file (club.store)
    (r"club name (?P<value>.+): use 1-32 lower-case letters, digits, - or _",
     N_("club name %(value)s: use 1 to 32 lower-case letters, digits, - or _"), {}),
    (r"table number (?P<value>.+): a whole number from 1 to 999",
     N_("table number %(value)s: a whole number from 1 to 999"), {}),
    (r"club address (?P<value>.+): expected mqtt://HOST:PORT",
     N_("club address %(value)s: mqtt://HOST:PORT is expected"), {}),
    (r"club address (?P<value>.+): the port is not a number from 1 to 65535",
     N_("club address %(value)s: the port is not a number from 1 to 65535"), {}),
    (r"club address (?P<value>.+): expected mqtt://HOST:PORT and nothing more",
     N_("club address %(value)s: mqtt://HOST:PORT is expected, and nothing more"), {}),
    (r"(?P<file>.+): cannot use the club's file: (?P<error>.+)",
     N_("%(file)s: cannot use the club's file: %(error)s"), {}),
    # the card reader's models (vision.classify) and labelled folders (belote-table vision)
    (r"no such model file", N_("no such model file"), {}),
    (r"no such detector model", N_("no such detector model"), {}),
    (r"the model's calibration file is missing", N_("the model's calibration file is missing"),
     {}),
    (r"the model has no '(?P<output>\w+)' output", N_("the model has no '%(output)s' output"),
     {}),
    (r"this model has no second-look calibration",
     N_("this model has no second-look calibration"), {}),
    (r"not a folder", N_("not a folder"), {}),
    (r"not valid JSON \((?P<error>.+)\)", N_("not valid JSON (%(error)s)"), {}),
    (r"expected an object", N_("an object is expected"), {}),
    (r"missing", N_("missing"), {}),
]
_CLI_COMPILED = [(re.compile(p + r"\Z"), m, shows) for p, m, shows in CLI_RULES]
# JSON's kinds of values by the names Python gives them in the reasons.
TYPE_NAMES = {"list": N_("a list"), "dict": N_("an object"), "str": N_("text"),
              "int": N_("a number"), "float": N_("a number"), "bool": N_("true or false"),
              "NoneType": "null"}


# The refusals of the one validator (scorer.validate, scorer.rules, web.entries):
# each pattern is a whole reason; the names (fields, settings) and the values stay
# as they were given. None: "setting 'x': why", the why said in turn.
INPUT_RULES: list[tuple[str, str | None]] = [
    (r"expected a whole number, got (?P<v>.+)", W_("expected a whole number, got %(v)s")),
    (r"(?P<n>-?\d+) is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     W_("%(n)s is out of range (%(low)s to %(high)s)")),
    (r"a number over (?P<d>\d+) digits is out of range \((?P<low>-?\d+) to (?P<high>-?\d+)\)",
     W_("a number over %(d)s digits is out of range (%(low)s to %(high)s)")),
    (r"(?P<n>-?\d+) is not a multiple of (?P<step>\d+)",
     W_("%(n)s is not a multiple of %(step)s")),
    (r"a number of (?P<n>\d+) digits \(at most (?P<d>\d+)\)",
     W_("a number of %(n)s digits (at most %(d)s)")),
    (r"nested deeper than (?P<d>\d+) levels", W_("nested deeper than %(d)s levels")),
    (r"not UTF-8 text \(byte (?P<b>\d+)\)", W_("not UTF-8 text (byte %(b)s)")),
    (r"line (?P<l>\d+) column (?P<c>\d+): not JSON: (?P<m>.+)",
     W_("line %(l)s column %(c)s: not JSON (%(m)s)")),
    (r"expected a JSON object", W_("expected a JSON object")),
    (r"missing \(a whole number\)", W_("missing (a whole number)")),
    (r"missing \(one of N E S W\)", W_("missing (one of N E S W)")),
    (r"not a seat: (?P<v>.+) \(one of N E S W\)", W_("not a seat: %(v)s (one of N E S W)")),
    (r"missing \(a card such as TH\)", W_("missing (a card such as TH)")),
    (r"not a belote card: (?P<v>.+)", W_("not a belote card: %(v)s")),
    (r"the table's PIN must be (?P<a>\d+) to (?P<b>\d+) digits",
     W_("the table's PIN must be %(a)s to %(b)s digits")),
    (r"longer than (?P<n>\d+) characters", W_("longer than %(n)s characters")),
    (r"setting '(?P<s>\w+)': (?P<rest>.+)", None),  # the setting's name, then a reason
    (r"unknown setting (?P<s>'[^']*') \(known: (?P<k>.+)\)",
     W_("unknown setting %(s)s (known: %(k)s)")),
    (r"(?P<a>\d+) is over 'max_bid' (?P<b>\d+)",
     W_("%(a)s is over 'max_bid' %(b)s")),
    (r"the two teams' tricks add up to (?P<n>-?\d+), not 8",
     W_("the two teams' tricks add up to %(n)s, not 8")),
    (r"nothing to undo", W_("nothing to undo")),
]
_INPUT_COMPILED = [(re.compile(p), m) for p, m in INPUT_RULES]


def input_reason(reason: str, words: Words) -> str:
    """A reason of the input checks in ``words``' language; as written when unknown."""
    for pattern, template in _INPUT_COMPILED:
        m = pattern.fullmatch(reason)
        if m is None:
            continue
        if template is None:
            return words.gettext(W_("setting '%(s)s': %(why)s")) % {
                "s": m["s"], "why": input_reason(m["rest"], words)}
        values = m.groupdict()
        if "m" in values:  # Python's JSON parser's own words
            values["m"] = _json_said(values["m"], words)
        return words.gettext(template) % values
    return reason


def refusal(text: str, words: Words, whole: bool = False) -> str:
    """A refusal of bad input (``field: reason``) in ``words``' language; a reason
    no pattern knows stays as written. ``whole``: ``text`` is the reason alone
    (its field already said), "setting 'x': why" included."""
    if whole:
        return input_reason(text, words)
    field, sep, reason = text.partition(": ")
    if not sep:
        field, reason = "", text
    said = input_reason(reason, words)
    return f"{field}: {said}" if field else said


_PLACE = re.compile(r"(?P<where>[^\s:]+): (?P<rest>.+)", re.S)
_PLACE_NAME = re.compile(r"[^\s:]+")


def explain(text: object, words: Words) -> str:
    """Any refusal as the command line prints it: ``text`` whole if a pattern knows
    it, else its places (``bids[1]: ``, ``dealer: ``) peeled one by one and joined
    again to the reason said in ``words``' language (``bids[1] : 85♥ n'est pas une
    enchère``); what no pattern knows stays as written, places and all.

    >>> fr = Words(gettext={"%(value)s is not a bid": "%(value)s n'est pas une enchère"}.get,
    ...            located=lambda where, why: f"{where} : {why}")
    >>> explain("bids[1]: not a bid: '85H' (80..160 by tens)", fr)
    "bids[1] : 85H n'est pas une enchère"
    >>> explain("rules: something new", fr)
    'rules: something new'
    """
    if isinstance(text, ScorerError) and _match(str(text).strip(), words, _CLI_COMPILED) is None:
        # The command line's own patterns first (they name the known settings, the
        # choices...); then the code, its places peeled as below.
        places = [p for p in text.places if not _UNREAD_PLACE.fullmatch(p)]
        said = say_error(ScorerError.wrap(text, drop=len(text.places)), words)
        if said is not None and all(_PLACE_NAME.fullmatch(p) for p in places):
            for where in reversed(places):
                said = words.located(where, said)
            return said
    reason = str(text).strip()
    said = _match(reason, words, _CLI_COMPILED)
    if said is None:
        said = say(reason, words)
    if said is not None:
        return said
    place = _PLACE.fullmatch(reason)
    if place:
        said = explain(place["rest"], words)
        # A reason no pattern knows stays as written, its punctuation included.
        return reason if said == place["rest"] else words.located(place["where"], said)
    return input_reason(reason, words)
