"""Rule presets and settings: every preset builds, every setting can be
overridden (also from its text form), unknown names and bad values are refused
by name."""

from __future__ import annotations

import pytest

from scorer.rules import PRESETS, Rules, UnknownSettingError


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_and_its_settings_are_applied(name):
    rules = Rules.from_preset(name)
    for key, value in PRESETS[name].items():
        assert getattr(rules, key) == value


def test_required_presets_exist():
    assert {"ffb", "ffb-pfd", "classic"} <= set(PRESETS)
    assert Rules.from_preset("ffb") == Rules()
    assert Rules.from_preset(None) == Rules()


def test_overrides_go_on_top_of_the_preset_and_accept_text():
    rules = Rules.from_preset("club", {"target": "1500", "clockwise": "true"})
    assert rules.target == 1500 and rules.clockwise is True
    assert rules.scoring == "contract"


@pytest.mark.parametrize("overrides,message", [
    ({"tagret": 1}, "unknown setting 'tagret'"),
    ({"target": "lots"}, "setting 'target': expected a whole number"),
    ({"target": -5}, "-5 is out of range"),
    ({"clockwise": "maybe"}, "setting 'clockwise': expected true or false"),
    ({"scoring": "points"}, "setting 'scoring': 'points' is not one of"),
])
def test_bad_settings_are_refused_by_name(overrides, message):
    with pytest.raises(UnknownSettingError, match=message):
        Rules.from_preset("ffb", overrides)


def test_unknown_preset_is_refused_by_name():
    with pytest.raises(UnknownSettingError, match="unknown rule preset 'fbb'"):
        Rules.from_preset("fbb")
    assert issubclass(UnknownSettingError, ValueError)


def test_rules_are_frozen_and_round_trip_as_json():
    rules = Rules.from_preset("ffb-pfd")
    with pytest.raises(AttributeError):
        rules.target = 5  # type: ignore[misc]
    assert Rules.from_settings(rules.to_json()) == rules
