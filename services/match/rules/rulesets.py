"""Rule sets as data plus the few functions that differ between families.

The core (moves, transitions, the match loop) reads only these fields, so another family
of RULES.md (All Fives, Goat, Classic, Sports) is a new RuleSet with its own leader and
scoring functions, not a rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .errors import BadOptions

TARGETS = (51, 71, 101, 151)
TURN_TIMERS = (30, 45, 60, 90, 0)  # seconds; 0 is unlimited
DEFAULT_TURN_TIMER = 45


@dataclass(frozen=True)
class RuleSet:
    family: str
    variant: str
    seats: int
    hand_size: int
    draws: bool  # undealt tiles form a boneyard to draw from
    teams: bool
    default_target: int
    targets: tuple[int, ...]
    # (hands) -> (seat, tile): who leads when nobody earned the lead, and with what.
    opening_leader: Callable = field(repr=False, compare=False)
    # (rules, reason, last_seat, hands) -> (winner side | None, points)
    score_round: Callable = field(repr=False, compare=False)
    # (rules, reason, winner side | None, last_seat, hands) -> seat | None
    next_leader: Callable = field(repr=False, compare=False)

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.seats

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if self.side_of(s) == side)

    @property
    def undealt(self) -> int:
        return 28 - self.seats * self.hand_size


EGYPTIAN_VARIANTS = ("draw-2", "block-3", "block-4")


def egyptian(variant: str, teams: bool | None = None) -> RuleSet:
    """RULES.md §1. ``teams`` applies to block-4 only (default: teams)."""
    from . import leading, scoring

    shapes = {"draw-2": (2, 7, True, 71), "block-3": (3, 9, False, 101), "block-4": (4, 7, False, 101)}
    if variant not in shapes:
        raise BadOptions(f"unknown egyptian variant {variant!r}; choose one of {', '.join(EGYPTIAN_VARIANTS)}")
    seats, hand_size, draws, default_target = shapes[variant]
    if teams is None:
        teams = variant == "block-4"
    if teams and variant != "block-4":
        raise BadOptions(f"{variant} is played solo; teams need four players (block-4)")
    return RuleSet(
        family="egyptian",
        variant=variant,
        seats=seats,
        hand_size=hand_size,
        draws=draws,
        teams=teams,
        default_target=default_target,
        targets=TARGETS,
        opening_leader=leading.highest_double_or_tile,
        score_round=scoring.egyptian_round_points,
        next_leader=leading.egyptian_next_leader,
    )


FAMILIES = {"egyptian": egyptian}


def rule_set(family: str, variant: str, teams: bool | None = None) -> RuleSet:
    try:
        make = FAMILIES[family]
    except KeyError:
        raise BadOptions(f"unknown rules {family!r}; this server plays: {', '.join(FAMILIES)}") from None
    return make(variant, teams)


def check_target(rules: RuleSet, target: int) -> None:
    if target not in rules.targets:
        raise BadOptions(f"target {target} is not offered; choose one of {', '.join(map(str, rules.targets))}")


def check_turn_timer(seconds: int) -> None:
    if seconds not in TURN_TIMERS:
        raise BadOptions("turn timer must be 30, 45, 60 or 90 seconds, or 0 for unlimited")


def match_options(family: str, variant: str, teams: bool | None = None, target: int | None = None,
                  turn_timer: int | None = None) -> tuple[RuleSet, int, int]:
    """The host's options, checked, with unset ones taking the variant's defaults:
    (rule set, target, turn timer in seconds, 0 for unlimited). BadOptions otherwise."""
    rules = rule_set(family, variant, teams)
    target = rules.default_target if target is None else target
    check_target(rules, target)
    turn_timer = DEFAULT_TURN_TIMER if turn_timer is None else turn_timer
    check_turn_timer(turn_timer)
    return rules, target, turn_timer
