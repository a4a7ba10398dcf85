"""Rounds played out with uniformly random legal moves, fast: the bots' rollouts and the
engine's benchmark.

``turns.step`` is the specification; this is the same transition with the round held in
local variables for a whole playout instead of attributes for each move, which makes a
random round several times faster. ``tests/unit/test_playout.py`` checks that, fed the same
random numbers, it ends every round exactly where ``legal_moves`` + ``step`` do.
"""

from __future__ import annotations

from typing import Callable, cast

from .moves import _PLAYS_BY_FIT, DRAW, PASS, PLAY_ON, Move, _plays_for_fit, legal_moves
from .spinner import SpinnerRound
from .state import Round
from .tiles import BIT_TILE, HIGH, LOW, MATCHES, OTHER_END
from .turns import step


def random_playout(rnd: Round, rand: Callable[[], float]) -> None:
    """Finish ``rnd`` in place; each turn takes ``legal_moves(rnd)[int(rand() * n)]``."""
    if rnd.four_ends:
        spinner_playout(cast(SpinnerRound, rnd), rand)
        return
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


def spinner_playout(rnd: SpinnerRound, rand: Callable[[], float]) -> None:
    """``random_playout`` for a line with a spinner (All Fives): ``SpinnerRound.step`` held
    in local variables, the moves counted in ``legal_moves`` order (left, right, up, down,
    each by ascending tile) so the same random numbers choose the same moves."""
    if rnd.outcome is None and rnd.left < 0:
        opening = rnd.legal_moves()
        rnd.step(opening[int(rand() * len(opening))])
    if rnd.outcome is not None:
        return
    hands = rnd.hands
    seats = len(hands)
    boneyard = rnd.boneyard
    undrawn = len(boneyard)
    drawn: int = rnd.drawn
    held: int = rnd.held
    left: int = rnd.left
    right: int = rnd.right
    up: int = rnd.up
    down: int = rnd.down
    spinner: int = rnd.spinner
    pending: int = rnd.pending
    values: tuple[int, int, int, int] = rnd.values
    lv: int = values[0]
    rv: int = values[1]
    uv: int = values[2]
    dv: int = values[3]
    total: int = rnd.total
    made: int = rnd.made
    play_points = rnd.play_points
    seat_side: tuple[int, ...] = rnd.seat_side
    turn: int = rnd.turn
    history: object = rnd.history
    outcome: str | None = None
    fit: int
    end: int
    number: int
    while outcome is None:
        hand: int = hands[turn]
        fl: int = hand & MATCHES[left]
        fr: int = hand & MATCHES[right]
        fu: int = 0
        fd: int = 0
        if up >= 0:
            fu = hand & MATCHES[up]
            fd = hand & MATCHES[down]
        cl: int = fl.bit_count()
        cr: int = fr.bit_count()
        cu: int = fu.bit_count()
        n: int = cl + cr + cu + fd.bit_count()
        if n:
            k: int = int(rand() * n)
            if k < cl:
                fit, end, number = fl, 0, left
            elif k < cl + cr:
                fit, end, number, k = fr, 1, right, k - cl
            elif k < cl + cr + cu:
                fit, end, number, k = fu, 2, up, k - cl - cr
            else:
                fit, end, number, k = fd, 3, down, k - cl - cr - cu
            while k:
                fit &= fit - 1
                k -= 1
            bit: int = fit & -fit
            t: int = BIT_TILE[bit]
            outer: int = OTHER_END[t][number]
            double: bool = LOW[t] == HIGH[t]
            value: int = outer * 2 if double else outer
            if end == 0:
                left = outer
                lv = value
            elif end == 1:
                right = outer
                rv = value
            elif end == 2:
                up = outer
                uv = value
            else:
                down = outer
                dv = value
            if end <= 1:
                if double and spinner < 0:
                    spinner = number
                    pending = 1 << end
                elif pending & 1 << end:
                    pending &= ~(1 << end)
                    if not pending:
                        up = down = spinner
            total = lv + rv + uv + dv
            hands[turn] = hand ^ bit
            held ^= bit
            if total and total % 5 == 0:
                play_points += ((made, seat_side[turn], total),)
            history = (history, turn, PLAY_ON[end][t])
            made += 1
            if hand == bit:
                outcome = "domino"
            elif drawn == undrawn and not held & _fitting(left, right, up, down):
                outcome = "blocked"
            turn = turn + 1 if turn + 1 < seats else 0
        elif drawn < undrawn:
            rand()
            bit = 1 << boneyard[drawn]
            hands[turn] = hand | bit
            held |= bit
            drawn += 1
            history = (history, turn, DRAW)
            made += 1
            if drawn == undrawn and not held & _fitting(left, right, up, down):
                outcome = "blocked"
        else:
            rand()
            history = (history, turn, PASS)
            made += 1
            turn = turn + 1 if turn + 1 < seats else 0
    rnd.drawn = drawn
    rnd.held = held
    rnd.left = left
    rnd.right = right
    rnd.up = up
    rnd.down = down
    rnd.spinner = spinner
    rnd.pending = pending
    rnd.values = (lv, rv, uv, dv)
    rnd.total = total
    rnd.made = made
    rnd.play_points = play_points
    rnd.turn = turn
    rnd.history = history
    rnd.outcome = outcome


def _fitting(left: int, right: int, up: int, down: int) -> int:
    fit = MATCHES[left] | MATCHES[right]
    if up >= 0:
        fit |= MATCHES[up] | MATCHES[down]
    return fit
