"""A rule set is built once per configuration (docs/design.md, "Adding a family"): CreateMatch's
check, the aggregate's fold and every later load of a match share one immutable value."""

from __future__ import annotations

import pytest

from services.match.creation_checks import chosen
from services.rules.errors import BadOptions
from services.rules import registry
from services.rules.rulesets import rule_set


def test_a_configuration_named_twice_is_one_rule_set():
    assert rule_set("egyptian", "block-4") is rule_set("egyptian", "block-4")
    assert rule_set("goat", "koza", False, 3, {"fish": "one"}) is rule_set("goat", "koza", False, 3, {"fish": "one"})


def test_a_configuration_left_to_its_defaults_is_the_one_it_settles_on():
    assert rule_set("egyptian", "block-4") is rule_set("egyptian", "block-4", True, 4)
    played = {"zero_zero": 10, "redeal": True, "remembered": True, "fish": "all"}
    assert rule_set("goat", "koza") is rule_set("goat", "koza", False, 4, played)


def test_the_match_a_create_match_checks_is_the_rule_set_its_aggregate_plays():
    named = chosen("goat", "koza", None, None, None, 4, {"fish": "one"})
    assert rule_set("goat", named.variant, named.rules.teams, 4, named.options) is named.rules
    assert named.rules.options.fish == "one"


def test_an_option_refused_is_refused_again_however_alike_a_built_value_looks():
    rule_set("goat", "gamezz", None, None, {"zero_zero": 10, "redeal": False})
    with pytest.raises(BadOptions, match="redeal must be true or false"):
        rule_set("goat", "gamezz", None, None, {"zero_zero": 10, "redeal": 0})  # 0 == False, but not a bool
    with pytest.raises(BadOptions, match="given by name"):
        rule_set("goat", "gamezz", None, None, [])  # type: ignore[arg-type]
    with pytest.raises(BadOptions, match="must be one of"):
        rule_set("goat", "gamezz", None, None, {"fish": ["one"]})  # unhashable: built, and refused, every time


def test_every_built_in_family_builds_through_its_kind():
    for family in registry.families():
        rules = family.build(family.default_variant or None)
        assert rules.kind is family and rules.family == family.name
