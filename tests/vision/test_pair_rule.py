"""The pair rule's exponent: which cards two doubtful indices name at each exponent, how
they are counted, and which exponent is kept."""

import json
from pathlib import Path

import numpy as np

from vision.lab.dataset import CLASSES
from vision.lab.pair_rule import count, loosest, pair_named

ROOT = Path(__file__).resolve().parents[2]
NONE = len(CLASSES) - 1


def _probs(code: str, p: float) -> np.ndarray:
    out = np.full(len(CLASSES), (1 - p) / (len(CLASSES) - 1), np.float32)
    out[CLASSES.index(code)] = p
    return out


def _reads(pairs: list[tuple[str, float, float]], sure: tuple[str, ...] = ()):
    """One frame's box reads: each pair's two boxes a card's two indices apart (cards 300
    pixels apart), then one sure box per ``sure`` card; threshold 0.994 for all."""
    boxes, probs = [], []
    for k, (code, p1, p2) in enumerate(pairs):
        x = 300.0 * k
        boxes += [(x, 0.0, x + 24.0, 30.0), (x + 120.0, 0.0, x + 144.0, 30.0)]
        probs += [_probs(code, p1), _probs(code, p2)]
    for k, code in enumerate(sure):
        boxes.append((300.0 * k, 500.0, 300.0 * k + 24.0, 530.0))
        probs.append(_probs(code, 0.999))
    return boxes, np.stack(probs), np.full(len(boxes), 0.994), list(CLASSES), NONE


def test_pairs_name_cards_by_the_exponent_and_sure_cards_are_not_pairs():
    reads = _reads([("KC", 0.97, 0.88), ("QH", 0.999, 0.99)], sure=("7S",))
    assert pair_named(reads, 1.0) == {"KC"}  # QH's first box is sure on its own
    assert pair_named(reads, 0.7) == set()


def test_cards_named_by_pairs_count_right_when_readable_wrong_when_absent():
    frame = _reads([("KC", 0.97, 0.88), ("8H", 0.96, 0.95), ("TD", 0.95, 0.95)])
    # KC is not in the frame (a KS is), 8H is, TD is but hidden: neither right nor wrong.
    frames = [(frame, {"KS", "8H"}, {"KS", "8H", "TD"})]
    assert count(frames, 1.0) == {"right": 1, "wrong": 1}
    assert count(frames, 0.5) == {"right": 0, "wrong": 0}


def test_the_loosest_exponent_naming_no_wrong_card_is_kept():
    grid = {1.0: {"right": 9, "wrong": 2}, 0.9: {"right": 7, "wrong": 1},
            0.8: {"right": 5, "wrong": 0}, 0.7: {"right": 3, "wrong": 0}}
    assert loosest(grid) == 0.8
    assert loosest({1.0: {"right": 9, "wrong": 2}}) is None


def test_the_shipped_grey_exponent_is_the_one_the_record_chose():
    """``vision.lab.pair_rule --write`` put in the classifier's JSON what its figures in
    ``benchmarks/pair_rule.json`` chose, and it named no wrong card there."""
    meta = json.loads((ROOT / "vision/models/index_classifier.json").read_text())
    record = json.loads((ROOT / "benchmarks/pair_rule.json").read_text())
    chosen = record["grey_exponent"]
    assert meta["grey"]["pair_exponent"] == chosen < 1.0
    assert record["grey"][f"{chosen:.2f}"]["wrong"] == 0
    looser = [e for e in record["grey"] if float(e) > chosen]
    assert looser and all(record["grey"][e]["wrong"] > 0 for e in looser)
