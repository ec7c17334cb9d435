"""The lights benchmark's frames (``benchmarks/lights.py``): what it measures is as said."""

from __future__ import annotations

import numpy as np

from benchmarks.lights import BLACK_PAPER, INKS, LIGHTS, black_style, lit


def test_a_lit_frame_keeps_its_red_and_loses_blue_and_green():
    frame = np.full((4, 4, 3), 200, np.uint8)
    rng = np.random.default_rng(0)
    for light, ((b0, b1), (g0, g1)) in LIGHTS.items():
        out = lit(frame, light, rng).astype(float)
        assert (out[..., 2] == 200).all(), light
        assert b0 * 200 - 1 <= out[0, 0, 0] <= b1 * 200 + 1
        assert g0 * 200 - 1 <= out[0, 0, 1] <= g1 * 200 + 1


def test_a_black_deck_is_dark_paper_with_every_sign_in_one_ink():
    from vision.lab.render import get_style

    name = black_style("fr-grimaud", "gold")
    style = get_style(name)
    assert style.paper == BLACK_PAPER and style.red == style.black == INKS["gold"]
    from vision.lab.evaluate import design_frames

    frame, readable, present = next(design_frames([name], 1, 5))
    assert frame.shape == (720, 1280, 3) and readable <= present and readable


def test_a_benchmark_without_the_cached_designs_says_how_to_make_them(tmp_path, capsys):
    import argparse
    import json

    import pytest

    from vision.lab.decks import manifest_or_exit

    parser = argparse.ArgumentParser(prog="bench")
    with pytest.raises(SystemExit) as stopped:
        manifest_or_exit(parser, tmp_path)
    assert stopped.value.code == 2
    assert "belote-table vision decks" in capsys.readouterr().err
    (tmp_path / "decks.json").write_text(json.dumps({"designs": {}, "held_out": []}))
    assert manifest_or_exit(parser, tmp_path) == {"designs": {}, "held_out": []}
