"""FFB 7 (belote et rebelote), 9.1 (dix de der) and 9.2 (capot), played out
card by card through the engine, and the belote at Sans Atout / Tout Atout (11.2, 11.3).

Source: Règles officielles de la belote contrée, FFB, 27.01.2016, chapters 7 and 9.
"""

from __future__ import annotations

from scorer.record import score_record

# N leads every trump then the two top spades: N's team takes every trick.
CAPOT_LEADS = {(1, "N"): "JH", (2, "N"): "9H", (3, "N"): "AH", (4, "N"): "TH",
               (5, "N"): "KH", (6, "N"): "QH", (7, "N"): "AS", (8, "N"): "TS"}
CONTRACT_N = {"taker": "N", "value": 80, "trump": "H"}


def test_9_2_capot_dix_de_der_worth_100_total_252(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N, force=CAPOT_LEADS, belote=("N",))
    r = score_record(rec)
    assert r["tricks_won"] == {"NS": 8, "EW": 0}
    assert r["points"] == {"NS": 252, "EW": 0}
    assert r["belote"] == "NS"
    assert r["score"] == {"NS": 250 + 20, "EW": 0}  # 252 rounded, + belote


def test_9_1_dix_de_der_goes_to_the_last_trick_total_162(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N)
    r = score_record(rec)
    assert sum(r["points"].values()) == 162
    last = r["tricks"][-1]
    winner_team = "NS" if last["winner"] in "NS" else "EW"
    cards_total = sum(t["points"] for t in r["tricks"] if t["winner"] in
                      (("N", "S") if winner_team == "NS" else ("E", "W")))
    assert r["points"][winner_team] == cards_total + 10
    assert r["dix_de_der"] == winner_team


def test_7_belote_not_announced_is_not_counted(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N, force=CAPOT_LEADS)
    r = score_record(rec)
    assert r["belote"] is None and r["score"]["NS"] == 250


def test_7_belote_counted_automatically_as_a_setting(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N, force=CAPOT_LEADS)
    assert score_record(rec, overrides={"belote": "auto"})["belote"] == "NS"


def test_7_a_false_announcement_counts_nothing(play_out, deal_a):
    rec = play_out(deal_a, dealer="E", contract=CONTRACT_N, force=CAPOT_LEADS, belote=("E",))
    assert score_record(rec)["belote"] is None


# N holds K+Q of hearts and little else; E holds the top trumps.
DEAL_B = {"N": "KH QH 7S 8S 7D 8D 7C 8C", "E": "JH 9H AH TH 9S TS JS QS",
          "S": "9D TD JD QD KD AD 9C TC", "W": "7H 8H AS KS JC QC KC AC"}


def test_7_fallen_takers_lose_their_belote_to_the_defence(play_out):
    contract = {"taker": "N", "value": 80, "trump": "H"}
    rec = play_out(DEAL_B, dealer="E", contract=contract, belote=("N",))
    r = score_record(rec)
    assert r["made"] is False
    assert r["score"] == {"NS": 0, "EW": 160 + 20}


def test_11_2_no_belote_at_sans_atout(play_out):
    contract = {"taker": "N", "value": 80, "trump": "NT"}
    rec = play_out(DEAL_B, dealer="E", contract=contract, rules="ffb-sata")
    r = score_record(rec, overrides={"belote": "auto"})
    assert r["belote"] is None and sum(r["points"].values()) == 162
    assert r["tricks_won"]["NS"] not in (0, 8)


def test_11_3_tout_atout_up_to_four_belotes_and_258_points(play_out):
    hands = {"N": "KS QS KH QH 7S 8S 9S TS", "E": "KD QD KC QC 7H 8H 9H TH",
             "S": "JS AS JH AH 7D 8D 9D TD", "W": "JD AD JC AC 7C 8C 9C TC"}
    contract = {"taker": "N", "value": 90, "trump": "AT"}
    rec = play_out(hands, dealer="E", contract=contract, rules="ffb-sata")
    r = score_record(rec, overrides={"belote": "auto"})
    assert r["belotes"] == {"NS": 2, "EW": 2}
    assert sum(r["points"].values()) in (258, 348)  # 348 = 248 + 100 on a capot
