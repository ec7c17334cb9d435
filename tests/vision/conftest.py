"""Fixtures of the card reader's tests: the shipped model, real photos, rendered frames."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

from vision.lab.dataset import split_of


@pytest.fixture(scope="session")
def reader():
    """The shipped reader (real ONNX models from vision/models), on one thread."""
    from vision.reader import CardReader

    return CardReader(threads=1)


@pytest.fixture(scope="session")
def rule_case(reader):
    """``rule_case(name)``: a reader rule of ``vision.lab.rule_cases`` and its stored cases
    (``tests/vision/rule_cases.json``), checked to be found with the shipped classifier."""
    from vision.deck import model_sha256
    from vision.lab import rule_cases

    def cases(name):
        stored = rule_cases.load()
        assert stored["model_sha256"] == model_sha256(reader.classifier.model_path), (
            f"{rule_cases.CASES.name} was found with another classifier: after shipping a "
            "model, run python -m vision.lab.rule_cases --write")
        found = stored["rules"][name]["cases"]
        assert found, (f"{name}: no case found for this classifier: run python -m "
                       f"vision.lab.rule_cases --write --rule {name} --frames N")
        return rule_cases.RULES[name], found

    return cases


@pytest.fixture(scope="session")
def held_out_scenes(real_cards) -> list[tuple[Path, list[str]]]:
    """Held-out real photos (never trained on) with the belote cards labelled in each."""
    labels = json.loads((real_cards / "scenes" / "labels.json").read_text())
    return [(real_cards / "scenes" / name, sorted({b["label"] for b in boxes if b["belote"]}))
            for name, boxes in sorted(labels.items()) if split_of(name) == "test"]


@pytest.fixture(scope="session")
def table_frame():
    """A rendered 1280x720 table frame, cards apart, with its annotations."""
    from vision.lab.render import render_scene

    return render_scene(np.random.default_rng(4242), n_cards=6, negatives=False, hands=0,
                        overlap=0.0)


@pytest.fixture()
def bench(request):
    """The benchmark module named by the test module's ``BENCH`` (``benchmarks.<BENCH>``);
    the test is skipped when no deck designs are cached (they need ``make decks``)."""
    from vision.lab import decks

    if decks.load_manifest() is None:
        pytest.skip("no deck designs cached (make decks)")
    return importlib.import_module(f"benchmarks.{request.module.BENCH}")
