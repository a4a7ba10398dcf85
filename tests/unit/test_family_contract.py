"""Every registered family states every facet the house asks of it (docs/design.md,
"Adding a family"), and a family that lacks one is caught here, not by a player."""

from __future__ import annotations

import pytest

from services.rules.families import registry
from services.rules.families.family import Family, Phrases, Shape
from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from tests.support import fifty_family


def facet_problems(family: Family) -> list[str]:
    """What a family fails to state, in words; [] for a complete one."""
    problems = []
    if not getattr(family, "name", ""):
        return ["no name"]
    if not isinstance(getattr(family, "phrases", None), Phrases) or not family.phrases.title:
        problems.append("no phrases (at least a title)")
    if not family.targets:
        problems.append("no targets")
    names = [o.name for o in family.options]
    if len(set(names)) != len(names) or any(not o.values or not o.help for o in family.options):
        problems.append("host options need distinct names, allowed values and help")
    for variant in family.variants or ("",):
        shapes = family.shapes(variant)
        if not shapes or family.default_shape(variant) not in shapes:
            problems.append(f"{variant or 'the family'}: no shapes, or a default shape it does not offer")
        if family.default_target(variant) not in family.targets:
            problems.append(f"{variant or 'the family'}: its default target is not one of its targets")
        presets = dict(family.presets(variant))
        if set(presets) != set(names):
            problems.append(f"{variant or 'the family'}: presets {sorted(presets)} are not its options {sorted(names)}")
        for option in family.options:
            if option.name in presets and presets[option.name] not in option.values:
                problems.append(f"{variant or 'the family'}: preset {option.name} is not an allowed value")
        for shape in shapes:
            try:
                rules = family.build(variant or None, shape.seats, shape.teams, None)
                start_round(new_match(rules), deal(rules, b"contract"))
            except Exception as e:  # a refusal or a crash: either way the shape is not playable
                problems.append(f"{variant or 'the family'} at {shape}: not built: {e!r}")
                continue
            if (rules.family, rules.seats, rules.teams) != (family.name, shape.seats, shape.teams):
                problems.append(f"{variant or 'the family'} at {shape}: built {rules.family} {rules.seats} {rules.teams}")
            if (family.played_options(rules) is None) != (not family.options):
                problems.append("played_options must give the options as played exactly when the family has options")
    if not isinstance(family.record.variant, bool) or family.record.variant != bool(family.variants):
        problems.append("the record names a variant exactly when the family has variants")
    if family.record.options != bool(family.options):
        problems.append("the record lists the host options exactly when the family has some")
    keys = [c.key for c in family.round_columns]
    if len(set(keys)) != len(keys):
        problems.append("round columns need distinct keys")
    return problems


@pytest.mark.parametrize("family", registry.families(), ids=lambda f: f.name)
def test_every_registered_family_states_every_facet(family):
    assert facet_problems(family) == []


def test_the_test_only_family_states_every_facet_and_registers_with_one_line():
    assert facet_problems(fifty_family.FAMILY) == []
    registry.register(fifty_family.FAMILY)
    try:
        assert registry.family("fifty") is fifty_family.FAMILY and "fifty" in registry.names()
    finally:
        registry.unregister("fifty")


def test_a_family_without_a_title_or_targets_is_caught():
    class Untitled(fifty_family.Fifty):
        name = "untitled"
        phrases = Phrases(title="")
        targets = ()

    problems = facet_problems(Untitled())
    assert any("title" in p for p in problems) and any("targets" in p for p in problems)


def test_a_family_whose_presets_miss_an_option_is_caught():
    class Forgetful(fifty_family.Fifty):
        name = "forgetful"

        def presets(self, variant: str) -> dict:
            return {}

    assert any("presets" in p for p in facet_problems(Forgetful()))


def test_a_family_whose_default_shape_is_not_offered_is_caught():
    class Misshapen(fifty_family.Fifty):
        name = "misshapen"

        def default_shape(self, variant: str) -> Shape:
            return Shape(3, False)

    assert any("default shape" in p for p in facet_problems(Misshapen()))


def test_a_family_missing_an_abstract_facet_cannot_be_made():
    class Unbuildable(Family):
        name = "unbuildable"
        phrases = Phrases(title="Unbuildable")
        targets = (50,)
        offered_shapes = (Shape(2, False),)
        usual_target = 50

    with pytest.raises(TypeError, match="build"):
        Unbuildable()  # type: ignore[abstract]


def test_a_family_offering_no_shapes_is_caught():
    class Shapeless(fifty_family.Fifty):
        name = "shapeless"
        offered_shapes = ()

    assert any("no shapes" in p for p in facet_problems(Shapeless()))


def test_a_second_family_of_a_taken_name_is_refused():
    class Impostor(fifty_family.Fifty):
        name = "egyptian"

    with pytest.raises(ValueError, match="already registered"):
        registry.register(Impostor())
    assert registry.find("fifty") is None
