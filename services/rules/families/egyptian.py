"""The Egyptian family (docs/rules.md §1): draw-2, block-3 and block-4.

Its leader rules live in ``leading`` and its scoring in ``scoring``, where the other
families reuse them.
"""

from __future__ import annotations

from ..errors import BadOptions, shown
from ..leading import BY_SUM_THEN_HIGH, egyptian_next_leader, highest_double_or_tile
from ..rulesets import EGYPTIAN_VARIANTS, TARGETS, RuleSet
from ..scoring import egyptian_round_points, highest_past_target
from ..state import Deal
from ..tiles import DOUBLES
from .family import Family, Phrases, RecordShape, Shape

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


class Egyptian(Family):
    name = "egyptian"
    phrases = Phrases(title="Egyptian", scoring="the side that goes out (blocked: the lowest) scores the others' pips")
    variants = EGYPTIAN_VARIANTS
    targets = TARGETS
    record = RecordShape(variant=True, teams_required=True, every_boneyard=False, leaders=False)

    def shapes(self, variant: str) -> tuple[Shape, ...]:
        seats = SHAPES[variant][0]
        return (Shape(4, True), Shape(4, False)) if variant == "block-4" else (Shape(seats, False),)

    def default_target(self, variant: str) -> int:
        return SHAPES[variant][3]

    def build(self, variant: str | None = None, seats: int | None = None, teams: bool | None = None,
              options: dict | None = None) -> RuleSet:
        if options:
            raise BadOptions("egyptian has no options")
        rules = rule_set(variant or "", teams)
        if seats is not None and seats != rules.seats:
            raise BadOptions(f"{rules.variant} is played by {rules.seats}, not {seats}")
        return rules

    def rule_set_name(self, rules: RuleSet) -> str:
        return rules.variant

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...]:
        return ROUND_ONE_ORDER

    variants_fix_seats = True
    bots_variant = "block-4"


# Round 1 (§1.4): the highest double, else the heaviest tile (6-3 before 5-4).
ROUND_ONE_ORDER = tuple(reversed(DOUBLES)) + BY_SUM_THEN_HIGH
FAMILY = Egyptian()
