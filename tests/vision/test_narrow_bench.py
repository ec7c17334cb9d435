"""``benchmarks/narrow.py``: what narrower index classifiers would save a patch."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")


def test_the_multiply_adds_of_the_shipped_widths_are_the_model_cards():
    from benchmarks.narrow import multiply_adds

    # 18.6 million a patch (the model card).
    assert multiply_adds((32, 64, 96, 128, 128)) == 18_579_456
    assert multiply_adds((16, 24, 32, 48, 128)) < multiply_adds((32, 64, 96, 128, 128)) / 5


@pytest.mark.slow
def test_the_benchmark_cuts_quantizes_and_times_each_width(tmp_path):
    from benchmarks import narrow

    out = tmp_path / "narrow.json"
    result = narrow.run(((16, 24, 32, 48, 128),), repeats=2, frames=1, out=out,
                        scales=(0.75,))
    assert json.loads(out.read_text()) == result
    assert result["shipped"]["widths"] == [32, 64, 96, 128, 128]
    [entry] = result["narrower"]
    assert entry["widths"] == [16, 24, 32, 48, 128]
    assert entry["ms_per_patch_8bit"] > 0 and entry["ms_per_patch_float"] > 0
    # Made 8-bit as the shipped one: a file a fraction of the shipped 8-bit one's size.
    from vision.classify import DEFAULT_MODEL

    assert 0 < entry["bytes_8bit"] < DEFAULT_MODEL.stat().st_size / 2
    # The shipped weights at 24 of 32 pixels: as many weights, fewer multiply-adds.
    [small] = result["smaller"]
    assert small["side"] == 24 and small["widths"] == [32, 64, 96, 128, 128]
    assert small["multiply_adds"] < 0.6 * result["shipped"]["multiply_adds"]
    assert small["ms_per_patch_8bit"] > 0
    assert abs(small["bytes_8bit"] - DEFAULT_MODEL.stat().st_size) < 0.1 * small["bytes_8bit"]


def test_widths_that_are_not_five_channel_counts_are_refused(capsys):
    from benchmarks import narrow

    with pytest.raises(SystemExit):
        narrow.main(["--widths", "16,24,32", "--out", "unused.json"])
    assert "five channel counts" in capsys.readouterr().err


@pytest.mark.parametrize("scale", ["0", "1", "1.5"])
def test_scales_that_are_not_a_share_of_the_patch_are_refused(capsys, scale):
    from benchmarks import narrow

    with pytest.raises(SystemExit):
        narrow.main(["--scales", scale, "--out", "unused.json"])
    assert "--scales" in capsys.readouterr().err
