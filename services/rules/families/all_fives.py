"""All Fives, "straight dominoes" (docs/rules.md §2): points during play for open ends that
add up to a multiple of five, the spinner (``spinner.py``), round-end points rounded to
the nearest five, and a leader drawn by chance in round 1 and after a tie."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..leading import egyptian_next_leader
from ..rulesets import RuleSet, check_seats, check_teams
from ..scoring import egyptian_round_points, highest_past_target, round_to_five
from ..state import Deal, Round, RoundResult
from .family import Phrases, PlainFamily, RoundColumn, Shape

NAME = "all-fives"
SEATS = (2, 3, 4)
TARGETS = (100, 150, 200, 250)
DEFAULT_TARGET = 250


class AllFivesRound(NamedTuple):
    """All Fives' part of a round's result (``RoundResult.extras``)."""

    play_points: tuple[tuple[int, int, int], ...]  # (action index, side, points) of each scoring play


def rule_set(seats: int | None = None, teams: bool | None = None) -> RuleSet:
    seats = check_seats(NAME, seats, SEATS, 4)
    return RuleSet(
        family=NAME,
        variant="",
        seats=seats,
        hand_size=7,
        draws=True,
        teams=check_teams(NAME, seats, teams),
        default_target=DEFAULT_TARGET,
        targets=TARGETS,
        opening_leader=drawn_leader,
        score_round=round_points,
        next_leader=egyptian_next_leader,
        match_end=highest_past_target,
        chance=True,
        four_ends=True,
        round_extras=scored_in_play,
    )


def drawn_leader(deal: Deal) -> tuple[int, int]:
    """Round 1 and the round after a tie: the seat drawn by chance, with any tile."""
    return deal.chance, -1


def round_points(rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int | None, int]:
    """As Egyptian (a domino wins for the side that went out, blocked for the strictly
    lowest side, the winner scoring every opponent's pips), rounded to the nearest five."""
    winner, points = egyptian_round_points(rules, reason, last_seat, hands)
    return winner, round_to_five(points)


def scored_in_play(rnd: Round, written: tuple[int, ...], accounts: None) -> AllFivesRound:
    """The round's points during play, kept in its result."""
    return AllFivesRound(rnd.play_points)


def of_round(result: RoundResult) -> AllFivesRound:
    extras = result.extras
    assert isinstance(extras, AllFivesRound), extras
    return extras


class AllFives(PlainFamily):
    name = NAME
    phrases = Phrases(title="All Fives", lead_rule="a seat drawn by chance leads",
                      scoring="open ends adding up to a multiple of 5 score during play; round-end pips rounded to 5")
    targets = TARGETS
    four_ends = True
    offered_shapes = (Shape(2, False), Shape(3, False), Shape(4, False), Shape(4, True))
    usual_shape = Shape(4, False)
    usual_target = DEFAULT_TARGET
    points_rounded_to = 5  # a round's end points
    make = staticmethod(rule_set)
    round_columns = (RoundColumn("play_points", "in play", 7, lambda r: [list(p) for p in of_round(r).play_points],
                                 lambda r: str(sum(p for _, _, p in of_round(r).play_points)), right=True),)

    round_won_by = "strictly the most points in the round (points during play and at its end)"

    def greedy_key(self, view, play_points):
        """The most points now, then §1.6's order (the heaviest tile, the higher pip, the first end)."""
        from ..autoplay import timeout_order

        return lambda move: (play_points(move) if move.kind == "play" else 0, timeout_order(move))


FAMILY = AllFives()
