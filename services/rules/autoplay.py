"""What the server does for a seat whose turn timer ran out (docs/rules.md §1.6), in every family."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .moves import Move, legal_moves
from .tiles import HIGH, PIPS

if TYPE_CHECKING:
    from .state import Round


def timeout_order(move: Move) -> tuple:
    """The sort key of the order §1.6 plays in (``max`` takes the move it puts first): a
    play before anything else; the highest pip sum; ties by the higher pip, then the end in
    the order left, right, up, down."""
    return (move.kind == "play", PIPS[move.tile], HIGH[move.tile], -(move.end or 0))


def timeout_move(rnd: Round) -> Move:
    """Draw while the seat must; else the fitting tile of highest pip sum, ties by the
    higher pip, then the first end of left, right, up, down; else the forced pass."""
    moves = legal_moves(rnd)
    if not moves:
        raise ValueError("the round has ended")
    return max(moves, key=timeout_order)
