"""What the server does for a seat whose turn timer ran out (RULES.md §1.6)."""

from __future__ import annotations

from .moves import LEFT, Move, legal_moves
from .tiles import HIGH, PIPS


def timeout_move(rnd) -> Move:
    """Draw while the seat must; else the fitting tile of highest pip sum, ties by the
    higher pip, then the left end; else the forced pass."""
    moves = legal_moves(rnd)
    if not moves:
        raise ValueError("the round has ended")
    return max(moves, key=lambda m: (m.kind == "play", PIPS[m.tile], HIGH[m.tile], m.end in (LEFT, None)))
