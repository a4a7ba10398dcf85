"""The one list of bot strengths: every place that names one reads it from here.

Bot ids (``bot:<strength>:<seat>``, services.common.bot_ids), matchmaking's check of a
requested strength, the terminal client's menus and room commands, ``domino demo --bots``,
the bots service's strategies and the arena all derive their lists from ``REGISTRY``, and
tests/unit/test_bot_strengths.py fails when one of them, or the bots service's
implementations, disagrees with it. It lives in services.common, as plain data, so the match
service, matchmaking and the client can read it without importing services.bots (the two
services stay independent: pyproject.toml's import-linter contracts).

A new strength is one entry here, in its place from weakest to strongest, plus its
implementation in services.bots.strategies.STRATEGIES, with ``offered=False`` while it is
only played in the arena and by ``domino demo``, and without it once players may pick it.
It is not listed before its implementation exists: ``keyed`` would stop the bots service
from starting. The ladder (``domino bots ladder``) must then be run again: its test fails
until it rates every registered strength. On the wire a strength is the API's `BotStrength` enum, whose value for a name is
`wire_name(name)`: the match service's DescribeRules and matchmaking's messages both map
through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, TypeVar


@dataclass(frozen=True)
class Strength:
    name: str
    description: str  # one line, after the name in menus and help: "greedy sheds its heaviest tile"
    offered: bool = True  # False: bot ids and the bots service know it, players cannot pick it yet


#: Weakest first: the position is the order (menus list them so, and "stronger" means later).
REGISTRY: tuple[Strength, ...] = (
    Strength("random", "plays any legal move"),
    Strength("greedy", "takes the most points now, else sheds its heaviest tile"),
    Strength("strong", "searches sampled deals of the unseen tiles for the best play"),
    Strength("expert", "searches as strong does, for as long as a person would think"),
)

#: The strength a player who names none gets (clients preselect it; public tables fall back
#: to it, DOMINO_TABLE_BOT_STRENGTH): where the ladder cannot tell it from its neighbours, the
#: level is offered under its name (services/common/bot_ladder.py, ``Ladder.offered``).
DEFAULT = "greedy"

#: Every registered strength, weakest first: what a bot id may name and the bots service plays.
NAMES: tuple[str, ...] = tuple(s.name for s in REGISTRY)
#: The strengths a player may ask for somewhere (matchmaking, the client's menus), weakest
#: first; which of them a family and team setting offers is the ladder's to say
#: (services/common/bot_ladder.py, ``Ladder.offered``).
OFFERED: tuple[str, ...] = tuple(s.name for s in REGISTRY if s.offered)


BY_NAME: dict[str, Strength] = {s.name: s for s in REGISTRY}


def rank(name: str) -> int:
    """0 for the weakest: a higher rank is meant to play better (ValueError for no strength)."""
    return NAMES.index(name)


def described(names: tuple[str, ...] = OFFERED) -> str:
    """"random plays any legal move; greedy …": the strengths for a help text."""
    return "; ".join(f"{name} {BY_NAME[name].description}" for name in names)


T = TypeVar("T")


def keyed(implementations: Mapping[str, T]) -> dict[str, T]:
    """One implementation per registered strength, in the registry's order.

    Raises at once, naming the difference, when a registered strength has no implementation
    or an implementation has no registered strength: a bots service that would fail at its
    first bot of that strength, or play one nobody can seat, should not start."""
    missing = [name for name in NAMES if name not in implementations]
    unknown = sorted(name for name in implementations if name not in NAMES)
    if missing or unknown:
        raise LookupError(f"bot strengths without an implementation: {missing or 'none'}; "
                          f"implementations of no registered strength: {unknown or 'none'} "
                          "(services/common/bot_strengths.py)")
    return {name: implementations[name] for name in NAMES}


WIRE_PREFIX = "BOT_STRENGTH_"


def wire_name(name: str) -> str:
    """The name of the API's BotStrength value for a strength: "greedy" -> BOT_STRENGTH_GREEDY."""
    return WIRE_PREFIX + name.upper()


def name_on_the_wire(value_name: str) -> str:
    """The strength a BotStrength value's name stands for: BOT_STRENGTH_GREEDY -> "greedy"."""
    return value_name.removeprefix(WIRE_PREFIX).lower()
