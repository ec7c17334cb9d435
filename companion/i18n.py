"""Words the command line says, in French unless English is asked for.

``belote-table`` speaks French by default, English with ``--lang en`` or an
English locale in the environment (``LC_ALL``, ``LC_MESSAGES`` or ``LANG``
starting with ``en``, e.g. ``LANG=en_US.UTF-8``; ``C`` or unset: French).

The messages are written in English in the code and looked up with the
standard library's ``gettext`` in ``companion/translations``; what it lacks is
looked up in the web pages' catalog (``web/translations``), so a word the
pages already translate (a team, a bid) reads the same on the page and in the
terminal. After changing a message::

    pybabel extract -F companion/babel.cfg --project belote-table -k N_ \
        -k DeckError -k SourceError -k CalibrationError -k ImageFileError \
        -k ReaderCheckError --no-location --sort-output \
        -o companion/translations/companion.pot \
        companion cli vision/deck.py vision/sources.py \
        vision/calibration.py vision/imagefile.py vision/classify.py vision/card_size.py
    pybabel update -D companion -d companion/translations -w 100 \
        -i companion/translations/companion.pot
    (translate the new entries of companion/translations/fr/LC_MESSAGES/companion.po)
    pybabel compile -D companion -d companion/translations

The command line (``cli/``, the reader's commands ``cli/cmd_vision.py`` too) speaks
through this catalog; the card reader's runtime
below it (``vision/``) cannot import it, so its refusals are English templates
(``vision.errors.ExplainedError``) that :func:`reason` looks up here when a
command prints them: ``pybabel extract`` finds them by the exceptions' names.
Reading a ``.mo`` file needs neither Flask nor Babel: ``belote-table score``
stays light.

argparse looks up its own words (``usage:``, ``options``, its errors) through
the ``gettext`` functions it imported; :func:`use` points them at this
catalog, which holds their French (the ``ARGPARSE_WORDS`` below).
"""

from __future__ import annotations

import argparse
import gettext
import os
import sys
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).resolve().parent / "translations"
WEB_LOCALE_DIR = Path(__file__).resolve().parent.parent / "web" / "translations"
LANGUAGES = ("fr", "en")

_translation: gettext.NullTranslations | None = None
_language = "fr"


def N_(message: str) -> str:
    """Marks a message for the catalog where it is written, translated where it is said."""
    return message


