"""Bad input gets a clear message, never a traceback or a 500 (issue 28, defect 6):
one validator per kind (``scorer.validate``, ``scorer.rules``' ranges) used by
``belote-table score``, the JSON API and the set-up form alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli import cmd_score
from scorer.rules import Rules, UnknownSettingError
from scorer.validate import InvalidInputError, read_json, whole_number

RECORD = {"dealer": "N", "bids": ["80H", "pass", "pass", "pass"], "tally": {
    "NS": 100, "EW": 62, "tricks": {"NS": 5, "EW": 3}}}


def _score(tmp_path: Path, data: bytes, *args: str,
           capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "hand.json"
    path.write_bytes(data)
    code = cmd_score.main([str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("data", "args", "message"), [
    (b"[" * 100_000, (), "nested deeper than 32 levels"),
    (b'{"dealer": ' + b"[" * 50 + b"]" * 50 + b"}", (), "nested deeper than 32 levels"),
    (json.dumps(RECORD).encode("latin-1").replace(b'"N"', b'"\xe9"'), (), "not UTF-8 text"),
    (json.dumps(RECORD).encode(), ("--set", "target=²"), "expected a whole number, got '²'"),
    (json.dumps(RECORD).encode(), ("--set", "target=" + "9" * 5000), "expected a whole number"),
    (json.dumps(RECORD).encode(), ("--set", "target=0"), "0 is out of range (10 to 100000)"),
    (json.dumps(RECORD).encode(), ("--set", "min_bid=170"), "170 is out of range (80 to 160)"),
    (json.dumps(RECORD).encode(), ("--set", "min_bid=150", "--set", "max_bid=120"),
     "'min_bid': 150 is over 'max_bid' 120"),
    (json.dumps({**RECORD, "rules": {"target": "²"}}).encode(), (), "got '²'"),
    (json.dumps({**RECORD, "rules": {"target": 10 ** 23}}).encode(), (), "digits"),
    (b'{"dealer": "N", "tally": {"NS": 1' + b"0" * 5000 + b"}}", (), "5001 digits"),
    (b'{"dealer": NaN}', (), "NaN is not a number JSON allows"),
], ids=["100k-brackets", "nested-field", "latin-1", "set-superscript", "set-5000-digits",
        "target-0", "min-bid-170", "min-over-max", "rules-superscript", "target-1e23",
        "5000-digit-value", "nan"])
def test_score_refuses_bad_input_with_exit_2_and_one_line(
        tmp_path: Path, data: bytes, args: tuple[str, ...], message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    from companion import i18n

    # The engine's own reason, in English on request; French by default (one line too).
    i18n.use("en")
    try:
        code, out, err = _score(tmp_path, data, *args, capsys=capsys)
    finally:
        i18n.use("fr")
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    code, out, french = _score(tmp_path, data, *args, capsys=capsys)
    assert code == 2 and out == "" and "Traceback" not in french
    assert len(french.strip().splitlines()) == 1 and french != err, french


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-8-sig", "utf-32"])
def test_score_reads_utf16_and_bom_files(tmp_path: Path, encoding: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _score(tmp_path, json.dumps(RECORD).encode(encoding), capsys=capsys)
    assert code == 0, err
    from scorer.record import score_record

    assert json.loads(out)["score"] == score_record(RECORD)["score"]


def test_score_subprocess_never_tracebacks(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 100_000)
    run = subprocess.run([sys.executable, "-m", "cli.main", "score", str(path),
                          "--set", "target=²"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr


def test_whole_numbers_are_ascii_digits_in_range() -> None:
    assert whole_number(" 1500 ", "target", 100, 100000) == 1500
    for bad in ("²", "١٢", "1e3", "", True, None, [1], "9" * 5000, 1.5):
        with pytest.raises(InvalidInputError):
            whole_number(bad, "target", 100, 100000)
    with pytest.raises(InvalidInputError, match="over 12 digits"):
        whole_number(10 ** 5000, "target", 100, 100000)


def test_rules_check_ranges_and_min_under_max() -> None:
    assert Rules.from_settings({"min_bid": "100", "max_bid": 140}).min_bid == 100
    for bad in ({"target": 0}, {"target": 10 ** 23}, {"min_bid": 85}, {"max_bid": 170},
                {"min_bid": 170, "max_bid": 160}, {"capot_points": -1},
                {"hands": -1}, {"hands": 101}, {"minutes": 10 ** 6}, {"minutes": "²"}):
        with pytest.raises(UnknownSettingError):
            Rules.from_settings(bad)
    # The game's length: 0 is "no limit"; a club evening is counted in hours.
    rules = Rules.from_settings({"hands": "12", "minutes": 0})
    assert (rules.hands, rules.minutes) == (12, 0)
    assert Rules.from_settings({"minutes": 24 * 60}).minutes == 24 * 60


def test_read_json_bounds_what_it_reads() -> None:
    assert read_json(b'{"a": [1, 2]}') == {"a": [1, 2]}
    assert read_json('{"a": 1}'.encode("utf-16")) == {"a": 1}
    with pytest.raises(InvalidInputError, match="not JSON"):
        read_json(b"{")


# -- the API -------------------------------------------------------------------------

@pytest.fixture
def api(tmp_path: Path) -> Any:
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from web import create_app

    store = Store(tmp_path / "table.db")
    app = create_app(TableService(store, Bus()), {"TESTING": True,
                                                  "PIN_FILE": str(tmp_path / "pins.json")})
    yield app.test_client()
    store.close()


@pytest.mark.parametrize("body", [
    b"[" * 30_000,
    b'{"bid": ' + b"[" * 40 + b"]" * 40 + b"}",
    b'{"target": 1' + b"0" * 5000 + b', "pin": "123456"}',
    b'{"target": "' + b"9" * 5000 + b'", "pin": "123456"}',
    '{"target": "²", "pin": "123456"}'.encode(),
    b'{"target": 0, "pin": "123456"}',
    b'{"target": 100000000000000000000000, "pin": "123456"}',
    b'{"settings": {"min_bid": 170, "max_bid": 160}, "pin": "123456"}',
    b'{"settings": {"target": "\xc2\xb2"}, "pin": "123456"}',
    b'{"settings": [1, 2], "pin": "123456"}',
    b'\xff\xfe{',
], ids=["30k-brackets", "nested-40", "5000-digit-int", "5000-digit-text", "superscript",
        "target-0", "target-1e23", "min-over-max", "settings-superscript", "settings-list",
        "bad-bytes"])
def test_api_refuses_bad_bodies_with_400_and_stores_nothing(api: Any, body: bytes) -> None:
    r = api.post("/api/games", data=body, content_type="application/json")
    assert r.status_code == 400, (r.status_code, r.get_data(as_text=True)[:200])
    assert r.json["error"]
    assert api.get("/api/state").json["game_id"] is None


def test_setup_form_refuses_out_of_range_settings(api: Any) -> None:
    page = api.get("/setup").get_data(as_text=True)
    token = page.split('name="csrf-token" content="')[1].split('"')[0]
    r = api.post("/setup", data={"pin": "123456", "target": "²", "csrf_token": token})
    assert r.status_code == 400
    r = api.post("/setup", data={"pin": "123456", "settings": "min_bid=170\nmax_bid=160",
                                 "csrf_token": token})
    assert r.status_code == 400 and api.get("/api/state").json["game_id"] is None


def test_store_refuses_a_game_its_rules_cannot_play(tmp_path: Path) -> None:
    from companion.store import Store, StoreError
    from scorer.events import GameStarted

    with Store(tmp_path / "t.db") as store:
        with pytest.raises(StoreError, match="'min_bid': 150 is over 'max_bid' 120"):
            store.new_game(GameStarted(settings={"min_bid": 150, "max_bid": 120}))
        assert store.current_game() is None


def test_api_and_setup_say_refusals_in_french_first(api: Any) -> None:
    r = api.post("/api/games", json={"pin": "123456", "target": "²"})
    assert r.json["error"] == "Objectif : un nombre entier est attendu, pas ²"
    r = api.post("/api/games", json={"pin": "123456", "target": 0})
    assert r.json["error"] == "Objectif : 0 est hors des limites (de 10 à 100000)"
    r = api.post("/api/games", json={"pin": "123456",
                                     "settings": {"min_bid": 150, "max_bid": 120}})
    assert r.json["error"] == "Réglages : réglage 'min_bid' : 150 dépasse 'max_bid' 120"
    r = api.post("/api/games?lang=en", json={"pin": "12"})
    assert r.json["error"] == "PIN: the table's PIN must be 6 to 8 digits"
    page = api.get("/setup").get_data(as_text=True)
    token = page.split('name="csrf-token" content="')[1].split('"')[0]
    r = api.post("/setup", data={"pin": "123456", "settings": "min_bid=85",
                                 "csrf_token": token})
    assert "réglage &#39;min_bid&#39; : 85 n&#39;est pas un multiple de 10" in r.get_data(
        as_text=True)
