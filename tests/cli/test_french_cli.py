"""``belote-table`` speaks French by default, English on request (``--lang en``, or an
English locale), argparse's own words included; what programs read (the JSON of
``score``) stays the same in both languages. The commands run as the organiser
runs them: ``python -m cli.main`` in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = {"rules": "ffb", "dealer": "N", "bids": ["pass", "80H", "pass", "pass", "pass"],
          "tally": {"NS": 117, "EW": 45, "tricks": {"NS": 6, "EW": 2}}}


def cli(*args: str, lang: str | None = "C.UTF-8",
        **locale: str) -> subprocess.CompletedProcess[str]:
    """``belote-table ARGS`` with ``LANG=lang`` (None: unset) and the other ``locale``
    variables given (``LC_ALL=...``), none else."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    if lang is not None:
        env["LANG"] = lang
    env.update(locale)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)


@pytest.mark.parametrize("lang", ["C.UTF-8", None, "fr_FR.UTF-8", "C"])
def test_the_command_list_is_french_by_default(lang: str | None) -> None:
    out = cli("--help", lang=lang)
    assert out.returncode == 0
    assert out.stdout.startswith("utilisation : belote-table [--lang fr|en] COMMANDE")
    assert "compte des donnes (JSON) et écrit les résultats" in out.stdout
    assert "score hand records" not in out.stdout


@pytest.mark.parametrize("how", [("--lang", "en", "--help"), ("--help", "--lang=en")])
def test_the_command_list_is_english_with_lang_en(how: tuple[str, ...]) -> None:
    out = cli(*how)
    assert out.returncode == 0
    assert out.stdout.startswith("usage: belote-table [--lang fr|en] COMMAND")
    assert "score hand records (JSON) and print the results" in out.stdout
    assert "utilisation" not in out.stdout


def test_run_help_is_french_with_argparse_s_own_words() -> None:
    out = cli("run", "--help")
    assert out.returncode == 0
    text = out.stdout
    assert text.startswith("utilisation : belote-table run [-h]")
    assert "--video FICHIER" in text and "--images DOSSIER" in text
    assert "affiche cette aide et s'arrête" in text
    assert "\noptions :\n" in text  # argparse's section titles, with French spacing
    assert "pas de page web" in text and "port de la page web (par défaut : 8000)" in text
    # A literal "%" in a help text survives the translation and argparse's formatting.
    assert "24 à 36 % de la hauteur" in " ".join(text.split())
    for english in ("usage:", "show this help message", "no web page", "(default:"):
        assert english not in text


def test_run_help_is_english_with_an_english_locale_or_lang_en_after_the_command() -> None:
    for out in (cli("run", "--help", lang="en_US.UTF-8"), cli("run", "--help", "--lang", "en")):
        assert out.returncode == 0
        assert out.stdout.startswith("usage: belote-table run [-h]")
        assert "show this help message and exit" in out.stdout
        assert "web page port (default: 8000)" in out.stdout
        assert "utilisation" not in out.stdout and "par défaut" not in out.stdout


def test_an_explicit_lang_beats_the_locale() -> None:
    assert cli("--lang", "fr", "--help", lang="en_GB.UTF-8").stdout.startswith("utilisation")
    assert cli("--help", lang="en_GB.UTF-8").stdout.startswith("usage:")
    # POSIX order: LC_ALL, then LC_MESSAGES, then LANG.
    assert cli("--help", lang="en_GB.UTF-8", LC_ALL="fr_FR.UTF-8").stdout.startswith("util")
    assert cli("--help", lang="C", LC_MESSAGES="en_US.UTF-8").stdout.startswith("usage:")
    assert cli("--lang", "en", "--help", LC_ALL="C").stdout.startswith("usage:")


def test_score_prints_the_same_json_in_both_languages(tmp_path: Path) -> None:
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(RECORD))
    fr, en = cli("score", str(hand)), cli("--lang", "en", "score", str(hand))
    assert fr.returncode == en.returncode == 0
    assert fr.stdout == en.stdout
    assert json.loads(fr.stdout)["score"] == {"NS": 120, "EW": 50}