# argparse's own words, so that ``pybabel extract`` keeps them in our catalog.
ARGPARSE_WORDS = (
    N_("usage: "), N_("options"), N_("positional arguments"),
    N_("show this help message and exit"), N_("%(prog)s: error: %(message)s\n"),
    N_("the following arguments are required: %s"), N_("unrecognized arguments: %s"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"), N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"), N_("ignored explicit argument %r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"), N_("subcommands"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
)


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """``en`` when the locale that decides messages is English, else ``fr``.

    >>> language_from_env({"LANG": "en_US.UTF-8"}), language_from_env({"LANG": "C"})
    ('en', 'fr')
    >>> language_from_env({"LC_ALL": "fr_FR.UTF-8", "LANG": "en_GB.UTF-8"})
    'fr'
    """
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:  # POSIX: the first one set decides
            return "en" if value.lower().startswith("en") else "fr"
    return "fr"


def use(language: str) -> None:
    """Speak ``language`` (``fr`` or ``en``) from now on, argparse included."""
    global _translation, _language
    if language not in LANGUAGES:
        raise ValueError(f"{language!r} is not a language (fr or en)")
    if language == "fr":
        words = gettext.translation(DOMAIN, LOCALE_DIR, languages=["fr"], fallback=True)
        words.add_fallback(gettext.translation("messages", WEB_LOCALE_DIR, languages=["fr"],
                                               fallback=True))
    else:
        words = gettext.NullTranslations()
    _translation, _language = words, language
    vars(argparse).update(_=words.gettext, ngettext=words.ngettext)


def language() -> str:
    _words()
    return _language


def _words() -> gettext.NullTranslations:
    if _translation is None:
        use(language_from_env())
    assert _translation is not None
    return _translation


def _(message: str) -> str:
    """``message`` in the language spoken."""
    return _words().gettext(message)


def _web(message: str) -> str:
    """A word the pages translate (``web/translations``): not copied into our catalog."""
    return _words().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _words().ngettext(singular, plural, n)


def decimal(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals, as the language writes it: ``29,1`` in
    French, ``29.1`` in English.

    >>> use("fr"); decimal(29.06), decimal(0.987, 2)
    ('29,1', '0,99')
    """
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if language() == "fr" else text


def os_reason(exc: OSError) -> str:
    """Why the system refused a file, in the language spoken (the system's own words,
    ``strerror``, are English whatever the locale).

    >>> use("fr"); os_reason(FileNotFoundError(2, "No such file or directory"))
    'fichier ou dossier introuvable'
    """
    import errno

    said = {errno.ENOENT: N_("no such file or folder"),
            errno.EACCES: N_("permission denied"), errno.EPERM: N_("permission denied"),
            errno.EISDIR: N_("it is a folder, not a file"),
            errno.ENOTDIR: N_("a part of the path is not a folder"),
            errno.ENOSPC: N_("the disk is full"), errno.EROFS: N_("the disk is read-only"),
            errno.EIO: N_("input/output error (the disk or SD card may be failing)"),
            errno.ENAMETOOLONG: N_("the name is too long"),
            errno.ELOOP: N_("too many symbolic links")}.get(exc.errno or 0)
    return _(said) if said else str(exc.strerror or exc)


def located(where: object, message: object) -> str:
    """``where: message`` as the language writes it (``where : message`` in French)."""
    return _("%(where)s: %(message)s") % {"where": where, "message": message}


def seat_letter(code: str) -> str:
    """A seat's letter as a French player writes it: N E S O (W in English)."""
    return _("W") if code == "W" else code


def team_code(code: str) -> str:
    """``NS`` and ``EW`` as the pages write them: NS and EO in French."""
    return {"NS": _web("NS"), "EW": _web("EW")}.get(code, code)


def card_label(code: str | None) -> str:
    """``TH`` -> ``10♥``, ``KS`` -> ``R♠`` in French (as the pages show cards); ``?`` for
    an unknown card; text that is no card as written."""
    from scorer.cards import RANK_INDEX_EN, RANK_INDEX_FR, SUIT_SYMBOLS

    if not code:
        return "?"
    ranks = RANK_INDEX_FR if language() == "fr" else RANK_INDEX_EN
    if len(code) != 2 or code[0] not in ranks or code[1] not in SUIT_SYMBOLS:
        return code
    return ranks[code[0]] + SUIT_SYMBOLS[code[1]]


def bid_label(bid: str) -> str:
    """A bid as the pages show it: ``80H`` -> ``80♥``, ``pass`` -> ``passe`` in French;
    ``contre`` and ``surcontre`` are the players' own words; text that is no bid as written.

    >>> use("fr"); [bid_label(b) for b in ("80H", "capotS", "120NT", "take:C", "pass", "x")]
    ['80♥', 'capot♠', '120 sans atout', 'prendre♣', 'passe', 'x']
    """
    from scorer.bidding import PASS, TAKE, Bid, InvalidBidError
    from scorer.cards import SUIT_SYMBOLS

    try:
        parsed = Bid.parse(bid)
    except InvalidBidError:
        return bid
    if parsed.kind == PASS:
        return _web("pass")
    if parsed.kind == TAKE:
        value = _web("take")
    elif parsed.value == "capot":
        value = _web("capot")
    elif parsed.kind == "value":
        value = str(parsed.value)
    else:
        return str(parsed)
    trump = parsed.trump
    if not trump:
        return value
    return value + (SUIT_SYMBOLS[trump] if trump in SUIT_SYMBOLS
                    else " " + {"NT": _web("no trump"), "AT": _web("all trump")}.get(trump, trump))


def seat_name(code: str) -> str:
    """A seat by name, as the pages write it: ``N`` -> ``Nord``."""
    return {"N": _web("North"), "E": _web("East"), "S": _web("South"),
            "W": _web("West")}.get(code, code)


def alert_line(alert: Mapping[str, object]) -> str:
    """A table alert (``TableService``'s ``alert`` topic) as the pages say it:
    ``Renonce ! Est au pli 1 : n'a pas fourni, prouvé par R♠ au pli 3``; an
    unknown card, a card put down out of turn likewise; another kind as its
    message."""
    kind = alert.get("kind")
    seat = seat_name(str(alert.get("seat", "")))
    if kind == "renonce":
        proof = alert.get("proof")
        proof = proof if isinstance(proof, Mapping) else {}
        rules = {"follow": _web("did not follow suit"), "trump": _web("did not trump"),
                 "overtrump": _web("did not overtrump"),
                 "undertrump": _web("did not undertrump"), "turn": _web("played out of turn")}
        rule = str(alert.get("rule", ""))
        return _web("Renonce") + " ! " + _web(
            "%(seat)s in trick %(trick)s: %(rule)s, proved by %(card)s in trick %(proof)s") % {
            "seat": seat, "trick": alert.get("trick"), "rule": rules.get(rule, rule),
            "card": card_label(str(proof.get("card") or "")), "proof": proof.get("trick")}
    if kind == "unknown_card":
        return _web("Unknown card at %(seat)s (trick %(trick)s): name it on the control page") \
            % {"seat": seat, "trick": alert.get("trick")}
    if kind == "out_of_turn":
        return _web("%(card)s put down at %(seat)s out of turn, %(to_play)s to play") % {
            "card": card_label(str(alert.get("card") or "")), "seat": seat,
            "to_play": seat_name(str(alert.get("to_play", "")))}
    return str(alert.get("message", kind))


def reason(text: object) -> str:
    """A refusal (English in the code) in the language spoken.

    The card reader's refusals (``vision.errors.ExplainedError``: a deck, a source,
    a calibration) by their template, which this catalog translates; those of the
    rules engine, the input checks or the store (``bids[1]: not a bid: '85H' ...``)
    in French by the pages' patterns (``companion.reasons``): ``bids[1] : 85H
    n'est pas une enchère``; in English as they were written."""
    template = getattr(text, "template", None)
    if isinstance(template, str):
        values = {k: reason(v) if isinstance(v, Exception) else v
                  for k, v in getattr(text, "values", {}).items()}
        return _(template) % values if values else _(template)
    if language() == "en":
        return str(text)
    from companion import reasons

    return reasons.explain(text, reasons.Words(
        gettext=_, seat=seat_name, card=card_label, bid=bid_label, team=team_code,
        located=located))


def take_language(argv: list[str]) -> list[str]:
    """Read ``--lang X`` / ``--lang=X`` anywhere in ``argv``, speak it, and return
    the rest; without it, the environment decides. A wrong language: exit 2."""
    rest: list[str] = []
    chosen = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        if arg == "--lang" or arg.startswith("--lang="):
            if arg == "--lang":
                if i + 1 >= len(argv):
                    chosen = ""
                    i += 1
                    continue
                chosen, i = argv[i + 1], i + 2
            else:
                chosen, i = arg.partition("=")[2], i + 1
            continue
        rest.append(arg)
        i += 1
    use(language_from_env() if chosen is None or chosen not in LANGUAGES else chosen)
    if chosen is not None and chosen not in LANGUAGES:
        print(_("belote-table: --lang %(value)r: choose fr or en") % {"value": chosen},
              file=sys.stderr)
        raise SystemExit(2)
    return rest
