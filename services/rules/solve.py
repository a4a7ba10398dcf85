"""The exact value of a round with every hand (and the boneyard's order) known: alpha-beta
over the engine's one step of a move (docs/rules.md, "The line" and "A turn").

A bot that samples the hidden tiles (docs/bots.md, the strong bot) can, once few tiles are
left, solve each sampled deal exactly instead of playing it out with a rollout policy. The
seats in ``ours`` pick the move that makes the round's value most, the others the one that
makes it least (two sides, or every other seat taken as one side in a solo game); nothing
is random once the deal is fixed: a seat with no fitting tile draws the boneyard's next
tile, or passes when it is empty, as the rules force. What a finished round is worth is the
caller's ``value`` (each family scores its own way), so this module knows no scoring and
imports nothing but the step.

Compiled with mypyc together with ``step.py`` (setup.py): a node is a ``Table`` copied into
a buffer of its depth and moved by ``step.play`` / ``draw`` / ``pass_turn``, so a search
allocates little but the history entries. ``tests/unit/test_endgame.py`` checks it against
a plain minimax over ``legal_moves`` and ``turns.step``.
"""

from __future__ import annotations

from typing import Callable, Final

from .playout import BIT_INDEX, DRAWN, HEAVY_BITS, MOVES, OPENINGS, PASSED
from .step import FIT, Table, copy_table, draw, pass_turn, play

INF: Final = 1e18


class Solver:
    """Solves positions with one ``value`` and one maximizing set of seats, ``ours`` (a mask);
    ``nodes`` counts the positions visited, for budgets and benchmarks. With ``limit`` >= 0 it
    gives up once it has visited more than ``limit`` positions: ``stopped`` is then True and
    every value it returned since is meaningless (a search's size is hard to foresee: two
    seats with ten tiles each make a far larger tree than four with five).

    No table of positions seen: on a line the same tiles played in another order seldom
    leave the same ends, and building a key for every position cost more than the
    positions it saved (docs/bots.md, "Strong against a searching peer")."""

    def __init__(self, value: Callable[[Table], float], ours: int, limit: int = -1) -> None:
        self.value = value
        self.ours = ours
        self.limit = limit
        self.stopped = False
        self.nodes = 0
        self.buffers: list[Table] = []

    def solve(self, rnd: Table, alpha: float = -INF, beta: float = INF) -> float:
        """The value of ``rnd`` (not changed) with best play by all: exact when it lies strictly
        between ``alpha`` and ``beta``, else only a bound on the side it fell."""
        return self._search(rnd, alpha, beta, 0)

    def _buffer(self, depth: int) -> Table:
        buffers = self.buffers
        while len(buffers) <= depth:
            buffers.append(Table([], (), 0, -1, 0))
        return buffers[depth]

    def _search(self, t: Table, alpha: float, beta: float, depth: int) -> float:
        self.nodes += 1
        if self.limit >= 0 and self.nodes > self.limit:
            self.stopped = True
        if self.stopped:
            return 0.0
        if t.outcome is not None:
            return self.value(t)
        child = self._buffer(depth)
        seat = t.turn
        hand = t.hands[seat]
        maximizing = (self.ours >> seat) & 1 == 1
        best = -INF if maximizing else INF
        if t.left < 0:
            choice = (1 << t.lead) if t.lead >= 0 else hand & ~t.barred
            for b in HEAVY_BITS:
                if choice & b:
                    tile = BIT_INDEX[b % 37]
                    copy_table(t, child)
                    play(child, tile, -1, OPENINGS[tile])
                    v = self._search(child, alpha, beta, depth + 1)
                    if maximizing:
                        if v > best:
                            best = v
                        if best > alpha:
                            alpha = best
                    else:
                        if v < best:
                            best = v
                        if best < beta:
                            beta = best
                    if alpha >= beta:
                        break
            return best
        left = t.left
        right = t.right
        fl = hand & FIT[left]
        fr = hand & FIT[right]
        fu = fd = 0
        four = t.up >= 0
        if four:
            fu = hand & FIT[t.up]
            fd = hand & FIT[t.down]
        elif left == right and not t.four_ends:
            fr = 0  # either end gives the same line (with a spinner the ends' counts may differ)
        fit = fl | fr | fu | fd
        if not fit:
            copy_table(t, child)
            if child.drawn < len(child.boneyard):
                draw(child, DRAWN)
            else:
                pass_turn(child, PASSED)
            return self._search(child, alpha, beta, depth + 1)
        for b in HEAVY_BITS:
            if not fit & b:
                continue
            tile = BIT_INDEX[b % 37]
            for end in range(4):
                if end == 0:
                    on = fl & b
                elif end == 1:
                    on = fr & b
                elif end == 2:
                    on = fu & b
                else:
                    on = fd & b
                if not on:
                    continue
                copy_table(t, child)
                play(child, tile, end, MOVES[end][tile])
                v = self._search(child, alpha, beta, depth + 1)
                if maximizing:
                    if v > best:
                        best = v
                    if best > alpha:
                        alpha = best
                else:
                    if v < best:
                        best = v
                    if best < beta:
                        beta = best
                if alpha >= beta:
                    return best
        return best
