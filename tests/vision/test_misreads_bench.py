"""The misreads benchmark sorts each card named by how it was named, and counts it right,
wrong, or neither."""

from benchmarks.misreads import tally, way_named


def test_a_card_with_one_sure_box_was_named_sure_else_by_a_pair():
    reads = [("KS", 0.999, 0.99), ("QH", 0.90, 0.99), ("QH", 0.80, 0.99), ("none", 1.0, 0.99)]
    assert way_named("KS", reads) == "sure"
    assert way_named("QH", reads) == "pair"
    # A sure box of another card says nothing of this one.
    assert way_named("QH", [("KS", 1.0, 0.99), ("QH", 0.98, 0.99)]) == "pair"


def test_cards_are_right_when_readable_wrong_when_absent_and_else_not_counted():
    named = [("KS", "sure"), ("7H", "sure"), ("QH", "pair"), ("AC", "pair")]
    readable = {"KS", "QH"}
    present = {"KS", "QH", "7H"}  # 7H in the frame but hidden: neither right nor wrong
    assert tally(named, readable, present) == {"sure": {"right": 1, "wrong": 0},
                                               "pair": {"right": 1, "wrong": 1}}