def test_score_refusals_are_french_with_their_exit_code(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    out = cli("score", str(missing))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith(f"{missing} : lecture impossible : ")
    out = cli("score", "--rules", "nope", str(missing))
    assert out.returncode == 2
    assert "belote-table score : erreur : argument --rules : choix invalide : 'nope'" \
        in out.stderr
    assert "utilisation : belote-table score" in out.stderr
    out = cli("score")
    assert out.returncode == 2
    assert "erreur : ces arguments sont obligatoires : FICHIER" in out.stderr
    out = cli("score", "--rules", "nope", str(missing), "--lang", "en")
    assert out.returncode == 2
    assert "belote-table score: error: argument --rules: invalid choice: 'nope'" in out.stderr


def test_other_commands_refuse_in_french(tmp_path: Path) -> None:
    out = cli("backup", "--db", str(tmp_path / "none.db"), "--out", str(tmp_path / "c.db"))
    assert out.returncode == 1
    assert f"{tmp_path / 'none.db'} : base d'événements introuvable" in out.stderr
    assert not (tmp_path / "c.db").exists()
    out = cli("run", "--camera", "0", "--zoom", "2", "--no-web")
    assert out.returncode == 2
    assert "belote-table run : erreur : --zoom ne marche qu'avec --picamera" in out.stderr
    out = cli("nonsense")
    assert out.returncode == 2 and "belote-table : commande inconnue 'nonsense'" in out.stderr
    out = cli("--lang", "de", "--help")
    assert out.returncode == 2 and "choisissez fr ou en" in out.stderr and out.stdout == ""


def test_a_backup_says_what_it_saved_in_french(tmp_path: Path) -> None:
    from companion.store import Store
    from scorer.events import GameStarted

    db = tmp_path / "table.db"
    with Store(db) as store:
        store.new_game(GameStarted(rules="ffb"))
    out = cli("backup", "--db", str(db), "--out", str(tmp_path / "copy.db"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"enregistré {tmp_path / 'copy.db'} : 1 partie, 1 événement"


def test_score_stays_light_and_still_speaks_french(tmp_path: Path) -> None:
    """French words come from a compiled catalog read by the standard library: the
    scorer's command imports no Flask, Babel, numpy, OpenCV or onnxruntime."""
    code = ("import sys; from cli.main import main\n"
            f"rc = main(['score', {str(tmp_path / 'none.json')!r}])\n"
            "heavy = {'numpy', 'cv2', 'onnxruntime', 'flask', 'flask_babel', 'babel'}\n"
            "print(rc, sorted(heavy & set(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "2 []"
    assert "lecture impossible" in out.stderr


def test_seats_teams_cards_and_bids_read_as_on_the_pages() -> None:
    from companion import i18n

    try:
        i18n.use("fr")
        assert [i18n.seat_letter(s) for s in "NESW"] == ["N", "E", "S", "O"]
        assert [i18n.team_code(t) for t in ("NS", "EW")] == ["NS", "EO"]
        assert [i18n.card_label(c) for c in ("TH", "KS", "QD", "JC", "AH", None)] == \
            ["10♥", "R♠", "D♦", "V♣", "A♥", "?"]
        assert [i18n.bid_label(b) for b in ("pass", "90S", "contre")] == \
            ["passe", "90♠", "contre"]
        i18n.use("en")
        assert i18n.seat_letter("W") == "W" and i18n.team_code("EW") == "EW"
        assert i18n.card_label("KS") == "K♠" and i18n.bid_label("pass") == "pass"
    finally:
        i18n.use("fr")


# The vision modules whose messages the command line's catalog holds (cli/ and
# companion/ besides): the runtime modules whose refusals (vision.errors) the commands print.
VISION_SAID_HERE = ("deck.py", "sources.py", "calibration.py", "imagefile.py",
                    "classify.py")


def test_every_message_of_the_catalog_is_translated_and_compiled() -> None:
    """The catalog holds every message the code marks, each in French, and the
    compiled .mo is the .po's (pybabel compile was run after the last edit)."""
    import gettext

    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    folder = ROOT / "companion" / "translations"
    with open(folder / "fr" / "LC_MESSAGES" / "companion.po", "rb") as f:
        catalog = read_po(f)
    from babel.messages.extract import extract_from_file

    keywords = {"_": None, "N_": None, "ngettext": (1, 2), "DeckError": None,
                "SourceError": None, "CalibrationError": None, "ImageFileError": None,
                "ReaderCheckError": None}
    found = [m[2] for package in ("companion", "cli")
             for m in extract_from_dir(str(ROOT / package), keywords=keywords)]
    for name in VISION_SAID_HERE:  # (line, message, ...) for one file
        found += [m[1] for m in extract_from_file("python", str(ROOT / "vision" / name),
                                                  keywords=keywords)]
    marked = {m if isinstance(m, str) else m[0] for m in found}
    # The card reader's refusals are among them: their templates are in the catalog.
    assert "%(path)s: no such deck file" in marked and "the card reader" in marked
    in_po = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert marked - in_po == set(), "run pybabel extract and update (companion/babel.cfg)"
    with open(folder / "fr" / "LC_MESSAGES" / "companion.mo", "rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in catalog:
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, message.id
        if isinstance(message.id, str):
            assert message.string, f"untranslated: {message.id!r}"
            assert compiled.gettext(message.id) == message.string, message.id
        else:
            assert compiled.ngettext(message.id[0], message.id[1], 2) == message.string[1]


def test_score_says_the_rules_engine_s_reason_in_french_english_with_lang_en(
        tmp_path: Path) -> None:
    """The engine's reasons are English in the code; the command says them as the pages
    do (companion.reasons), seats by name and cards and bids as the pages show them."""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**RECORD, "bids": ["pass", "85H"]}))
    out = cli("score", str(bad))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"{bad} : bids[1] : 85H n'est pas une enchère\n"
    out = cli("--lang", "en", "score", str(bad))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"{bad}: bids[1]: not a bid: '85H' (80..160 by tens, or capot, "
                          "then S H D C NT AT)\n")
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"rules": "ffb", "dealer": "N",
                                "bids": ["pass", "80S", "90H", "pass", "pass", "pass"],
                                "plays": ["N:7H"]}))
    out = cli("score", str(turn))
    assert out.stderr == f"{turn} : plays[0] : Nord a joué hors de son tour : à Ouest de jouer\n"
    assert cli("score", str(turn), lang="en_GB.UTF-8").stderr == \
        f"{turn}: plays[0]: N played out of turn, W to play\n"
    # A reason no pattern knows keeps its words; its places are still joined in French.
    record = tmp_path / "list.json"
    record.write_text("[1]")
    assert cli("score", str(record)).stderr == \
        f"{record} : une donne est un objet JSON, pas une liste\n"


