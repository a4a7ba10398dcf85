"""All Fives, "straight dominoes" (docs/rules.md §2): points during play for open ends that
add up to a multiple of five, the spinner (``spinner.py``), round-end points rounded to
the nearest five, and a leader drawn by chance in round 1 and after a tie."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..autoplay import timeout_order
from ..chance import drawn_leader
from ..leading import egyptian_next_leader
from ..scoring import egyptian_round_points, highest_past_target, round_to
from ..state import Round, RoundResult
from ..facets import BotTuning, Phrases, RoundColumn, Shape
from ..family import PlainFamily, RuleSet, check_teams


class AllFivesRound(NamedTuple):
    """All Fives' part of a round's result (``RoundResult.extras``)."""

    play_points: tuple[tuple[int, int, int], ...]  # (action index, side, points) of each scoring play


def scored_in_play(rnd: Round, written: tuple[int, ...], accounts: None) -> AllFivesRound:
    """The round's points during play, kept in its result."""
    return AllFivesRound(rnd.play_points)


def of_round(result: RoundResult) -> AllFivesRound:
    extras = result.extras
    assert isinstance(extras, AllFivesRound), extras
    return extras


class AllFives(PlainFamily):
    name = "all-fives"
    phrases = Phrases(title="All Fives", lead_rule="a seat drawn by chance leads",
                      scoring="open ends adding up to a multiple of 5 score during play; round-end pips rounded to 5")
    targets = (100, 150, 200, 250)
    four_ends = True
    offered_shapes = (Shape(2, False), Shape(3, False), Shape(4, False), Shape(4, True))
    usual_shape = Shape(4, False)
    usual_target = 250
    points_rounded_to = 5  # a round's end points
    round_columns = (RoundColumn("play_points", "in play", 7, lambda r: [list(p) for p in of_round(r).play_points],
                                 lambda r: str(sum(p for _, _, p in of_round(r).play_points)), right=True),)

    round_won_by = "strictly the most points in the round (points during play and at its end)"
    # Its rollouts are the longest and dearest (four ends, scoring): early decisions are capped by work.
    bot_tuning = BotTuning(greedy_share=0.5, max_work=10000)

    def configure_shape(self, seats: int | None, teams: bool | None) -> RuleSet:
        seats = self.seats_chosen("", seats)
        return self.rule_set("", seats, 7, True, check_teams(self.name, seats, teams), self.usual_target)

    opening_leader = staticmethod(drawn_leader)
    next_leader = staticmethod(egyptian_next_leader)  # the winner leads (docs/rules.md §1.4)
    match_end = staticmethod(highest_past_target)

    def score_round(self, rules: RuleSet, reason: str, last_seat: int,
                    hands: Sequence[int]) -> tuple[int | None, int]:
        """As Egyptian (a domino wins for the side that went out, blocked for the strictly
        lowest side, the winner scoring every opponent's pips), rounded to ``points_rounded_to``."""
        winner, points = egyptian_round_points(rules, reason, last_seat, hands)
        return winner, round_to(points, self.points_rounded_to)

    def round_extras(self, rules: RuleSet):
        return scored_in_play

    def greedy_key(self, view, play_points):
        """The most points now, then §1.6's order (the heaviest tile, the higher pip, the first end)."""
        return lambda move: (play_points(move) if move.kind == "play" else 0, timeout_order(move))


FAMILY = AllFives()
