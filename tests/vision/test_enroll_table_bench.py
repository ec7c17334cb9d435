"""The at-table enrolment benchmark (``benchmarks/enroll_table.py``): its loop learns a deck
through ``belote-table enroll``'s own code, and bad arguments are refused."""

from __future__ import annotations

import numpy as np
import pytest

BENCH = "enroll_table"  # the ``bench`` fixture (conftest.py) gives its module


def test_no_test_frame_is_refused(bench, capsys, tmp_path):
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit):
        bench.main(["--frames", "0", "--out", str(out)])
    assert "--frames" in capsys.readouterr().err and not out.exists()


def test_the_command_s_loop_learns_a_design_from_camera_frames(bench):
    from vision.lab import render
    from vision.reader import CardReader

    render.art_styles(held_out=None, french_art=True)
    reader = CardReader()
    deck, how = bench.enrol_at_table(reader, ["art-tigullio"], np.random.default_rng(bench.SEED))
    assert how["groups"] == 8
    # Each group learnt is shown for the frames the command waits for, then cleared.
    learnt = how["groups"] - how["groups_given_up"]
    assert learnt >= 7 and how["frames_shown"] >= learnt * (bench.STEADY + 1) - 1
    assert len(deck.cards) >= 28
    assert (deck.linear is not None) == (len(deck.cards) == 32)


def test_a_negative_count_is_refused(bench, capsys, tmp_path):
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit):
        bench.main(["--count", "-1", "--out", str(out)])
    assert "--count" in capsys.readouterr().err and not out.exists()


def test_the_count_compares_outlines_alone_with_indices_too(bench):
    from vision.lab import render
    from vision.reader import CardReader

    render.art_styles(held_out=None, french_art=True)
    got = bench.count_cards_seen(CardReader(), ["bellot"], 6)
    for way in ("indices_too", "outlines_alone"):
        assert got[way]["frames"] == 6
        assert sum(int(v.split(" of ")[1]) for v in got[way]["all_seen"].values()) == 6
    # On these frames, counting a card by its two indices too sees all 4 as often or more.
    assert got["indices_too"]["all_seen_total"] >= got["outlines_alone"]["all_seen_total"]
