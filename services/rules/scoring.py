"""Points for a finished round and the end of a match: the Egyptian rules (docs/rules.md
§1.5) and the pieces other families share (side totals, rounding to five, "the highest
total past the target wins")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from .tiles import pip_total

if TYPE_CHECKING:
    from .family import RuleSet


def side_totals(rules: RuleSet, hands: Sequence[int], value: Callable[[int], int] = pip_total) -> list[int]:
    """Each side's total of ``value`` over its seats' hands (a seat is its own side solo)."""
    totals = [0] * rules.sides
    for seat, hand in enumerate(hands):
        totals[rules.side_of(seat)] += value(hand)
    return totals


def lowest_side(totals: list[int]) -> int | None:
    """The side with the strictly lowest total; None when two or more share it (a tie)."""
    lowest = min(totals)
    return None if totals.count(lowest) > 1 else totals.index(lowest)


def egyptian_round_points(rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int | None, int]:
    """(winning side or None for a tie, points).

    A domino wins for the side that went out; a blocked round for the side with the lowest
    pip total, shared lowest being a tie. Solo winners score every other hand; teams score
    only the other team's hands, never the partner's. block-3's set-aside tile is not in
    any hand, so it counts for nobody.
    """
    side_pips = side_totals(rules, hands)
    winner: int | None
    if reason == "domino":
        winner = rules.side_of(last_seat)
    else:
        winner = lowest_side(side_pips)
        if winner is None:
            return None, 0
    return winner, sum(side_pips) - side_pips[winner]


def round_to(points: int, step: int) -> int:
    """To the nearest multiple of ``step``, a remainder of half or less rounding down (by 5:
    1-2 down, 3-4 up, 7 -> 5, 8 -> 10)."""
    return (points + (step - 1) // 2) // step * step


def highest_past_target(rules: RuleSet, scores: Sequence[int], target: int) -> tuple[int | None, bool, tuple[int, ...]]:
    """(winner, over, goats): once a side has reached the target, the highest total wins;
    equal highest totals play another round. Egyptian scores one side a round, so there
    this is simply "the side that reaches the target wins"."""
    top = max(scores)
    if top < target or scores.count(top) > 1:
        return None, False, ()
    return scores.index(top), True, ()
