"""``belote-table score`` says what is wrong in French and reads French cards
(issue 75): a card written twice is said as such (not "hors de son tour"), a
record without its dealer names the dealer its first card implies, bad JSON and
unreadable files are said in French (line and column kept), and the pages'
French notation (V♥, 10♦, D, R, the ace as 1; suits as symbols or S H D C) scores
the same as the notation, while a card that is neither is refused saying what is
expected. Records are real hands of simulated games; the command runs as a person
runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorer.game import replay
from scorer.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]
FRENCH_RANKS = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "V", "Q": "D", "K": "R",
                "A": "1"}
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
# Python's JSON parser's English, which must not reach a French reader.
JSON_ENGLISH = ("Unterminated", "Expecting", "Extra data", "Invalid", "No such file",
                "Is a directory")


def score(*args: Any, lang: str | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--lang", lang] if lang else []
    return subprocess.run([sys.executable, "-m", "cli.main", *extra, "score", *map(str, args)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={"LANG": "C.UTF-8", "PATH": "/usr/bin"})


@pytest.fixture(scope="module")
def hands() -> list[dict[str, Any]]:
    """Finished hands with a contract of a simulated game: their records and results."""
    state = replay(simulate_game(21, hands=6))
    return [h for h in state.hands if h["result"]["contract"] is not None]


def write(folder: Path, name: str, record: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    return path


def refused(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    return run.stderr.strip()


def test_a_card_written_twice_is_said_as_such(tmp_path: Path,
                                              hands: list[dict[str, Any]]) -> None:
    record = hands[0]["record"]
    first = record["plays"][0]
    seat = {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"}[first[0]]
    card = FRENCH_RANKS[first[2]].replace("1", "A") + SYMBOLS[first[3]]
    # The same line twice (a slip of the copy), and the card again later on by
    # another seat: neither is "out of turn".
    again = dict(record, plays=[first, *record["plays"][1:]][:1] + [first]
                 + record["plays"][1:31])
    said = refused(score(write(tmp_path, "again.json", again)))
    assert said == (f"{tmp_path / 'again.json'} : plays[1] : le {card} est joué deux fois : "
                    f"par {seat} au pli 1, puis par {seat}")
    later = dict(record, plays=[*record["plays"]])
    later["plays"][5] = later["plays"][5][:2] + first[2:]
    said = refused(score(write(tmp_path, "later.json", later)))
    assert f"plays[5] : le {card} est joué deux fois : par {seat} au pli 1, puis par" in said
    assert "hors de son tour" not in said
    english = refused(score(tmp_path / "again.json", lang="en"))
    assert english.endswith(f"plays[1]: {first[2:]} is played twice: by {first[0]} in trick 1,"
                            f" then by {first[0]}")


def test_a_record_without_its_dealer_names_the_dealer_its_first_card_implies(
        tmp_path: Path, hands: list[dict[str, Any]]) -> None:
    hand = next(h for h in hands if h["record"]["dealer"] not in ("N",))
    dealer = hand["record"]["dealer"]
    record = {k: v for k, v in hand["record"].items() if k != "dealer"}
    said = refused(score(write(tmp_path, "no-dealer.json", record)))
    assert said.endswith("donneur absent : " + {"N": "Nord", "E": "Est", "S": "Sud",
                                                 "W": "Ouest"}[record["plays"][0][0]]
                         + " joue en premier, ce qui est hors de son tour si Nord donne (par "
                         f'défaut) ; indiquez "dealer": "{dealer}"'), said
    assert "a joué hors de son tour" not in said
    # Given as it says, the record scores as the game did.
    run = score(write(tmp_path, "dealer.json", dict(record, dealer=dealer)))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["score"] == hand["result"]["score"]
    # A record dealt by N may still leave its dealer out (the default).
    north = next((h for h in hands if h["record"]["dealer"] == "N"), None)
    if north is not None:
        rest = {k: v for k, v in north["record"].items() if k != "dealer"}
        assert score(write(tmp_path, "north.json", rest)).returncode == 0


@pytest.mark.parametrize("text,french", [
    ('{"rules": "ffb", "dealer": "N", "bids": ["pass", "unterminated',
     "ligne 1 colonne 50 : pas du JSON (texte entre guillemets jamais refermé"),
    ('{"rules": "ffb" "dealer": "N"}', "ligne 1 colonne 17 : pas du JSON (une virgule est "
                                       "attendue)"),
    ('{"rules": "ffb",\n "dealer" "N"}', "ligne 2 colonne 11 : pas du JSON (un deux-points est "
                                         "attendu)"),
    ('{"dealer": "N"} {}', "ligne 1 colonne 17 : pas du JSON (du texte suit la fin du JSON)"),
    ('{dealer: "N"}', "ligne 1 colonne 2 : pas du JSON (un nom de clé entre guillemets droits "
                      "est attendu)"),
    ('{"dealer": "\\q"}', "ligne 1 colonne 13 : pas du JSON (échappement \\ invalide)"),
    ("", "ligne 1 colonne 1 : pas du JSON (une valeur est attendue)"),
])
def test_bad_json_is_said_in_french_with_its_line_and_column(tmp_path: Path, text: str,
                                                             french: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    said = refused(score(path))
    assert said.startswith(f"{path} : {french}"), said
    assert not any(word in said for word in JSON_ENGLISH), said


def test_a_file_that_cannot_be_read_is_said_in_french(tmp_path: Path) -> None:
    said = refused(score(tmp_path / "nowhere.json"))
    assert said == f"{tmp_path / 'nowhere.json'} : lecture impossible : fichier ou dossier " \
                   "introuvable"
    said = refused(score(tmp_path))
    assert said == f"{tmp_path} : lecture impossible : c'est un dossier, pas un fichier"
    english = refused(score(tmp_path / "nowhere.json", lang="en"))
    assert english.endswith("cannot read: no such file or folder")


def _french(play: str, symbols: bool) -> str:
    seat, card = play.split(":")
    return f"{seat}:{FRENCH_RANKS[card[0]]}{SYMBOLS[card[1]] if symbols else card[1]}"


def test_french_cards_score_as_the_notation(tmp_path: Path,
                                            hands: list[dict[str, Any]]) -> None:
    for hand in hands[:3]:
        record = hand["record"]
        expected = score(write(tmp_path, "notation.json", record))
        assert expected.returncode == 0, expected.stderr
        for symbols in (True, False):
            french = dict(record, plays=[_french(p, symbols) for p in record["plays"]])
            if symbols:
                assert any("V" in p or "R" in p or "D" in p for p in french["plays"])
            run = score(write(tmp_path, "french.json", french))
            assert run.returncode == 0, run.stderr
            assert json.loads(run.stdout) == json.loads(expected.stdout)
    # The ace as A reads too, and the tricks are given back in the notation.
    record = hands[0]["record"]
    aces = dict(record, plays=[re.sub(r":1(?=[♠♥♦♣])", ":A", _french(p, True))
                               for p in record["plays"]])
    run = score(write(tmp_path, "aces.json", aces))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["tricks"] == hands[0]["result"]["tricks"]


@pytest.mark.parametrize("card", ["5C", "VZ", "11♥", "Roi♠"])
def test_a_card_in_no_notation_is_refused_saying_what_is_expected(
        tmp_path: Path, hands: list[dict[str, Any]], card: str) -> None:
    record = hands[0]["record"]
    bad = dict(record, plays=[*record["plays"]])
    bad["plays"][3] = bad["plays"][3][:2] + card
    said = refused(score(write(tmp_path, "bad-card.json", bad)))
    assert f"plays[3] : {card} n'est pas une carte de belote : la valeur puis la couleur " \
           "sont attendues, comme 10♥, V♠, R♦, 1♣ ou TH" in said, said
