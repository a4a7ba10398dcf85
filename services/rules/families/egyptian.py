"""The Egyptian family (docs/rules.md §1): draw-2, block-3 and block-4.

Its leader rules live in ``leading`` and its scoring in ``scoring``, where the other
families reuse them.
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import BadOptions, shown
from ..leading import BY_SUM_THEN_HIGH, egyptian_next_leader, highest_double_or_tile
from ..scoring import egyptian_round_points, highest_past_target
from ..state import Deal
from ..tiles import DOUBLES
from ..facets import BotTuning, Phrases, RecordShape, Shape
from ..family import Family, RuleSet


class Variant(NamedTuple):
    seats: int
    hand_size: int
    draws: bool  # a boneyard to draw from
    default_target: int


# In the order a screen lists them; the first is a host's who names none.
VARIANTS = {"draw-2": Variant(2, 7, True, 71), "block-3": Variant(3, 9, False, 101),
            "block-4": Variant(4, 7, False, 101)}
TEAMS_VARIANT = "block-4"  # the one played in teams (its default), or solo
# Round 1 (§1.4): the highest double, else the heaviest tile (6-3 before 5-4).
ROUND_ONE_ORDER = tuple(reversed(DOUBLES)) + BY_SUM_THEN_HIGH


class Egyptian(Family):
    name = "egyptian"
    phrases = Phrases(title="Egyptian", scoring="the side that goes out (blocked: the lowest) scores the others' pips")
    variants = tuple(VARIANTS)
    targets = (51, 71, 101, 151)
    record = RecordShape(variant=True, teams_required=True, every_boneyard=False, leaders=False)
    variants_fix_seats = True
    bots_variant = "block-4"
    # Solves its last 20 tiles exactly (docs/bots.md, "Strong against a searching peer") and reads
    # the others' plays with the model of play ("A model of play"): weighing its deals comes
    # before the search, so its wall-clock safety net is 10 ms shorter.
    bot_tuning = BotTuning(play_model=True, exact_tiles=20, deadline=0.08)

    def shapes(self, variant: str) -> tuple[Shape, ...]:
        if variant == TEAMS_VARIANT:
            return (Shape(4, True), Shape(4, False))
        return (Shape(VARIANTS[variant].seats, False),)

    def default_target(self, variant: str) -> int:
        return VARIANTS[variant].default_target

    def configure(self, variant: str | None, seats: int | None, teams: bool | None,
                  options: dict | None) -> RuleSet:
        """``teams`` applies to block-4 only (default: teams)."""
        if options:
            raise BadOptions("egyptian has no options")
        variant = variant or ""
        shape = VARIANTS.get(variant)
        if shape is None:
            raise BadOptions(f"unknown egyptian variant {shown(variant)}; choose one of {', '.join(VARIANTS)}")
        if teams is None:
            teams = variant == TEAMS_VARIANT
        if teams and variant != TEAMS_VARIANT:
            raise BadOptions(f"{variant} is played solo; teams need four players (block-4)")
        if seats is not None and seats != shape.seats:
            raise BadOptions(f"{variant} is played by {shape.seats}, not {seats}")
        return self.rule_set(variant, shape.seats, shape.hand_size, shape.draws, teams, shape.default_target)

    # Its rules of §1.4 and §1.5, which the other families reuse, live in leading and scoring.
    score_round = staticmethod(egyptian_round_points)
    next_leader = staticmethod(egyptian_next_leader)
    match_end = staticmethod(highest_past_target)

    def opening_leader(self, rules: RuleSet, deal: Deal) -> tuple[int, int]:
        return highest_double_or_tile(deal.hands)

    def rule_set_name(self, rules: RuleSet) -> str:
        return rules.variant

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...]:
        return ROUND_ONE_ORDER


FAMILY = Egyptian()
