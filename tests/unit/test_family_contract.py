"""Every registered family states every facet the house asks of it (docs/design.md,
"Adding a family") and has what the tests and the bots need of it beyond its facets: its test
examples (tests/support/families.py), its golden corpus (scripts/make_golden.py) and the
strong bot's tuning. A family that lacks one is caught here, not by a player."""

from __future__ import annotations

import pytest

from services.rules import registry
from services.rules.facets import Phrases, Shape
from services.rules.family import Family
from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from tests.support import families, fifty_family
from tests.support.golden import GOLDEN, load_generator


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


def abstract_problems(family: Family) -> list[str]:
    """The facets every family must state itself (``Family``'s abstract methods and its
    attributes without a default) that this one leaves unstated."""
    unstated = [name for name in sorted(Family.__abstractmethods__)
                if getattr(getattr(type(family), name, None), "__isabstractmethod__", False)]
    unstated += [name for name in Family.__annotations__ if not hasattr(Family, name) and not hasattr(family, name)]
    return [f"no {name} (an abstract facet)" for name in unstated]


def support_problems(family: Family) -> list[str]:
    """What the tests and the bots lack of a family: its test examples, whose tables play
    every variant, seat count and team setting it offers (and host options, where it has
    some); every file of its golden corpus; the strong bot's tuning."""
    problems = []
    try:
        examples = families.examples(family)
    except LookupError:
        problems.append("no test examples (tests/support/families.py EXAMPLES)")
    else:
        tables = examples.tables
        if bool(examples.options) != bool(family.options):
            problems.append("test examples: host options to play exactly when the family has some")
        elif examples.options and tables:
            try:
                tables[0]._replace(options=examples.options).build()
            except Exception as e:
                problems.append(f"test examples: its host options are refused: {e}")
        offered = set(families.tables_of(family))
        played = [t._replace(options=None) for t in tables]
        if not tables or any(t not in offered for t in played):
            problems.append("test examples: tables it does not offer")
        for what, of in (("variant", lambda t: t.variant), ("seat count", lambda t: t.seats),
                         ("team setting", lambda t: t.teams)):
            if {of(t) for t in offered} - {of(t) for t in played}:
                problems.append(f"test examples: not every {what} is played")
    missing = [c.name for c in load_generator().configs(family) if not (GOLDEN / f"{c.name}.jsonl.xz").exists()]
    if missing:
        problems.append(f"no golden corpus for {', '.join(missing)} (scripts/make_golden.py)")
    if family.bot_tuning is None:
        problems.append("no tuning for the strong bot (Family.bot_tuning)")
    return problems


def family_problems(family: Family) -> list[str]:
    return abstract_problems(family) + facet_problems(family) + support_problems(family)


def test_every_registered_family_states_every_facet_and_has_its_examples_corpus_and_tuning(family):
    assert family_problems(family) == []


def test_a_registered_family_lacking_examples_corpus_tuning_and_a_facet_is_named_with_each():
    class Throwaway(fifty_family.Fifty):
        name = "throwaway"
        bot_tuning = None

    class Unstated(Family):  # no configure, no phrases; made anyway, as a careless plugin might
        name = "unstated"
        targets = (50,)

    Unstated.__abstractmethods__ = frozenset()
    registry.register(Throwaway())
    registry.register(Unstated())
    try:
        found = {f.name: family_problems(f) for f in registry.families()}
    finally:
        registry.unregister("throwaway")
        registry.unregister("unstated")
    assert support_problems(Throwaway()) == found["throwaway"] == [
        "no test examples (tests/support/families.py EXAMPLES)",
        "no golden corpus for throwaway-2-solo (scripts/make_golden.py)",
        "no tuning for the strong bot (Family.bot_tuning)"]
    assert {"no configure (an abstract facet)", "no phrases (an abstract facet)"} <= set(found["unstated"])
    assert all(found[f.name] == [] for f in registry.families())


def test_test_examples_leaving_a_variant_seat_count_team_setting_or_host_options_unplayed_are_caught(monkeypatch):
    koza_3 = families.Table("goat", "koza", 3, False)
    monkeypatch.setitem(families.EXAMPLES, "goat", families.Examples(tables=(koza_3,)))
    problems = support_problems(registry.family("goat"))
    assert {"test examples: not every variant is played", "test examples: not every seat count is played",
            "test examples: not every team setting is played",
            "test examples: host options to play exactly when the family has some"} <= set(problems)


def test_test_examples_whose_host_options_the_family_refuses_are_caught(monkeypatch):
    goat = families.examples("goat")
    monkeypatch.setitem(families.EXAMPLES, "goat", families.Examples(tables=goat.tables, options={"fish": "two"}))
    assert any(p.startswith("test examples: its host options are refused: ")
               for p in support_problems(registry.family("goat")))


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

    with pytest.raises(TypeError, match="configure"):
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
