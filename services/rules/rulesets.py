"""Rule sets as data plus the few functions that differ between families.

The core (moves, transitions, the match loop) reads only these fields; each family of
docs/rules.md is one module of ``families/`` that builds its RuleSet (``egyptian``,
``all_fives``, ``goat``, ``classic``, ``sports``) with its own leader, scoring and
match-end functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import BadOptions, shown

TURN_TIMERS = (30, 45, 60, 90, 0)  # seconds; 0 is unlimited
DEFAULT_TURN_TIMER = 45
FAMILY_NAMES = ("egyptian", "all-fives", "goat", "classic", "sports")


@dataclass(frozen=True)
class RuleSet:
    family: str
    variant: str  # "" for a family without variants
    seats: int
    hand_size: int
    draws: bool  # undealt tiles form a boneyard to draw from
    teams: bool
    default_target: int
    targets: tuple[int, ...]
    # (deal) -> (seat, tile or -1 for any): who leads when nobody earned the lead, and with what.
    opening_leader: Callable = field(repr=False, compare=False)
    # (rules, reason, last_seat, hands) -> (winner side | None, points)
    score_round: Callable = field(repr=False, compare=False)
    # (rules, reason, winner side | None, last_seat, hands) -> seat | None (None: as round 1 is led)
    next_leader: Callable = field(repr=False, compare=False)
    # (rules, scores, target) -> (winner side | None, over, goats)
    match_end: Callable = field(repr=False, compare=False)
    # Goat: (rules, reason, last_seat, hands, accounts) -> (written, accounts); None: score_round decides
    tally: Callable | None = field(default=None, repr=False, compare=False)
    # (round, written, accounts) -> the family's own part of a round's result (RoundResult.extras),
    # given what ``tally`` wrote and the accounts after it ((), None without one); None: no part
    round_extras: Callable | None = field(default=None, repr=False, compare=False)
    # Goat with the redeal option: (hands) -> whether the deal must be redealt
    redeal: Callable | None = field(default=None, repr=False, compare=False)
    # Sports: (round) -> seconds the seat to act has for its move
    move_timer: Callable | None = field(default=None, repr=False, compare=False)
    chance: bool = False  # round 1 and the round after a tie are led by a seat drawn by chance
    four_ends: bool = False  # the first double is a spinner with up and down sides (All Fives)
    barred: int = 0  # tiles that may never open a round
    options: Any = None  # Goat's GoatOptions

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

    @property
    def name(self) -> str:
        """How messages name the rule set (its family says: "block-4", "goat koza")."""
        from .families.registry import family

        return family(self.family).rule_set_name(self)


def egyptian(variant: str, teams: bool | None = None) -> RuleSet:
    """Shorthand for an Egyptian rule set, the primary family's (tests and examples)."""
    return rule_set("egyptian", variant, teams)


def rule_set(family: str, variant: str | None = None, teams: bool | None = None, seats: int | None = None,
             options: dict | None = None) -> RuleSet:
    """The rule set a host (or a record) names; BadOptions says what is allowed otherwise."""
    from .families.registry import family as named

    return named(family).build(variant, seats, teams, options)


def check_seats(family: str, seats: int | None, allowed: tuple[int, ...], default: int) -> int:
    if seats is None:
        return default
    if seats not in allowed:
        raise BadOptions(f"{family} is played by {' or '.join(map(str, allowed))} players, not {seats}")
    return seats


def check_teams(family: str, seats: int, teams: bool | None) -> bool:
    """Teams (0+2 against 1+3) are a host option at four seats; solo is the default."""
    if teams and seats != 4:
        raise BadOptions(f"{family} is played in teams only by 4 players")
    return bool(teams)


def check_target(rules: RuleSet, target: int) -> None:
    if target not in rules.targets:
        raise BadOptions(f"target {target} is not offered; choose one of {', '.join(map(str, rules.targets))}")


def check_turn_timer(seconds: int) -> None:
    if seconds not in TURN_TIMERS:
        raise BadOptions("turn timer must be 30, 45, 60 or 90 seconds, or 0 for unlimited")


def match_options(family: str, variant: str | None, teams: bool | None = None, target: int | None = None,
                  turn_timer: int | None = None, seats: int | None = None,
                  options: dict | None = None) -> tuple[RuleSet, int, int]:
    """The host's options, checked, with unset ones taking the rule set's defaults:
    (rule set, target, turn timer in seconds, 0 for unlimited). BadOptions otherwise."""
    rules = rule_set(family, variant, teams, seats, options)
    target = rules.default_target if target is None else target
    check_target(rules, target)
    turn_timer = DEFAULT_TURN_TIMER if turn_timer is None else turn_timer
    check_turn_timer(turn_timer)
    return rules, target, turn_timer


# The Egyptian family's lists, where the services and the CLI have always read them.
EGYPTIAN_VARIANTS = ("draw-2", "block-3", "block-4")
TARGETS = (51, 71, 101, 151)
FAMILIES = FAMILY_NAMES
