"""Words the pages show, in the visitor's language (French by default).

The page script draws the table from the state JSON, so it gets its words
from here, translated on the server by Flask-Babel, in one JSON object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import redirect, request, session
from flask_babel import get_locale
from flask_babel import gettext as _

from companion import reasons
from companion.reasons import W_
from scorer.bidding import PASS, TAKE, Bid, InvalidBidError
from scorer.cards import RANK_INDEX_EN, RANK_INDEX_FR, SEATS, SUIT_SYMBOLS, TRUMPS, Card
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardCorrected,
    CardPlayed,
    CardTurned,
    ContractSet,
    EntryUndone,
    Event,
    GameEnded,
    GameStarted,
    TallyEntered,
)


def is_french() -> bool:
    return str(get_locale() or "fr") != "en"


def team_code(team: str) -> str:
    """``NS`` and ``EW`` as the visitor writes them: NS and EO in French."""
    return str({"NS": _("NS"), "EW": _("EW")}.get(team, team))


def team_name(teams: Mapping[str, str] | None, team: str) -> str:
    """A team's name; a team left unnamed (its name is its code) by its code in French."""
    name = (teams or {}).get(team) or team
    return team_code(team) if name == team else name


def team_names(teams: Mapping[str, str] | None) -> dict[str, str]:
    return {t: team_name(teams, t) for t in ("NS", "EW")}


def seat_names() -> dict[str, str]:
    return dict(zip(SEATS, (_("North"), _("East"), _("South"), _("West")), strict=True))


def trump_names() -> dict[str, str]:
    return dict(zip(TRUMPS, (_("spades"), _("hearts"), _("diamonds"), _("clubs"),
                             _("no trump"), _("all trump")), strict=True))


def rule_names() -> dict[str, str]:
    """What each kind of renonce means (docs/design.md's ``rule`` values)."""
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
        # Said alone on the information line: a phrase, not a lone "jeu".
        "phases": {"setup": _("no game yet"), "bidding": _("bidding in progress"),
                   "play": _("cards being played"), "over": _("game over")},
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
        "team_codes": {"NS": team_code("NS"), "EW": team_code("EW")},
        "status_line": _("%(part)s: %(value)s"),
        # A seat's bid in the auction line ("S : 90♦" in French).
        "bid_line": _("%(seat)s: %(bid)s"),
        "camera_troubles": camera_troubles(),
        "status_values": {v: status_value(v) for v in (
            "ok", "off", "searching", "connecting", "incompatible", "virtual table", "lost",
            "error", "manual", "paused", "none")},
        "draw": _("the game ends in a draw"),
        "nothing_to_undo": _("Nothing of yours to undo."),
        "correct_what": _("Correct %(seat)s's card in trick %(trick)s to %(card)s?"),
        "nothing_corrected": _("Nothing corrected."),
        "pending": _("waiting for its turn"),
        # An unread card the deal and the camera's reads filled (companion.fill).
        "filled": _("deduced"),
        "filled_title": _("Deduced from the deal and the camera's reads; possible: %(cards)s"),
        "question": _("%(seat)s, trick %(trick)s: %(cards)s?"),
        "in_hand": _("Hand %(hand)s:"),
        "or": _("or"),
        "waiting_cards": _("Put down out of turn, waiting for their turn: %(cards)s"),
        "storage": storage_words(),
        "problems": {
            "calibration_missing": _(
                "Setting to fix: the calibration file %(detail)s is missing. Calibrate the "
                "table again (belote-table calibrate) or fix the path in "
                "/etc/default/belote-table. Meanwhile, enter the cards by hand."),
            "calibration_bad": _(
                "Setting to fix: the calibration file %(detail)s cannot be read. Calibrate "
                "the table again (belote-table calibrate). Meanwhile, enter the cards by hand."),
            "model_missing": _(
                "Setting to fix: the card reader's model %(detail)s is missing. Fix the path "
                "in /etc/default/belote-table or leave --model out. Meanwhile, enter the "
                "cards by hand."),
            "model": _(
                "Setting to fix: the card reader's model %(detail)s cannot be loaded. "
                "Meanwhile, enter the cards by hand."),
            "zoom": _(
                "Setting to fix: %(detail)s is not a zoom the camera takes (1 or more, with "
                "--picamera only). Fix it in /etc/default/belote-table. Meanwhile, enter the "
                "cards by hand."),
            "other": _("Setting to fix: %(detail)s. Meanwhile, enter the cards by hand."),
        },
        "hands_played": _("%(n)s hands played"),
        "camera_read": _("what the camera read"),
        "read": _("read"),
        "decimal": "," if is_french() else ".",
        "contract_missing": _("Choose the taker, the value and the trump."),
        "hand_of": _("hand %(n)s of %(total)s"),
        "time_left": _("%(n)s min left"),
        "time_up": _("time is up: last hand"),
        "last_entry": _("Your last entry:"),
        "undo_question": _("Undo “%(entry)s”?"),
        "game_over": _("Game over"),
    }


