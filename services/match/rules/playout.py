"""Rounds played out with uniformly random legal moves, fast: the bots' rollouts and the
engine's benchmark.

``turns.step`` is the specification; this is the same transition with the round held in
local variables for a whole playout instead of attributes for each move, which makes a
random round several times faster. ``tests/unit/test_playout.py`` checks that, fed the same
random numbers, it ends every round exactly where ``legal_moves`` + ``step`` do.
"""

from __future__ import annotations

from typing import Callable

from .moves import _PLAYS_BY_FIT, DRAW, PASS, Move, _plays_for_fit, legal_moves
from .state import Round
from .tiles import MATCHES, OTHER_END
from .turns import step


def random_playout(rnd: Round, rand: Callable[[], float]) -> None:
    """Finish ``rnd`` in place; each turn takes ``legal_moves(rnd)[int(rand() * n)]``."""
    if rnd.outcome is None and rnd.left < 0:
        opening = legal_moves(rnd)
        step(rnd, opening[int(rand() * len(opening))])
    if rnd.outcome is not None:
        return
    hands = rnd.hands
    seats = len(hands)
    boneyard = rnd.boneyard
    undrawn = len(boneyard)
    drawn = rnd.drawn
    held = rnd.held
    left = rnd.left
    right = rnd.right
    turn = rnd.turn
    history: object = rnd.history
    memo = _PLAYS_BY_FIT
    outcome: str | None = None
    while outcome is None:
        hand = hands[turn]
        key = (hand & MATCHES[left]) << 28 | hand & MATCHES[right]
        moves: tuple[Move, ...] | None = memo.get(key)
        if moves is None:
            moves = _plays_for_fit(key)
        if moves:
            move = moves[int(rand() * len(moves))]
            t = move[1]
            if move[2]:
                right = OTHER_END[t][right]
            else:
                left = OTHER_END[t][left]
            bit = 1 << t
            hands[turn] = hand ^ bit
            held ^= bit
            history = (history, turn, move)
            if hand == bit:
                outcome = "domino"
            elif drawn == undrawn and not held & (MATCHES[left] | MATCHES[right]):
                outcome = "blocked"
            turn = turn + 1 if turn + 1 < seats else 0
        elif drawn < undrawn:
            rand()
            bit = 1 << boneyard[drawn]
            hands[turn] = hand | bit
            held |= bit
            drawn += 1
            history = (history, turn, DRAW)
            if drawn == undrawn and not held & (MATCHES[left] | MATCHES[right]):
                outcome = "blocked"
        else:
            rand()
            history = (history, turn, PASS)
            turn = turn + 1 if turn + 1 < seats else 0
    rnd.drawn = drawn
    rnd.held = held
    rnd.left = left
    rnd.right = right
    rnd.turn = turn
    rnd.history = history
    rnd.outcome = outcome
