"""A box's first read counted beside its second look: how the two are fused, which cards
that names, how they are counted, and which exponent is kept."""

import numpy as np
import pytest

from vision.lab.dataset import CLASSES
from vision.lab.look_rule import count, loosest, named
from vision.reader import fuse_look

NONE = len(CLASSES) - 1


def _probs(code: str, p: float) -> np.ndarray:
    out = np.full(len(CLASSES), (1 - p) / (len(CLASSES) - 1), np.float32)
    out[CLASSES.index(code)] = p
    return out


def test_a_look_agreeing_with_the_first_read_raises_that_card_only():
    first = np.stack([_probs("KC", 0.99), _probs("KC", 0.8), _probs("none", 0.9),
                      _probs("QH", 0.99), _probs("7S", 0.1)])
    looked = np.stack([_probs("KC", 0.9), _probs("KS", 0.9), _probs("none", 0.9),
                       _probs("QH", 0.5), _probs("7S", 0.9)])
    out = fuse_look(first, looked, NONE, 1.0)
    kc = CLASSES.index("KC")
    assert out[0, kc] == pytest.approx(1 - 0.01 * 0.1)  # two readings of one card
    assert np.array_equal(np.delete(out[0], kc), np.delete(looked[0], kc))
    assert np.array_equal(out[1], looked[1])  # another card: the look decides
    assert np.array_equal(out[2], looked[2])  # 'no belote card' is never raised
    assert out[3].max() == pytest.approx(1 - 0.01 * 0.5)
    assert out[4].max() == pytest.approx(1 - 0.9 * 0.1)
    # A smaller exponent counts the two as less than two readings; never under the look.
    half = fuse_look(first, looked, NONE, 0.5)
    assert looked[0, kc] < half[0, kc] < out[0, kc]
    assert (fuse_look(first, looked, NONE, 0.01) >= looked - 1e-7).all()
    assert np.array_equal(fuse_look(first, looked, NONE, None), looked)


def _join(pairs: list[tuple[str, float, float]], grey: bool = False):
    """One frame's join: each (card, first read, look) one box 300 pixels from the next,
    every box given a look; threshold 0.98."""
    boxes = [(300.0 * k, 0.0, 300.0 * k + 24.0, 30.0) for k in range(len(pairs))]
    first = np.stack([_probs(c, p) for c, p, _ in pairs])
    looked = np.stack([_probs(c, q) for c, _, q in pairs])
    return (boxes, looked.copy(), np.full(len(boxes), 0.98), list(CLASSES), NONE, 1.0, grey,
            np.arange(len(pairs)), first, looked)


def test_cards_named_with_the_first_read_count_right_when_readable_wrong_when_absent():
    joins = [_join([("KC", 0.9, 0.9), ("8H", 0.95, 0.9), ("TD", 0.95, 0.9), ("7S", 0.5, 0.99)])]
    assert named(joins, None, False) == {"7S"}  # the look alone
    assert named(joins, 1.0, False) == {"KC", "8H", "TD", "7S"}
    assert named(joins, 1.0, True) == {"7S"}  # a colour frame's looks: not the grey rule's
    # KC is not in the frame (a KS is), 8H is, TD is but hidden: neither right nor wrong.
    frames = [(joins, {"KS", "8H", "7S"}, {"KS", "8H", "TD", "7S"})]
    assert count(frames, 1.0, False) == {"right": 1, "wrong": 1, "lost": 0}
    assert count(frames, 0.5, False) == {"right": 0, "wrong": 0, "lost": 0}
    grey = [([_join([("8H", 0.95, 0.9)], grey=True)], {"8H"}, {"8H"})]
    assert count(grey, 1.0, True) == {"right": 1, "wrong": 0, "lost": 0}
    assert count(grey, 1.0, False) == {"right": 0, "wrong": 0, "lost": 0}


def test_the_loosest_exponent_naming_no_wrong_card_is_kept():
    grid = {1.0: {"right": 9, "wrong": 2}, 0.9: {"right": 7, "wrong": 1},
            0.8: {"right": 5, "wrong": 0}, 0.7: {"right": 3, "wrong": 0}}
    assert loosest(grid) == 0.8
    assert loosest({1.0: {"right": 9, "wrong": 2}}) is None


def test_a_first_read_and_a_look_agreeing_name_cards_the_look_alone_leaves(table_frame):
    """On a rendered frame, every box sent to the look and the look's threshold near 1:
    the look alone names few cards; counted with the first read, more, none invented."""
    from vision.reader import CardReader

    reader = CardReader(threads=1)
    frame, annotations = table_frame
    truth = {a["code"] for a in annotations if a["index_boxes"]}
    reader.classifier.threshold = 1.01  # every box unsure: each gets a look
    look = reader.classifier.meta["second_look"]
    look["threshold"] = 0.9999
    look.pop("look_exponent", None)
    reader.classifier.meta["pair_exponent"] = 0.01  # a card's two indices: no help
    alone = {d.code for d in reader.read(frame) if d.code}
    look["look_exponent"] = 1.0
    fused = {d.code for d in reader.read(frame) if d.code}
    assert alone < fused <= truth
    assert len(fused) >= len(alone) + 2


def test_the_reads_recorded_are_joined_again_as_the_reader_would(table_frame, monkeypatch):
    """``record_reads`` keeps a frame's joins as the reader read them (the look alone);
    joined again without the rule they name what the reader named, with it more."""
    import vision.reader as reader_module
    from vision.classify import CardClassifier
    from vision.lab.look_rule import record_reads
    from vision.reader import CardReader

    for owner, name in ((reader_module, "fuse_look"), (reader_module, "join_reads"),
                        (CardClassifier, "look_exponent")):
        monkeypatch.setattr(owner, name, getattr(owner, name))  # put back after the test
    seen = record_reads()
    reader = CardReader(threads=1)
    frame, annotations = table_frame
    truth = {a["code"] for a in annotations if a["index_boxes"]}
    reader.classifier.threshold = 1.01
    reader.classifier.meta["second_look"]["threshold"] = 0.9999
    reader.classifier.meta["second_look"]["look_exponent"] = 1.0  # ignored while recording
    reader.classifier.meta["pair_exponent"] = 0.01
    read = {d.code for d in reader.read(frame) if d.code}
    assert seen and len(seen[-1][7]) > 0  # boxes given a look, with their first reads
    assert named(seen, None, False) == read
    assert read < named(seen, 1.0, False) <= truth
