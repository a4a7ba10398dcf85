"""The rule set a host or a record names, by family name: the engine's front door.

A rule set is a ``RuleSet`` (``family.py``), one configuration of a family; this
module finds the family in the registry and has it build one, and checks the choices a
match adds to it (target, turn timer).
"""

from __future__ import annotations

from .errors import BadOptions
from .family import RuleSet, check_target
from .registry import family as named

__all__ = ["DEFAULT_TURN_TIMER", "TURN_TIMERS", "RuleSet", "check_target", "check_turn_timer", "egyptian", "rule_set"]

TURN_TIMERS = (30, 45, 60, 90, 0)  # seconds; 0 is unlimited
DEFAULT_TURN_TIMER = 45


def egyptian(variant: str, teams: bool | None = None) -> RuleSet:
    """Shorthand for an Egyptian rule set, the primary family's (tests and examples)."""
    return rule_set("egyptian", variant, teams)


def rule_set(family: str, variant: str | None = None, teams: bool | None = None, seats: int | None = None,
             options: dict | None = None) -> RuleSet:
    """The rule set a host (or a record) names; BadOptions says what is allowed otherwise."""
    return named(family).build(variant, seats, teams, options)


def check_turn_timer(seconds: int) -> None:
    if seconds not in TURN_TIMERS:
        raise BadOptions("turn timer must be 30, 45, 60 or 90 seconds, or 0 for unlimited")