def storage_words() -> dict[str, str]:
    """What the page says when the disk refuses to write (by the store's
    ``fault``) or the store was recovered at start: what is wrong, what to do."""
    return {
        "full": _("The table's disk is full: the cards are still followed on this page, but "
                  "%(n)s events are not saved yet. Free some space on the Pi (old backups, "
                  "exports, logs); saving resumes by itself."),
        "readonly": _("The table's disk no longer accepts writing (read-only: %(detail)s): "
                      "the cards are still followed on this page, but %(n)s events are not "
                      "saved yet. Check the SD card and the rights on the folder of %(path)s; "
                      "saving resumes by itself once it can write."),
        "io": _("The table's disk fails to write (%(detail)s): the cards are still followed "
                "on this page, but %(n)s events are not saved yet. The SD card may be "
                "failing: do not switch the Pi off, and download the evening as soon as you "
                "can; saving resumes by itself if the card recovers."),
        "recovered": _("The table's database was damaged: %(n)s events were recovered into a "
                       "new database (%(lost)s lost). The damaged file is kept beside it as "
                       "%(aside)s."),
    }


def storage_message(storage: Mapping[str, Any]) -> str:
    """``TableService.storage()`` said for the visitor (empty when all is well)."""
    said = storage_words()
    parts = []
    if storage.get("fault"):
        parts.append(said.get(str(storage["fault"]), said["io"]) % {
            "n": storage.get("unsaved") or 0, "detail": storage.get("detail") or "",
            "path": storage.get("path") or ""})
    recovered = storage.get("recovered")
    if recovered:
        parts.append(said["recovered"] % {"n": recovered.get("events"),
                                          "lost": recovered.get("lost", "?"),
                                          "aside": recovered.get("aside")})
    return " ".join(parts)


def preset_names() -> dict[str, str]:
    """The rule presets (``scorer.rules.PRESETS``) by French name."""
    return {
        "ffb": _("FFB contrée"),
        "ffb-sata": _("FFB contrée with no trump and all trump"),
        "ffb-pfd": _("FFB contrée, points made + bid"),
        "ffb-pfd-note1": _("FFB contrée, points made + bid, contre 160"),
        "ffb-en": _("FFB contrée, more points than the defence"),
        "classic": _("Classic belote (turned card)"),
        "classic-82": _("Classic belote, 82 points to make"),
        "club": _("Club contrée"),
        "club-variant": _("Club contrée, variant"),
    }


def preset_descriptions() -> dict[str, str]:
    """One line on what each preset is."""
    return {
        "ffb": _("The French Belote Federation's official rules (2016), games to 1000."),
        "ffb-sata": _("The official rules with no trump and all trump bids (FFB 11)."),
        "ffb-pfd": _("Official rules, counted points made + points bid (FFB 10.2)."),
        "ffb-pfd-note1": _("Points made + bid, a contre adds 160 (tournaments, FFB 10.2 "
                           "note 1)."),
        "ffb-en": _("Official rules; the takers must also score more than the defence."),
        "classic": _("A turned card, take or pass; 162 to the defence when the takers fall."),
        "classic-82": _("Classic belote: the takers need 82 points; a fall leaves the "
                        "defence its own points."),
        "club": _("Takers score their contract, unannounced capot 250, games to 2000."),
        "club-variant": _("Contre doubles the contract, the defence scores nothing on a "
                          "made contract, must undertrump, games to 1500."),
    }


