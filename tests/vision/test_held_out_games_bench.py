"""The held-out games benchmark films a game with the deck design it is asked for, and
refuses designs that are not held out of training."""

import argparse

import pytest

from benchmarks import held_out_games, pipeline


def test_a_game_is_filmed_with_the_style_it_asks_for(monkeypatch, tmp_path):
    asked: dict = {}

    class Filmed(Exception):
        pass

    def table(**kwargs):
        asked.update(kwargs)
        raise Filmed

    monkeypatch.setattr(pipeline, "VirtualTable", table)
    with pytest.raises(Filmed):
        held_out_games.film(reader=None, design="kde-dondorf", seed=61, folder=tmp_path)
    assert asked["style"] == "art-kde-dondorf" and asked["seed"] == 61
    assert asked["size"] == (1280, 720) and asked["inject_renonce"] is True
    # accuracy.py's games keep the styles they had.
    asked.clear()
    game = argparse.Namespace(seed=4, hands=1, size=(960, 540), fps=10.0, renonce=True)
    with pytest.raises(Filmed):
        pipeline.run(game, reader=None, realtime=False, folder=tmp_path)
    assert asked["style"] == "french"


@pytest.mark.parametrize("designs", ["bellot", "paris,nope", ","])
def test_designs_not_held_out_are_refused(designs, capsys):
    with pytest.raises(SystemExit) as stop:
        held_out_games.main(["--designs", designs])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--designs" in err and "kde-dondorf" in err
