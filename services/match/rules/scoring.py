"""Points for a finished round (RULES.md §1.5)."""

from __future__ import annotations

from .tiles import pip_total


def egyptian_round_points(rules, reason: str, last_seat: int, hands) -> tuple[int | None, int]:
    """(winning side or None for a tie, points).

    A domino wins for the side that went out; a blocked round for the side with the lowest
    pip total, shared lowest being a tie. Solo winners score every other hand; teams score
    only the other team's hands, never the partner's. block-3's set-aside tile is not in
    any hand, so it counts for nobody.
    """
    side_pips = [0] * rules.sides
    for seat, hand in enumerate(hands):
        side_pips[rules.side_of(seat)] += pip_total(hand)
    if reason == "domino":
        winner = rules.side_of(last_seat)
    else:
        lowest = min(side_pips)
        if side_pips.count(lowest) > 1:
            return None, 0
        winner = side_pips.index(lowest)
    return winner, sum(side_pips) - side_pips[winner]
