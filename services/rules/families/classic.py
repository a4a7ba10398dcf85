"""The classic draw game (docs/rules.md §4): solo for 2 to 4, 0-0 never leads, a hand of
only 0-0 counts 25, and a blocked round pays the others' total minus the winner's own."""

from __future__ import annotations

from typing import Sequence

from ..errors import BadOptions
from ..leading import BY_SUM_THEN_HIGH, first_held
from ..scoring import highest_past_target, lowest_side
from ..state import Deal
from ..tiles import DOUBLES, pip_total, tile
from ..facets import BotTuning, LeadWords, Phrases, Shape
from ..family import PlainFamily, RuleSet

ZERO_ZERO = tile(0, 0)
LONE_ZERO_ZERO = 25
# Round-1 leads, best first: the doubles 6-6 down to 1-1 (never 0-0), then the heaviest tiles.
OPENING_ORDER = tuple(reversed(DOUBLES[1:])) + tuple(t for t in BY_SUM_THEN_HIGH if t != ZERO_ZERO)


def hand_value(hand: int) -> int:
    """A hand's pips, except that a hand of only 0-0 counts 25."""
    return LONE_ZERO_ZERO if hand == 1 << ZERO_ZERO else pip_total(hand)


class Classic(PlainFamily):
    name = "classic"
    phrases = Phrases(title="Classic", lead_rule="the holder of the highest double but 0-0 leads",
                      scoring="the winner scores the others' pips (a lone 0-0 counts 25); blocked: minus its own")
    targets = (100, 200, 300, 400, 500)
    offered_shapes = (Shape(2, False), Shape(3, False), Shape(4, False))
    usual_shape = Shape(4, False)
    usual_target = 100
    lone_zero_zero = LONE_ZERO_ZERO
    lead_words = {"": LeadWords(
        by_double="the highest double dealt (0-0 never leads)",
        by_other_tile="the heaviest tile dealt, as no double but perhaps 0-0 was, and 0-0 never leads")}
    bot_tuning = BotTuning(greedy_share=0.8)

    def configure_shape(self, seats: int | None, teams: bool | None) -> RuleSet:
        seats = self.seats_chosen("", seats)
        if teams:
            raise BadOptions("classic is played solo")
        return self.rule_set("", seats, 7 if seats == 2 else 5, True, False, self.usual_target,
                             barred=1 << ZERO_ZERO)

    match_end = staticmethod(highest_past_target)

    def opening_leader(self, rules: RuleSet, deal: Deal) -> tuple[int, int]:
        """The highest double but 0-0 leads with it; with none, the heaviest tile (6-3 before 5-4)."""
        lead = first_held(deal.hands, OPENING_ORDER)
        if lead is None:
            raise ValueError("no seat holds a tile that may lead")
        return lead

    def score_round(self, rules: RuleSet, reason: str, last_seat: int,
                    hands: Sequence[int]) -> tuple[int | None, int]:
        """Domino: the winner scores every other hand. Blocked: the strictly lowest hand scores
        the others' total minus its own (once); a shared lowest is a tie."""
        values = [hand_value(h) for h in hands]
        if reason == "domino":
            return last_seat, sum(values)
        winner = lowest_side(values)
        if winner is None:
            return None, 0
        return winner, sum(values) - 2 * values[winner]

    def next_leader(self, rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                    hands: Sequence[int]) -> int | None:
        """The round's winner leads (any tile but 0-0); after a tie, as round 1."""
        return winner

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...]:
        return OPENING_ORDER


FAMILY = Classic()
