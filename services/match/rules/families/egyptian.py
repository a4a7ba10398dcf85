"""The Egyptian family (docs/rules.md §1): draw-2, block-3 and block-4.

Its leader rules live in ``leading`` and its scoring in ``scoring``, where the other
families reuse them.
"""

from __future__ import annotations

from ..errors import BadOptions, shown
from ..leading import egyptian_next_leader, highest_double_or_tile
from ..rulesets import EGYPTIAN_VARIANTS, TARGETS, RuleSet
from ..scoring import egyptian_round_points, highest_past_target
from ..state import Deal

# variant -> (seats, tiles each, boneyard, default target)
SHAPES = {"draw-2": (2, 7, True, 71), "block-3": (3, 9, False, 101), "block-4": (4, 7, False, 101)}


def rule_set(variant: str, teams: bool | None = None) -> RuleSet:
    """``teams`` applies to block-4 only (default: teams)."""
    if variant not in SHAPES:
        raise BadOptions(f"unknown egyptian variant {shown(variant)}; choose one of {', '.join(EGYPTIAN_VARIANTS)}")
    seats, hand_size, draws, default_target = SHAPES[variant]
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
        opening_leader=opening_leader,
        score_round=egyptian_round_points,
        next_leader=egyptian_next_leader,
        match_end=highest_past_target,
    )


def opening_leader(deal: Deal) -> tuple[int, int]:
    return highest_double_or_tile(deal.hands)
