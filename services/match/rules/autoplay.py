"""What the server does for a seat whose turn timer ran out (docs/rules.md §1.6), in every family."""

from __future__ import annotations

from .moves import Move, legal_moves
from .tiles import HIGH, PIPS


def heaviest_first(move: Move) -> tuple:
    """The order §1.6 plays in: a play before anything else; the highest pip sum; ties by
    the higher pip, then the end in the order left, right, up, down."""
    return (move.kind == "play", PIPS[move.tile], HIGH[move.tile], -(move.end or 0))


def timeout_move(rnd) -> Move:
    """Draw while the seat must; else the fitting tile of highest pip sum, ties by the
    higher pip, then the first end of left, right, up, down; else the forced pass."""
    moves = legal_moves(rnd)
    if not moves:
        raise ValueError("the round has ended")
    return max(moves, key=heaviest_first)
