"""What the server does for a seat whose turn timer ran out (RULES.md §1.6)."""

from __future__ import annotations

from .moves import LEFT, Move, legal_moves
from .tiles import HIGH, PIPS


def heaviest_first(move: Move) -> tuple:
    """The order §1.6 plays in: a play before anything else; the highest pip sum; ties by
    the higher pip, then the left end."""
    return (move.kind == "play", PIPS[move.tile], HIGH[move.tile], move.end in (LEFT, None))


def timeout_move(rnd) -> Move:
    """Draw while the seat must; else the fitting tile of highest pip sum, ties by the
    higher pip, then the left end; else the forced pass."""
    moves = legal_moves(rnd)
    if not moves:
        raise ValueError("the round has ended")
    return max(moves, key=heaviest_first)