def preset_label(preset: str | None) -> str:
    return preset_names().get(preset or "ffb", preset or "ffb")


def setting_labels() -> dict[str, str]:
    """Each rule setting (``scorer.rules.Rules``) as the set-up form names it."""
    return {
        "game": _("Game"), "target": _("Target (points to win)"),
        "clockwise": _("Play clockwise"), "scoring": _("Counting"),
        "contre_scoring": _("Contre and surcontre"),
        "made_needs_more": _("Takers must also score more than the defence"),
        "contre_160": _("A contre adds 160"),
        "sans_tout_atout": _("No trump and all trump bids"),
        "belote": _("Belote counts"),
        "must_undertrump": _("Must trump lower when one cannot overtrump"),
        "partner_master_free": _("Free discard when the partner holds the trick"),
        "renonce_penalty": _("Penalty for a renonce"),
        "unannounced_capot": _("Unannounced capot scores (0: its points)"),
        "rounding": _("Round hand scores to the ten"),
        "tout_atout_convert": _("All trump points brought back to 162"),
        "min_bid": _("Lowest bid"), "max_bid": _("Highest bid"),
        "dedans_points": _("Classic: points to the defence on a fall"),
        "capot_points": _("Classic: a capot scores"),
        "classic_taker_wins": _("Classic: takers make their contract with"),
        "litige_held_over": _("A tie (litige) is held over to the next hand"),
        "hands": _("Number of hands (0: up to the target)"),
    }


def setting_label(name: str) -> str:
    return setting_labels().get(name, name)


def choice_labels() -> dict[str, dict[str, str]]:
    """The values of each enumerated setting (``scorer.rules.CHOICES``)."""
    return {
        "game": {"contree": _("contrée"), "classic": _("classic belote")},
        "scoring": {"points-faits": _("points made"),
                    "points-faits-demandes": _("points made + bid"),
                    "contract": _("the contract (club)"),
                    "contract-only": _("the contract only, nothing to the defence")},
        "contre_scoring": {"table": _("FFB table (320, 640…)"),
                           "multiply": _("contract × 2, × 4")},
        "belote": {"announced": _("when announced"), "auto": _("by itself (king and queen)")},
        "renonce_penalty": {"hand-lost": _("hand lost, valued by the FFB 10.2 table"),
                            "flat-160": _("hand lost, 160 to the others"),
                            "flat-162": _("162 to the others"),
                            "contract": _("the contract to the others"),
                            "cancel": _("hand cancelled")},
        "classic_taker_wins": {"more": _("more than the defence"),
                               "half": _("at least 82 points")},
    }


def status_value(value: Any) -> str:
    """A camera or display status word (``ok``, ``searching``...) in the visitor's language."""
    names = {"ok": _("working"), "off": _("off"), "searching": _("searching"),
             "connecting": _("connecting"), "incompatible": _("incompatible firmware"),
             "virtual table": _("virtual table"),
             "lost": _("lost: hand entry works, looking for it again…"), "error": _("fault"),
             "manual": _("manual entry"), "paused": _("paused"), "none": _("none")}
    text = "" if value is None else str(value)
    return str(names.get(text, text))


def camera_troubles() -> dict[str, str]:
    """Why a camera is lost (``vision.sources.SourceError``'s English templates, which
    the status's ``camera_trouble`` names) in the visitor's language; the page's
    script fills in the values."""
    return {template: str(_(template)) for template in (
        W_("camera %(index)s: OpenCV cannot open it (a Raspberry Pi camera module needs "
           "PiCameraSource)"),
        W_("camera %(index)s: no frame (unplugged?)"),
        W_("picamera2 is not installed: on the Pi, `sudo apt install python3-picamera2` and "
           "a venv with --system-site-packages"),
        W_("zoom must be 1 or more (1: the whole sensor; 2: its centre, twice closer), not "
           "%(zoom)s"),
        W_("%(path)s: no such video file"),
        W_("%(path)s: OpenCV cannot open this video"),
        W_("%(path)s: no such folder"),
        W_("%(path)s: no images (.jpg, .png, .bmp) in this folder"),
    )}


