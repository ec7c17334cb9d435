"""Hand records (docs/design.md) and ``belote-table score``: results, errors naming
the place and the reason, exit 2 with nothing on stdout, --rules and --set."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scorer.game import replay
from scorer.record import InvalidRecordError, hand_record, record_to_events, score_record
from scorer.simulate import simulate_game


@pytest.fixture
def records(tmp_path):
    """Three finished hands of a simulated game, written as record files."""
    state = replay(simulate_game(21, hands=4))
    played = [h for h in state.hands if h["result"]["contract"] is not None][:3]
    paths = []
    for i, h in enumerate(played):
        p = tmp_path / f"hand{i}.json"
        p.write_text(json.dumps(h["record"]))
        paths.append(p)
    return paths, [h["result"] for h in played]


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "cli.main", "score", *map(str, args)],
                          input=stdin, capture_output=True, text=True, timeout=60)


def test_exported_record_scores_the_same_as_the_live_game():
    state = replay(simulate_game(8, hands=5))
    for h in state.hands:
        assert hand_record(state, h["hand_no"]) == h["record"]
        result = score_record(h["record"])
        for key in ("contract", "points", "belote", "made", "score", "renonces", "tricks"):
            assert result[key] == h["result"][key]


def test_record_to_events_replays_to_the_record():
    state = replay(simulate_game(9, hands=1))
    rec = state.hands[-1]["record"]
    again = replay(record_to_events(rec))
    assert again.hands[-1]["record"] == rec


def test_design_example_opening_trick():
    rec = {"rules": "ffb", "dealer": "N", "bids": ["pass", "80H", "pass", "pass", "pass"],
           "plays": ["W:7H", "S:AH", "E:8H", "N:TH"]}
    with pytest.raises(InvalidRecordError, match=r"^plays: 4 cards, a hand has 32$"):
        score_record(rec)


@pytest.mark.parametrize("change,message", [
    (lambda r: r["plays"].__setitem__(7, "W:" + r["plays"][7][2:]),
     r"^plays\[7\]: W played out of turn, \w to play$"),
    (lambda r: r["plays"].__setitem__(5, r["plays"][1]), r"^plays\[5\]: "),
    (lambda r: r["plays"].__setitem__(3, "N-TH"), r"^plays\[3\]: expected 'seat:card'"),
    (lambda r: r["plays"].__setitem__(3, r["plays"][3][:2] + "5C"),
     r"^plays\[3\]: not a belote card: '5C'"),
    (lambda r: r["bids"].insert(0, "85H"), r"^bids\[0\]: not a bid: '85H'"),
    (lambda r: r.__setitem__("dealer", "X"), r"^dealer: not a seat"),
    (lambda r: r.__setitem__("rules", "nope"), r"^rules: unknown preset 'nope'"),
    (lambda r: r.__setitem__("rules", {"preset": "ffb", "trgt": 5}),
     r"^rules: unknown setting 'trgt'"),
    (lambda r: r.__setitem__("extra", 1), r"^extra: unknown key"),
    (lambda r: r["plays"].pop(), r"^plays: 31 cards"),
])
def test_malformed_records_name_the_place_and_the_reason(records, change, message):
    paths, _ = records
    rec = json.loads(paths[0].read_text())
    change(rec)
    with pytest.raises(InvalidRecordError, match=message):
        score_record(rec)


def test_tally_record_scores_without_plays():
    rec = {"rules": "ffb", "dealer": "N", "bids": ["pass", "80H", "pass", "pass", "pass"],
           "tally": {"NS": 117, "EW": 45, "tricks": {"NS": 6, "EW": 2}, "belote": "NS"}}
    r = score_record(rec)
    assert r["contract"]["taker"] == "S" and r["made"] is True
    assert r["score"] == {"NS": 120 + 20, "EW": 50}
    with pytest.raises(InvalidRecordError, match=r"^tally.EW: expected a whole number"):
        score_record({**rec, "tally": {"NS": 117, "EW": "x", "tricks": {"NS": 6, "EW": 2}}})


def test_all_passed_record_scores_nothing():
    r = score_record({"dealer": "E", "bids": ["pass"] * 4})
    assert r["contract"] is None and r["made"] is None and r["score"] == {"NS": 0, "EW": 0}


def test_cli_prints_one_result_per_line_per_file_in_order(records):
    paths, results = records
    out = cli(*paths)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(paths)
    for line, expected in zip(lines, results, strict=True):
        assert json.loads(line)["score"] == expected["score"]


def test_cli_reads_stdin(records):
    paths, results = records
    out = cli("-", stdin=paths[1].read_text())
    assert out.returncode == 0 and json.loads(out.stdout)["score"] == results[1]["score"]


def test_cli_malformed_record_exit_2_and_nothing_on_stdout(records, tmp_path):
    paths, _ = records
    rec = json.loads(paths[1].read_text())
    rec["plays"][7] = "W:" + rec["plays"][7][2:] if rec["plays"][7][0] != "W" else \
        "E:" + rec["plays"][7][2:]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    out = cli(paths[0], bad, paths[2])
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"{bad} : plays[7] : ") and "a joué hors de son tour" in out.stderr
    out = cli("--lang", "en", paths[0], bad, paths[2])
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"{bad}: plays[7]: ") and "played out of turn" in out.stderr
    notjson = tmp_path / "notjson.json"
    notjson.write_text("{oops")
    out = cli(notjson)
    assert out.returncode == 2 and out.stdout == ""
    assert "ligne 1 colonne 2 : pas du JSON" in out.stderr


def test_cli_rules_and_set_override(records):
    paths, _ = records
    base = json.loads(cli(paths[0]).stdout)
    pfd = json.loads(cli("--rules", "ffb-pfd", paths[0]).stdout)
    taker = base["contract"]["taker"]
    team = "NS" if taker in "NS" else "EW"
    if base["made"] and base["contract"]["double"] == 1 and base["contract"]["value"] != "capot":
        assert pfd["score"][team] == base["score"][team] + base["contract"]["value"]
    raw = json.loads(cli("--set", "rounding=false", "--set", "belote=auto", paths[0]).stdout)
    if raw["made"] and raw["contract"]["double"] == 1 and raw["contract"]["value"] != "capot":
        defence = "EW" if team == "NS" else "NS"
        assert raw["score"][defence] == raw["points"][defence] + 20 * raw["belotes"][defence]
    out = cli("--set", "nonsense=1", paths[0])
    assert out.returncode == 2 and out.stdout == ""
    assert "réglage inconnu nonsense (connus : belote, capot_points" in out.stderr
    out = cli("--set", "target=abc", paths[0])
    assert out.returncode == 2 and "target" in out.stderr


def test_cli_score_imports_no_heavy_library():
    code = ("import sys; from cli import cmd_score; "
            "print(sorted({'numpy', 'cv2', 'onnxruntime', 'flask'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_a_hand_with_an_unread_card_exports_and_scores_with_a_question_mark():
    from scorer.events import CardPlayed
    events = simulate_game(13, hands=1)
    last_trick_first = max(i for i, e in enumerate(events) if isinstance(e, CardPlayed)) - 3
    e = events[last_trick_first]
    events[last_trick_first] = CardPlayed(e.seat, None)
    state = replay(events)
    rec = state.hands[-1]["record"]
    assert f"{e.seat}:?" in rec["plays"]
    r = score_record(rec)
    # The deal names it (the only card left): the tricks and the score are the
    # full deal's, the card is listed as inferred.
    full = score_record(replay(simulate_game(13, hands=1)).hands[-1]["record"])
    assert r["inferred"] == [{"seat": e.seat, "trick": 8, "card": e.card}]
    assert r["undetermined"] == []
    assert r["tricks"] == full["tricks"] and r["score"] == full["score"]
    assert r["points"] == full["points"] and "score_reason" not in r


def test_cli_names_inferred_and_undetermined_cards(tmp_path):
    """``belote-table score`` on a record with unread cards ("W:?"): the cards the
    deal determines are named, the others listed with their candidates, and the
    score is given only when it does not depend on them."""
    from scorer.events import CardPlayed
    seen = {"inferred": 0, "undetermined": 0, "null": 0}
    for seed in range(30):
        events = simulate_game(seed, hands=1)
        places = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
        if len(places) < 32:
            continue
        truth = {}
        for n in (1, 6, 9, 30):
            e = events[places[n]]
            truth[(n // 4 + 1, e.seat)] = e.card
            events[places[n]] = CardPlayed(e.seat, None)
        rec = replay(events).hands[-1]["record"]
        path = tmp_path / f"hand{seed}.json"
        path.write_text(json.dumps(rec))
        out = cli(path)
        assert out.returncode == 0, out.stderr
        r = json.loads(out.stdout)
        message = (r.get("score_reason") or {}).pop("message", None)
        assert r == score_record(rec)
        if r["score"] is None:
            assert message == ("le score dépend de cartes non lues : nommez-les pour compter "
                               "la donne")
        for item in r["inferred"]:
            assert truth[(item["trick"], item["seat"])] == item["card"]
        for item in r["undetermined"]:
            assert truth[(item["trick"], item["seat"])] in item["candidates"]
            assert len(item["candidates"]) >= 2
        assert len(r["inferred"]) + len(r["undetermined"]) == 4
        seen["inferred"] += len(r["inferred"])
        seen["undetermined"] += len(r["undetermined"])
        seen["null"] += r["score"] is None
        if r["score"] is None:
            assert r["score_reason"]["code"] == "deal.score_depends"
    assert all(seen.values()), seen


def test_cli_refusals_exit_2_with_the_reason_and_nothing_on_stdout(records, tmp_path):
    paths, _ = records
    cases = []
    out = cli("--rules", "nope", paths[0])
    cases.append((out, "choix invalide : 'nope'"))
    cases.append((cli(tmp_path / "missing.json"),
                  f"{tmp_path / 'missing.json'} : lecture impossible"))
    array = tmp_path / "array.json"
    array.write_text("[1, 2]")
    cases.append((cli(paths[0], array), f"{array} : une donne est un objet JSON, pas une liste"))
    cases.append((cli("--lang", "en", paths[0], array),
                  f"{array}: a hand record is a JSON object, not list"))
    rec = json.loads(paths[0].read_text())
    rec["rules"] = {"preset": "ffb", "renonce_penalty": "half"}
    bad = tmp_path / "bad-setting.json"
    bad.write_text(json.dumps(rec))
    cases.append((cli(bad), "rules : réglage renonce_penalty : half n'est pas l'un de "
                            "hand-lost, flat-160"))
    cases.append((cli("--lang", "en", bad),
                  "rules: setting 'renonce_penalty': 'half' is not one of hand-lost"))
    cases.append((cli("--set", "renonce_penalty=half", paths[0]),
                  "réglage renonce_penalty : half n'est pas l'un de"))
    cases.append((cli("--set", "target", paths[0]), "CLÉ=VALEUR attendu"))
    for out, message in cases:
        assert out.returncode == 2 and out.stdout == "", (message, out.stdout)
        assert message in out.stderr, (message, out.stderr)


def test_cli_classic_litige_record_holds_the_takers_points_over():
    rec = {"rules": "classic", "dealer": "N", "turned": "9H", "bids": ["take"],
           "tally": {"NS": 81, "EW": 81, "tricks": {"NS": 4, "EW": 4}}}
    out = cli("-", stdin=json.dumps(rec))
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["contract"] == {"taker": "W", "value": None, "trump": "H", "double": 1}
    assert r["made"] is None and r["held_over"] == 81
    assert r["score"] == {"NS": 81, "EW": 0}


@pytest.mark.parametrize("penalty,score", [
    ("hand-lost", {"NS": 160, "EW": 0}), ("flat-162", {"NS": 162, "EW": 0}),
    ("contract", {"NS": 80, "EW": 0}), ("cancel", {"NS": 0, "EW": 0})])
def test_cli_renonce_record_reports_the_proof_and_the_penalty_setting(play_out, deal_a,
                                                                      tmp_path, penalty, score):
    # N takes 80H and leads AS; W, void in spades, discards 9C while holding 7H 8H.
    rec = play_out(deal_a, dealer="E", contract={"taker": "N", "value": 80, "trump": "H"},
                   force={(1, "N"): "AS", (1, "W"): "9C", (2, "N"): "JH"})
    path = tmp_path / "renonce.json"
    path.write_text(json.dumps(rec))
    out = cli("--set", f"renonce_penalty={penalty}", path)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["renonces"] == [{"seat": "W", "trick": 1, "rule": "trump",
                              "proof": {"trick": 2, "card": "7H"}}]
    assert r["score"] == score
    if penalty == "hand-lost":  # the default: 160 + the contract in points faits + demandés
        pfd = json.loads(cli("--rules", "ffb-pfd", path).stdout)
        assert pfd["score"] == {"NS": 160 + 80, "EW": 0}


def test_cli_refuses_a_tally_that_cannot_be_in_french(tmp_path):
    """NS 100 / EO 50 is refused (152 + 10 make 162), not scored as typed or changed."""
    rec = {"rules": "ffb", "dealer": "N", "contract": {"taker": "S", "value": 80, "trump": "H"},
           "tally": {"NS": 100, "EW": 50, "tricks": {"NS": 5, "EW": 3}}}
    path = tmp_path / "tally.json"
    path.write_text(json.dumps(rec))
    out = cli(path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == (f"{path} : tally : les points des deux équipes font 150 "
                                  "(100 + 50), pas 162 : 152 points de cartes et 10 de der")
    rec["tally"] = {"NS": 100, "EW": 62, "tricks": {"NS": 5, "EW": 3}}
    path.write_text(json.dumps(rec))
    out = cli(path)
    assert out.returncode == 0 and json.loads(out.stdout)["points"] == {"NS": 100, "EW": 62}
