"""The classic draw game (docs/rules.md §4): solo for 2 to 4, 0-0 never leads, a hand of
only 0-0 counts 25, and a blocked round pays the others' total minus the winner's own."""

from __future__ import annotations

from typing import Sequence

from ..leading import BY_SUM_THEN_HIGH, first_held
from ..rulesets import RuleSet, check_seats
from ..errors import BadOptions
from ..scoring import highest_past_target, lowest_side
from ..state import Deal
from ..tiles import DOUBLES, pip_total, tile
from .family import Family, Phrases, PlainFamily, Shape

NAME = "classic"
SEATS = (2, 3, 4)
TARGETS = (100, 200, 300, 400, 500)
DEFAULT_TARGET = 100
ZERO_ZERO = tile(0, 0)
LONE_ZERO_ZERO = 25
# Round-1 leads, best first: the doubles 6-6 down to 1-1 (never 0-0), then the heaviest tiles.
OPENING_ORDER = tuple(reversed(DOUBLES[1:])) + tuple(t for t in BY_SUM_THEN_HIGH if t != ZERO_ZERO)


def rule_set(seats: int | None = None, teams: bool | None = None) -> RuleSet:
    seats = check_seats(NAME, seats, SEATS, 4)
    if teams:
        raise BadOptions("classic is played solo")
    return RuleSet(
        family=NAME,
        variant="",
        seats=seats,
        hand_size=7 if seats == 2 else 5,
        draws=True,
        teams=False,
        default_target=DEFAULT_TARGET,
        targets=TARGETS,
        opening_leader=opening_leader,
        score_round=round_points,
        next_leader=winner_leads,
        match_end=highest_past_target,
        barred=1 << ZERO_ZERO,
    )


def opening_leader(deal: Deal) -> tuple[int, int]:
    """The highest double but 0-0 leads with it; with none, the heaviest tile (6-3 before 5-4)."""
    lead = first_held(deal.hands, OPENING_ORDER)
    if lead is None:
        raise ValueError("no seat holds a tile that may lead")
    return lead


def winner_leads(rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                 hands: Sequence[int]) -> int | None:
    """The round's winner leads (any tile but 0-0); after a tie, as round 1."""
    return winner


def hand_value(hand: int) -> int:
    """A hand's pips, except that a hand of only 0-0 counts 25."""
    return LONE_ZERO_ZERO if hand == 1 << ZERO_ZERO else pip_total(hand)


def round_points(rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int | None, int]:
    """Domino: the winner scores every other hand. Blocked: the strictly lowest hand scores
    the others' total minus its own (once); a shared lowest is a tie."""
    values = [hand_value(h) for h in hands]
    if reason == "domino":
        return last_seat, sum(values)
    winner = lowest_side(values)
    if winner is None:
        return None, 0
    return winner, sum(values) - 2 * values[winner]


class Classic(PlainFamily):
    name = NAME
    phrases = Phrases(title="Classic", lead_rule="the holder of the highest double but 0-0 leads",
                      scoring="the winner scores the others' pips (a lone 0-0 counts 25); blocked: minus its own")
    targets = TARGETS
    offered_shapes = (Shape(2, False), Shape(3, False), Shape(4, False))
    usual_shape = Shape(4, False)
    usual_target = DEFAULT_TARGET
    lone_zero_zero = LONE_ZERO_ZERO
    lead_words = {"": Family.LeadWords(
        by_double="the highest double dealt (0-0 never leads)",
        by_other_tile="the heaviest tile dealt, as no double but perhaps 0-0 was, and 0-0 never leads")}
    make = staticmethod(rule_set)

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...]:
        return OPENING_ORDER


FAMILY = Classic()
