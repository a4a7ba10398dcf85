"""All Fives, "straight dominoes" (docs/rules.md §2): points during play for open ends that
add up to a multiple of five, the spinner (``spinner.py``), round-end points rounded to
the nearest five, and a leader drawn by chance in round 1 and after a tie."""

from __future__ import annotations

from typing import Sequence

from ..leading import egyptian_next_leader
from ..rulesets import RuleSet, check_seats, check_teams
from ..scoring import egyptian_round_points, highest_past_target, round_to_five
from ..state import Deal

FAMILY = "all-fives"
SEATS = (2, 3, 4)
TARGETS = (100, 150, 200, 250)
DEFAULT_TARGET = 250


def rule_set(seats: int | None = None, teams: bool | None = None) -> RuleSet:
    seats = check_seats(FAMILY, seats, SEATS, 4)
    return RuleSet(
        family=FAMILY,
        variant="",
        seats=seats,
        hand_size=7,
        draws=True,
        teams=check_teams(FAMILY, seats, teams),
        default_target=DEFAULT_TARGET,
        targets=TARGETS,
        opening_leader=drawn_leader,
        score_round=round_points,
        next_leader=egyptian_next_leader,
        match_end=highest_past_target,
        chance=True,
        four_ends=True,
    )


def drawn_leader(deal: Deal) -> tuple[int, int]:
    """Round 1 and the round after a tie: the seat drawn by chance, with any tile."""
    return deal.chance, -1


def round_points(rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int | None, int]:
    """As Egyptian (a domino wins for the side that went out, blocked for the strictly
    lowest side, the winner scoring every opponent's pips), rounded to the nearest five."""
    winner, points = egyptian_round_points(rules, reason, last_seat, hands)
    return winner, round_to_five(points)
