"""The rule families as the tests meet them: every registered family (``registry.families()``),
the tables it is played at, and what a test needs of a family that the family does not say
itself (its examples), in one place.

A test that holds for every family iterates these instead of naming the families, so a new
family is tested once it is registered and has its entry in ``EXAMPLES``
(tests/unit/test_family_contract.py fails until it has). A test about one family's own rule
(Goat's goats, All Fives' spinner) still names that family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import pytest

from services.rules import registry
from services.rules.family import Family
from services.rules.rulesets import RuleSet
from tests.support.golden import load_generator

_GOLDEN = load_generator()  # the corpus's generator names the tables and lists them


class Table(NamedTuple):
    """A family played at one variant, seat count and team setting (and host options)."""
    family: str
    variant: str | None
    seats: int
    teams: bool
    options: Mapping[str, Any] | None = None

    @property
    def id(self) -> str:
        """As the golden corpus names its files (``goat-koza-4-teams``), then any host options."""
        return "-".join([_GOLDEN.Config(self.family, self.variant, self.seats, self.teams, None).name,
                         *(f"{k}={v}" for k, v in (self.options or {}).items())])

    @property
    def chosen(self) -> dict[str, Any] | None:
        """The host options as a request names them (None: the presets)."""
        return dict(self.options) if self.options else None

    def build(self) -> RuleSet:
        return registry.family(self.family).build(self.variant, self.seats, self.teams, self.chosen)


@dataclass(frozen=True)
class Examples:
    """What the tests need of one family beyond its facets.

    ``tables``: the tables a test that samples the family plays, the family's usual table
    first; together they play every variant, every seat count and both team settings the
    family offers (the contract test checks it), where ``every_table`` plays every shape.
    ``options``: host options other than the presets, for a family with options (Goat's fish
    and 0-0).
    """
    tables: tuple[Table, ...]
    options: Mapping[str, Any] | None = None

    @property
    def usual(self) -> Table:
        return self.tables[0]


EXAMPLES: dict[str, Examples] = {
    "egyptian": Examples(tables=(Table("egyptian", "block-4", 4, True), Table("egyptian", "draw-2", 2, False),
                                 Table("egyptian", "block-3", 3, False), Table("egyptian", "block-4", 4, False))),
    "all-fives": Examples(tables=(Table("all-fives", None, 3, False), Table("all-fives", None, 2, False),
                                  Table("all-fives", None, 4, True))),
    "goat": Examples(tables=(Table("goat", "koza", 3, False), Table("goat", "koza", 2, False),
                             Table("goat", "gamezz", 4, True)), options={"fish": "one", "zero_zero": 25}),
    "classic": Examples(tables=(Table("classic", None, 3, False), Table("classic", None, 2, False),
                                Table("classic", None, 4, False))),
    "sports": Examples(tables=(Table("sports", None, 4, True),)),
}


def examples(family: Family | str) -> Examples:
    name = family if isinstance(family, str) else family.name
    try:
        return EXAMPLES[name]
    except KeyError:
        raise LookupError(f"the family {name!r} has no test examples: add its entry to tests/support/families.py"
                          " EXAMPLES") from None


def tables_of(family: Family) -> tuple[Table, ...]:
    """Every variant and shape the family offers, as its facets say (the golden corpus's configurations)."""
    return tuple(Table(c.rules, c.variant, c.seats, c.teams) for c in _GOLDEN.configs(family))


def every_table() -> tuple[Table, ...]:
    """Every registered family at every variant and shape it offers."""
    return tuple(t for f in registry.families() for t in tables_of(f))


def sample_tables() -> tuple[Table, ...]:
    """Every registered family at its example tables."""
    return tuple(t for f in registry.families() for t in examples(f).tables)


def usual_tables(where: Callable[[RuleSet], bool] | None = None) -> tuple[Table, ...]:
    """Every registered family at its usual table, one each; with ``where``, at the first of
    its example tables whose rule set ``where`` accepts (a family with none is left out)."""
    return _one_each(lambda tables: tables[0], where)


def variant_tables() -> tuple[Table, ...]:
    """Every registered family at the first of its example tables of each variant it offers."""
    return tuple(next(t for t in examples(f).tables if t.variant == (variant or None))
                 for f in registry.families() for variant in f.variants or ("",))


def option_tables() -> tuple[Table, ...]:
    """Every registered family with host options at its usual table, its example options chosen."""
    return tuple(examples(f).usual._replace(options=examples(f).options) for f in registry.families() if f.options)


def smallest_tables(where: Callable[[RuleSet], bool] | None = None) -> tuple[Table, ...]:
    """Every registered family at its example table of the fewest seats (the first of
    equals), as ``usual_tables`` picks with ``where``."""
    return _one_each(lambda tables: min(tables, key=lambda t: t.seats), where)


def largest_tables(where: Callable[[RuleSet], bool] | None = None) -> tuple[Table, ...]:
    """Every registered family at its example table of the most seats (the first of equals)."""
    return _one_each(lambda tables: max(tables, key=lambda t: t.seats), where)


def _one_each(pick: Callable[[list[Table]], Table], where: Callable[[RuleSet], bool] | None) -> tuple[Table, ...]:
    found = []
    for f in registry.families():
        tables = [t for t in examples(f).tables if where is None or where(t.build())]
        if tables:
            found.append(pick(tables))
    return tuple(found)


def params(tables: Iterable[Table]) -> list[Any]:
    """Tables as pytest parameters named by their ids."""
    return [pytest.param(t, id=t.id) for t in tables]
