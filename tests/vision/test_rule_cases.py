"""The stored cases of the reader's rules (``tests/vision/rule_cases.json``)."""

from __future__ import annotations

from pathlib import Path


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
