"""Who leads a round, and with which tile: the Egyptian rules (docs/rules.md §1.4), which
All Fives and Sports reuse after a won round, and the pieces the other families' round-1
rules are made of ("the first of these tiles that anyone holds").

Compiled with mypyc (setup.py), as every round's start asks it; as plain Python it runs unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from .tiles import DOUBLES, HIGH, PIPS, pip_total

if TYPE_CHECKING:
    from .family import RuleSet

# Every tile, best lead first: highest pip sum, equal sums by the higher pip.
_BY_SUM_THEN_HIGH = sorted(range(28), key=lambda t: (PIPS[t], HIGH[t]), reverse=True)
BY_SUM_THEN_HIGH = tuple(_BY_SUM_THEN_HIGH)
_DOUBLES_MASK = sum(1 << t for t in DOUBLES)


def first_held(hands: Sequence[int], order: Iterable[int]) -> tuple[int, int] | None:
    """(seat, tile) for the first tile of ``order`` that some hand holds; None if none does."""
    held = 0
    for hand in hands:
        held |= hand
    for t in order:
        if held >> t & 1:
            for seat, hand in enumerate(hands):
                if hand >> t & 1:
                    return seat, t
    return None


def highest_double_or_tile(hands: tuple[int, ...]) -> tuple[int, int]:
    """Round 1 (and after a tie): the highest double leads; with no double in any hand,
    the highest pip sum, equal sums broken by the higher pip (6-3 before 5-4)."""
    held = 0
    for hand in hands:
        held |= hand
    doubles = held & _DOUBLES_MASK
    if doubles:
        t = doubles.bit_length() - 1  # doubles' ids rise with their value
        for seat, hand in enumerate(hands):
            if hand >> t & 1:
                return seat, t
    for t in _BY_SUM_THEN_HIGH:
        for seat, hand in enumerate(hands):
            if hand >> t & 1:
                return seat, t
    raise ValueError("no seat holds a tile")


def egyptian_next_leader(rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                         hands: Sequence[int]) -> int | None:
    """The winner leads (any tile). Teams: after a domino the player who went out; after a
    blocked round the winning partner with fewer pips, equal pips the lower seat. A tie
    returns None: the next round is led as round 1 is."""
    if winner is None:
        return None
    if not rules.teams:
        return winner
    if reason == "domino":
        return last_seat
    return min(rules.seats_of(winner), key=lambda seat: (pip_total(hands[seat]), seat))
