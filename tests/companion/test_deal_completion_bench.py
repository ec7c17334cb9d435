"""The deal-completion benchmark on one small filmed game (one hand of the Paris
design, the real reader, tracker, service and store): it writes its figures with the
keys the issue names, for both levels of unsureness, and fills nothing wrong, loses
no card and leaves every hand right once the organiser has answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import deal_completion

KEYS = ("organiser_cards_per_hand_before", "organiser_cards_per_hand", "filled",
        "filled_wrong", "cards_lost", "hands_right_after_organiser")


@pytest.mark.slow
def test_one_small_game(tmp_path: Path) -> None:
    out = tmp_path / "deal.json"
    assert deal_completion.main(["--games", "1", "--hands", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    for key in KEYS:
        assert key in result, key
    assert [r["unread_target"] for r in result["runs"]] == [0.06, 0.15]
    for run in result["runs"]:
        for key in KEYS:
            assert key in run, key
        assert run["filled_wrong"] == 0
        assert run["cards_lost"] == 0
        assert run["hands_right_after_organiser"] == run["hands"] >= 1
        assert run["organiser_cards_per_hand"] <= run["organiser_cards_per_hand_before"]
        # Before the deal, the organiser names every card the camera left unread.
        assert round(run["organiser_cards_per_hand_before"] * run["hands"]) == round(
            run["unread_per_100"] * run["cards"] / 100)
    assert result["filled_wrong"] == result["runs"][0]["filled_wrong"]
    assert result["designs"] == ["paris"] and result["hands_per_game"] == 1