def number(value: float, digits: int = 2) -> str:
    """A decimal with the visitor's separator: 0,98 in French."""
    from flask_babel import format_decimal

    return str(format_decimal(value, "0." + "0" * digits))


def entry_sentence(event: Event, source: str | None = None,
                   confidence: float | None = None) -> str:
    """One stored entry as a sentence: "South plays the 10♠, camera 0.98"."""
    seats = seat_names()
    raw_seat = str(getattr(event, "seat", None))
    seat = seats.get(raw_seat, raw_seat)
    text: str
    if isinstance(event, CardPlayed):
        text = (_("%(seat)s plays %(card)s") % {"seat": seat, "card": card_label(event.card)}
                if event.card else _("%(seat)s puts down an unknown card") % {"seat": seat})
    elif isinstance(event, BidMade):
        bid = str(event.bid)
        text = (_("%(seat)s passes") % {"seat": seat} if bid == "pass" else
                _("%(seat)s says %(bid)s") % {"seat": seat, "bid": bid_label(bid)})
    elif isinstance(event, ContractSet):
        value = event.value
        text = _("Contract: %(seat)s %(value)s %(trump)s") % {
            "seat": seats.get(str(event.taker), ""),
            "value": _("capot") if value == "capot" else value,
            "trump": trump_names().get(str(event.trump), "")}
        if event.double == 2:
            text += " " + _("contré")
        elif event.double == 4:
            text += " " + _("surcontré")
    elif isinstance(event, CardCorrected):
        text = _("%(seat)s's card in trick %(trick)s is %(card)s") % {
            "seat": seat, "trick": event.trick, "card": card_label(event.new)}
    elif isinstance(event, CardTurned):
        text = _("Turned card: %(card)s") % {"card": card_label(event.card)}
    elif isinstance(event, BeloteAnnounced):
        text = _("%(seat)s announces belote") % {"seat": seat}
    elif isinstance(event, EntryUndone):
        text = _("Entry %(n)s undone") % {"n": event.index}
    elif isinstance(event, TallyEntered):
        points, tricks = event.points, event.tricks
        text = _("Tally: %(NS)s %(pNS)s points (%(tNS)s tricks), %(EW)s %(pEW)s points "
                 "(%(tEW)s tricks)") % {
            "NS": team_code("NS"), "EW": team_code("EW"), "pNS": points.get("NS"),
            "pEW": points.get("EW"), "tNS": tricks.get("NS"), "tEW": tricks.get("EW")}
        if event.belote:
            text += ", " + _("belote %(team)s") % {"team": team_code(str(event.belote))}
    elif isinstance(event, GameStarted):
        text = _("Game started (%(rules)s)") % {"rules": preset_label(event.rules)}
    elif isinstance(event, GameEnded):
        text = _("Game ended by the organiser")
    else:
        text = type(event).__name__
    if source == "camera":
        text += ", " + _("camera")
        if confidence is not None:
            text += " " + number(confidence)
    return str(text)


def source_label(source: str | None) -> str:
    """Where an entry came from: the camera, the web page, the simulator."""
    return str({"camera": _("camera"), "web": _("by hand"), "simulator": _("simulator")}.get(
        source or "", source or ""))


def csv_words() -> dict[str, Any]:
    """The club spreadsheet's headers and values (``companion.export.club_csv``)."""
    ns, ew = team_code("NS"), team_code("EW")
    return {
        "headers": (_("Date"), _("Time"), _("Table"), _("Game"), _("Hand"), _("Dealer"),
                    _("Team") + " " + ns, _("Players") + " " + ns, _("Team") + " " + ew,
                    _("Players") + " " + ew, _("Taker"), _("Contract"), _("Trump"),
                    _("Contré"), _("Result"), _("Belote"), _("Renonces"),
                    _("Points") + " " + ns, _("Points") + " " + ew, _("Score") + " " + ns,
                    _("Score") + " " + ew, _("Total") + " " + ns, _("Total") + " " + ew),
        "seats": seat_names(),
        "teams": {"NS": ns, "EW": ew},
        "trumps": trump_names(),
        "double": {1: "", 2: _("contré"), 4: _("surcontré")},
        "made": {True: _("made"), False: _("fallen"), None: _("pass")},
        "capot": _("capot"),
        "and": " " + _("and") + " ",
        "date": "%d/%m/%Y" if is_french() else "%Y-%m-%d",
        "time": "%H:%M",
    }


