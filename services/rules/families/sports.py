"""Sports domino (docs/rules.md §5): two pairs, no boneyard, the winning pair scores every
hand's pips, a leader drawn by chance in round 1 and after a tie, and a per-move timer."""

from __future__ import annotations

from typing import Sequence

from ..errors import BadOptions
from ..chance import drawn_leader
from ..leading import egyptian_next_leader
from ..moves import legal_moves
from ..scoring import highest_past_target, lowest_side, side_totals
from ..state import Round
from ..turns import take_turn
from ..facets import BotTuning, Phrases, Shape
from ..family import PlainFamily, RuleSet

ONE_PLAY_SECONDS = 5
SEVERAL_PLAYS_SECONDS = 20
BLOCKING_PLAY_SECONDS = 60


def move_seconds(rnd: Round) -> int:
    """The seat to act's time for its move: 60 s when one of its plays would block the round,
    else 5 s for a single play and 20 s for several (a tile that fits two ends showing the
    same number is one play); 0 when it has no play (it draws or passes at once)."""
    plays = [m for m in legal_moves(rnd) if m.kind == "play"]
    if not plays:
        return 0
    if any(take_turn(rnd, move).outcome == "blocked" for move in plays):
        return BLOCKING_PLAY_SECONDS
    distinct = {(m.tile, _end_number(rnd, m.end)) for m in plays}
    return ONE_PLAY_SECONDS if len(distinct) == 1 else SEVERAL_PLAYS_SECONDS


def _end_number(rnd: Round, end: int | None) -> int:
    return -1 if end is None else (rnd.left, rnd.right)[end]


class Sports(PlainFamily):
    name = "sports"
    phrases = Phrases(title="Sports", lead_rule="a seat drawn by chance leads",
                      scoring="the pair that goes out scores the pips left in all four hands")
    targets = (100, 150, 200, 250)
    offered_shapes = (Shape(4, True),)
    usual_target = 200
    move_seconds = (ONE_PLAY_SECONDS, SEVERAL_PLAYS_SECONDS, BLOCKING_PLAY_SECONDS)
    bot_tuning = BotTuning(greedy_share=0.5)

    def configure_shape(self, seats: int | None, teams: bool | None) -> RuleSet:
        seats = self.seats_chosen("", seats)
        if teams is False:
            raise BadOptions("sports is played by two pairs (teams)")
        return self.rule_set("", seats, 7, False, True, self.usual_target)

    opening_leader = staticmethod(drawn_leader)
    next_leader = staticmethod(egyptian_next_leader)  # the winner leads (docs/rules.md §1.4)
    match_end = staticmethod(highest_past_target)

    def score_round(self, rules: RuleSet, reason: str, last_seat: int,
                    hands: Sequence[int]) -> tuple[int | None, int]:
        """The pair that went out (blocked: the pair with strictly fewer pips) scores the pips
        left in all four hands, its own partner's included; equal pairs tie."""
        pairs = side_totals(rules, hands)
        winner = rules.side_of(last_seat) if reason == "domino" else lowest_side(pairs)
        if winner is None:
            return None, 0
        return winner, sum(pairs)

    def move_timer(self, rules: RuleSet):
        return move_seconds


FAMILY = Sports()
