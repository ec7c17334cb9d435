"""The stored cases of the reader's rules (``tests/vision/rule_cases.json``)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_the_stored_cases_name_every_rule_the_module_defines():
    """``vision.lab.rule_cases`` defines each rule once: the file holds one case or more
    of each, with what draws its frame, and a test reads them (a rule cannot lose its
    case, nor its case its test, without this failing)."""
    from vision.lab import rule_cases

    stored = rule_cases.load()
    assert list(stored["rules"]) == list(rule_cases.RULES)
    tests = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py")
                    if p.name != Path(__file__).name)
    for name, rule in rule_cases.RULES.items():
        cases = stored["rules"][name]["cases"]
        assert cases, name
        for case in cases:
            assert set(case) - {"tried"} == set(rule.known[0]), (name, case)
        assert f'"{name}"' in tests, f"{name}: no test reads its cases"


def _known():
    from vision.lab import rule_cases

    return [(name, i) for name, rule in rule_cases.RULES.items()
            for i in range(len(rule.known))]


@pytest.mark.parametrize("name, i", _known())
def test_a_frame_where_a_rule_once_kept_a_misread_off_is_never_misread(reader, name, i):
    """The frames the rules were first shown on (each rule's ``known`` cases, found with
    the classifier of 2026-12-02) stay in the tests whatever frames ``--write`` finds for a
    newer classifier: with every rule on, none names a card that is not in it (a black
    card's picture: none but its own). A classifier that needs the rule on a frame of its
    own still has to keep these right; one that misreads them is not shipped."""
    from vision.lab import rule_cases

    rule = rule_cases.RULES[name]
    case = rule.known[i]
    with rule_cases.scene(rule):
        picture, readable, present = rule_cases.draw(rule, case)
        if rule.kind == "face":
            found = reader.read_face(picture)
            assert found is None or found.code in (None, case["card"])
        else:
            got = rule_cases.read(reader, picture)
            assert got <= present, (case, sorted(got - present))
