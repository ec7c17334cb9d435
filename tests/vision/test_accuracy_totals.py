"""The accuracy benchmark's totals: the figures the README and the model card quote."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def accuracy():
    from benchmarks import accuracy

    return accuracy


def test_every_group_names_only_sets_the_benchmark_evaluates(accuracy):
    folders = {s[0] for s in accuracy.SYNTHETIC} | {s[0] for s in accuracy.TABLE}
    for group, members in accuracy.GROUPS.items():
        assert members and set(members) <= folders, group
    # Every set of frames is counted in exactly one total.
    counted = [f for members in accuracy.GROUPS.values() for f in members]
    assert sorted(counted) == sorted(folders)


def test_totals_sum_the_sets_and_count_unreadable_cards_apart(accuracy):
    piles = {"cards": 100, "missed": 5, "invented": 1,
             "readable": {"cards": 96, "missed": 2, "invented": 1}}
    more = {"cards": 50, "missed": 1, "invented": 0,
            "readable": {"cards": 50, "missed": 1, "invented": 0}}
    table = {"cards": 40, "missed": 0, "invented": 2}  # no unreadable card in this set
    found = accuracy.totals({"p": piles, "m": more, "t": table, "other": piles},
                            {"piles": ("p", "m", "missing"), "table": ("t",)})
    assert set(found) == {"piles", "table"}
    p = found["piles"]
    assert p["sets"] == ["p", "m"]
    assert (p["cards"], p["missed"], p["invented"]) == (150, 6, 1)
    assert p["read_right"] == pytest.approx(144 / 150, abs=1e-4)
    assert (p["readable"]["cards"], p["readable"]["missed"]) == (146, 3)
    assert p["readable"]["read_right"] == pytest.approx(143 / 146, abs=1e-4)
    t = found["table"]
    assert t["readable"] == {"cards": 40, "missed": 0, "invented": 2, "read_right": 1.0}


def test_a_partial_run_keeps_the_parts_it_did_not_measure(accuracy):
    before = {"measured": "2026-11-27T08:00:00Z", "sets": {"real scenes": {"recall": 0.98}},
              "totals": {"games in play": {"cards": 10}},
              "games": {"seeds": {"4": {"differences": 0}}, "differences": 0},
              "games_camera_high": {"seeds": {"41": {"differences": 1}}, "differences": 1}}
    # A --no-sets run that filmed the games and the camera-high games again.
    result = {"measured": "2026-11-27T09:00:00Z", "sets": {}, "totals": {},
              "games": {"seeds": {"4": {"differences": 2}}, "differences": 2},
              "games_at_the_mount": {"seeds": {}, "differences": 0},
              "games_camera_high": {"seeds": {"41": {"differences": 0}}, "differences": 0}}
    kept = accuracy.keep_unmeasured(result, before, {"games", "games_camera_high"})
    assert kept["sets"] == {"real scenes": {"recall": 0.98}}
    assert kept["totals"] == {"games in play": {"cards": 10}}
    assert kept["games"]["differences"] == 2 and kept["games_camera_high"]["differences"] == 0
    # Never measured, before or now: left as this run found it.
    assert kept["games_at_the_mount"] == {"seeds": {}, "differences": 0}
    assert kept["measured_at"] == {"sets": "2026-11-27T08:00:00Z",
                                   "games": "2026-11-27T09:00:00Z",
                                   "games_camera_high": "2026-11-27T09:00:00Z"}
    # Nothing before (a first run): the run's own parts only.
    fresh = accuracy.keep_unmeasured({"measured": "t", "sets": {}}, None, {"sets"})
    assert fresh == {"measured": "t", "sets": {}, "measured_at": {"sets": "t"}}