def test_vision_read_help_is_french_by_default_english_with_lang_en() -> None:
    out = cli("vision", "read", "--help")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert text.startswith("utilisation : belote-table vision read [-h] [--model FICHIER] "
                           "[--deck JEU] [--unknown] IMAGE")
    assert "Affiche les cartes de belote trouvées sur une image, en JSON." in text
    assert "--deck JEU le jeu enrôlé du club (belote-table vision enroll)" in text
    assert "classifieur .onnx (par défaut : le modèle fourni)" in text
    for english in ("usage:", "the shipped model", "enrolled deck", "print the belote"):
        assert english not in text
    out = cli("--lang", "en", "vision", "read", "--help")
    assert out.returncode == 0
    assert out.stdout.startswith("usage: belote-table vision read [-h] [--model FILE]")
    assert "classifier .onnx (default: the shipped model)" in " ".join(out.stdout.split())
    listed = cli("vision", "--help").stdout
    assert "affiche les cartes de belote trouvées sur une image" in " ".join(listed.split())
    assert "enroll" in listed and "train" in listed  # the commands keep their names


def test_vision_train_keeps_its_options_and_translates_their_help() -> None:
    fr = " ".join(cli("vision", "train", "--help").stdout.split())
    en = " ".join(cli("--lang", "en", "vision", "train", "--help").stdout.split())
    options = ("--seed", "--steps", "--det-steps", "--scenes", "--detector-scenes",
               "--look-scenes", "--init ONNX", "--fixes", "--aspect", "--decks",
               "--more-scenes", "--printed-scenes", "--det-init ONNX", "--recolour", "--out",
               "--threads", "--only", "--max-error")
    for option in options:
        assert option in fr and option in en, option
    assert "fils de torch (le modèle fourni : 2)" in fr
    assert "torch threads (the shipped model: 2)" in en


def test_vision_enroll_refusals_are_french_by_default_english_with_lang_en(
        tmp_path: Path) -> None:
    """An organiser's mistakes (a folder that is no card, a missing folder, a missing
    picture) come back in French; the reader's runtime wrote them in English."""
    pictures = tmp_path / "pictures"
    (pictures / "10X").mkdir(parents=True)
    out_file = tmp_path / "club.npz"
    out = cli("vision", "enroll", str(pictures), "--out", str(out_file))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith(f"belote-table vision : {pictures / '10X'} : '10X' n'est pas "
                                 "une carte de belote ; nommez chaque dossier comme la carte")
    out = cli("--lang", "en", "vision", "enroll", str(pictures), "--out", str(out_file))
    assert out.returncode == 2
    assert out.stderr.startswith(f"belote-table vision: {pictures / '10X'}: '10X' is not a "
                                 "belote card: name each folder after the card it shows")
    out = cli("vision", "enroll", str(tmp_path / "none"), "--out", str(out_file))
    assert out.stderr == f"belote-table vision : {tmp_path / 'none'} : dossier introuvable\n"
    (pictures / "10X").rmdir()
    (pictures / "TH").mkdir()
    out = cli("vision", "enroll", str(pictures), "--out", str(out_file))
    assert out.stderr == (f"belote-table vision : {pictures / 'TH'} : aucune image (JPEG, PNG, "
                          "BMP ou WebP)\n")
    assert not out_file.exists()
    out = cli("vision", "read", str(tmp_path / "none.jpg"))
    assert out.stderr == f"belote-table vision : {tmp_path / 'none.jpg'} : image introuvable\n"