def refusal(text: str, whole: bool = False) -> str:
    """A refusal of bad input (``field: reason``) in the visitor's language
    (``companion.reasons.refusal``); a reason no pattern knows stays as written.
    ``whole``: ``text`` is the reason alone (its field already said)."""
    return reasons.refusal(text, reasons.Words(gettext=_), whole)


def choose_language(code: str) -> Any:
    """The ``/lang/<code>`` view of the table's and the club's pages: remember the
    visitor's language (French unless English is chosen) and go back."""
    if code in ("fr", "en"):
        session["lang"] = code
    back = request.referrer or "/"
    # Only go back within this site.
    return redirect(back if back.startswith(request.host_url) else "/")


def change_lines(found: Mapping[str, Any], state: Mapping[str, Any]) -> list[str]:
    """What a correction or an undo would change (``companion.preview.changes``),
    one sentence a line, in the visitor's language: the tricks whose winner
    changes, the renonces that would appear or go, the scores."""
    seats = seat_names()
    rules = rule_names()
    teams = team_names(state.get("teams"))
    current = state.get("hand_no")

    def seat(code: Any) -> str:
        return seats.get(str(code), "?") if code else _("nobody known")

    def where(hand_no: Any, trick: Any) -> str:
        if hand_no == current:
            return str(_("Trick %(trick)s") % {"trick": trick})
        return str(_("Hand %(hand)s, trick %(trick)s") % {"hand": hand_no, "trick": trick})

    def renonce(r: Mapping[str, Any]) -> str:
        proof = r.get("proof") or {}
        return str(_("%(seat)s in %(where)s: %(rule)s, proved by %(card)s in trick %(proof)s")
                   % {"seat": seat(r.get("seat")), "where": where(r.get("hand_no"),
                                                                   r.get("trick")).lower(),
                      "rule": rules.get(str(r.get("rule")), str(r.get("rule"))),
                      "card": card_label(proof.get("card")), "proof": proof.get("trick")})

    def totals(score: Mapping[str, Any]) -> str:
        return " - ".join(f"{teams[t]} {score.get(t, 0)}" for t in ("NS", "EW"))

    lines = [str(_("%(where)s: won by %(after)s instead of %(before)s")
                 % {"where": where(w.get("hand_no"), w.get("trick")),
                    "after": seat(w.get("after")), "before": seat(w.get("before"))})
             for w in found.get("winners") or []]
    renonces = found.get("renonces") or {}
    lines += [str(_("Renonce that would appear: %(renonce)s") % {"renonce": renonce(r)})
              for r in renonces.get("appear") or []]
    lines += [str(_("Renonce that would go: %(renonce)s") % {"renonce": renonce(r)})
              for r in renonces.get("go") or []]
    for hand in found.get("hands") or []:
        lines.append(str(_("Hand %(hand)s scores %(after)s instead of %(before)s")
                         % {"hand": hand.get("hand_no"), "after": totals(hand.get("after") or {}),
                            "before": totals(hand.get("before") or {})}))
    points = found.get("points") or {}
    if points.get("before") != points.get("after"):
        lines.append(str(_("Card points of this hand: %(after)s instead of %(before)s")
                         % {"after": totals(points.get("after") or {}),
                            "before": totals(points.get("before") or {})}))
    scores = found.get("scores") or {}
    if scores.get("before") != scores.get("after"):
        lines.append(str(_("Score: %(after)s instead of %(before)s")
                         % {"after": totals(scores.get("after") or {}),
                            "before": totals(scores.get("before") or {})}))
    pending = found.get("pending") or {}
    if pending.get("before") != pending.get("after"):
        lines.append(str(_("Cards waiting for their turn: %(after)s instead of %(before)s")
                         % {"after": pending.get("after"), "before": pending.get("before")}))
    if not found.get("changes"):
        lines.append(str(_("No trick winner, renonce or score changes.")))
    return lines
