"""Rounds played out to their end, fast: the engine's benchmark (uniformly random legal
moves) and the strong bot's rollouts (the timeout order of docs/rules.md §1.6, with noise).

Compiled with mypyc together with ``step.py`` (setup.py): each move is made by the one step
of every family (``step.play``, ``draw``, ``pass_turn``) on the round's native fields, so no
move is checked and none allocates but its history entry. ``tests/unit/test_playout.py`` and
``tests/unit/test_bots_rollout.py`` check that, fed the same random numbers, they end every
round exactly where ``legal_moves`` + ``turns.step`` do.
"""

from __future__ import annotations

from typing import Callable, Final

from .moves import DRAW, OPEN, PASS, PLAY_ON, Move
from .step import FIT, HIGHS, LOWS, OTHER, WEIGHT, Table, draw, pass_turn, play
from .tiles import HIGH, PIPS

MOVES: Final[tuple[tuple[Move, ...], ...]] = tuple(PLAY_ON)
OPENINGS: Final[tuple[Move, ...]] = tuple(OPEN)
DRAWN: Final = DRAW
PASSED: Final = PASS
# RANK[t]: tile t's place in the timeout order (pip sum, then the higher pip); BY_RANK[r]: its bit.
RANK: Final[tuple[int, ...]] = tuple(PIPS[t] * 8 + HIGH[t] for t in range(28))
_ORDER = sorted(range(28), key=lambda t: RANK[t], reverse=True)
HEAVY_BITS: Final[tuple[int, ...]] = tuple(1 << t for t in _ORDER)
# BIT_INDEX[(1 << t) % 37] == t: the powers of two below 2**36 differ modulo 37, and a
# modulo and a tuple index are native in compiled code where a dict lookup is not.
BIT_INDEX: Final[tuple[int, ...]] = tuple(next((t for t in range(28) if (1 << t) % 37 == r), -1) for r in range(37))


def bits(mask: int) -> int:
    """How many tiles ``mask`` holds (``int.bit_count`` is a Python method call to mypyc)."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def nth_tile(fit: int, k: int) -> int:
    """The ``k``-th lowest tile of the mask ``fit``."""
    while k:
        fit &= fit - 1
        k -= 1
    return BIT_INDEX[(fit & -fit) % 37]


def heaviest(fit: int) -> int:
    """The tile of ``fit`` that §1.6's order takes first: the highest pip sum, then the higher pip."""
    for b in HEAVY_BITS:
        if fit & b:
            return BIT_INDEX[b % 37]
    return -1


def in_play(rnd: Table) -> bool:
    """Whether the round goes on (a call, not ``rnd.outcome is None`` in place: mypy would
    narrow the field to None inside the loop and mypyc then check that the steps kept it so)."""
    return rnd.outcome is None


def random_playout(rnd: Table, rand: Callable[[], float]) -> None:
    """Finish ``rnd`` in place; each turn takes ``legal_moves(rnd)[int(rand() * n)]``: the
    plays on ``left``, ``right``, ``up``, ``down`` in turn, each by ascending tile."""
    if rnd.outcome is None and rnd.left < 0:
        if rnd.lead >= 0:
            t = rnd.lead
            rand()
        else:
            choice = rnd.hands[rnd.turn] & ~rnd.barred
            t = nth_tile(choice, int(rand() * bits(choice)))
        play(rnd, t, -1, OPENINGS[t])
    hands = rnd.hands
    while in_play(rnd):
        hand = hands[rnd.turn]
        fl = hand & FIT[rnd.left]
        fr = hand & FIT[rnd.right]
        cl = bits(fl)
        cr = bits(fr)
        n = cl + cr
        fu = fd = cu = 0
        if rnd.up >= 0:
            fu = hand & FIT[rnd.up]
            fd = hand & FIT[rnd.down]
            cu = bits(fu)
            n += cu + bits(fd)
        if n:
            k = int(rand() * n)
            if k < cl:
                end, fit = 0, fl
            elif k < cl + cr:
                end, fit, k = 1, fr, k - cl
            elif k < cl + cr + cu:
                end, fit, k = 2, fu, k - cl - cr
            else:
                end, fit, k = 3, fd, k - cl - cr - cu
            t = nth_tile(fit, k)
            play(rnd, t, end, MOVES[end][t])
        elif rnd.drawn < len(rnd.boneyard):
            rand()
            draw(rnd, DRAWN)
        else:
            rand()
            pass_turn(rnd, PASSED)


def timeout_playout(rnd: Table, rand: Callable[[], float], eps: float, keep_history: bool = True) -> None:
    """Finish ``rnd`` in place, each seat playing the timeout move of docs/rules.md §1.6 (the
    heaviest fitting tile on the first end it fits; in All Fives the play that scores most
    now first), or with probability ``eps``, when more than one tile fits, the
    ``int(rand() * tiles)``-th fitting tile on the first end it fits; it draws or passes
    when nothing fits. The round's first play is the lead or the heaviest tile (All Fives:
    the one that scores most, then the heaviest). Without ``keep_history`` only the last
    action is kept on top of the position's history (who ended the round, what scoring
    reads): a rollout's entries then die one by one, and never wake the garbage collector."""
    history = rnd.history
    if rnd.outcome is None and rnd.left < 0:
        if rnd.lead >= 0:
            t = rnd.lead
        else:
            t = _best_opening(rnd, rnd.hands[rnd.turn] & ~rnd.barred)
        play(rnd, t, -1, OPENINGS[t])
    hands = rnd.hands
    four = rnd.four_ends
    while in_play(rnd):
        hand = hands[rnd.turn]
        fl = hand & FIT[rnd.left]
        fr = hand & FIT[rnd.right]
        fu = fd = 0
        if rnd.up >= 0:
            fu = hand & FIT[rnd.up]
            fd = hand & FIT[rnd.down]
        fit = fl | fr | fu | fd
        if fit:
            end = -1
            if fit & (fit - 1) and rand() < eps:
                t = nth_tile(fit, int(rand() * bits(fit)))
            elif four:
                choice = _best_scoring(rnd, fl, fr, fu, fd)
                end, t = choice // 28, choice % 28
            else:
                t = heaviest(fit)
            if end < 0:
                bit = 1 << t
                end = 0 if fl & bit else 1 if fr & bit else 2 if fu & bit else 3
            play(rnd, t, end, MOVES[end][t])
        elif rnd.drawn < len(rnd.boneyard):
            draw(rnd, DRAWN)
        else:
            pass_turn(rnd, PASSED)
        if not keep_history and in_play(rnd):
            rnd.history = history  # the next action's entry replaces this one's


def _best_scoring(rnd: Table, fl: int, fr: int, fu: int, fd: int) -> int:
    """All Fives' timeout play: the most points now, then the heaviest tile, then the first end
    of left, right, up, down; as ``end * 28 + tile``."""
    base = rnd.lv + rnd.rv + rnd.uv + rnd.dv
    best = -1
    choice = 0
    for e in range(4):
        if e == 0:
            f, number, rest = fl, rnd.left, base - rnd.lv
        elif e == 1:
            f, number, rest = fr, rnd.right, base - rnd.rv
        elif e == 2:
            f, number, rest = fu, rnd.up, base - rnd.uv
        else:
            f, number, rest = fd, rnd.down, base - rnd.dv
        while f:
            b = f & -f
            f ^= b
            u = BIT_INDEX[b % 37]
            after = rest + OTHER[u * 7 + number] * WEIGHT[u]
            key = ((after if after % 5 == 0 else 0) * 64 + RANK[u]) * 4 + 3 - e
            if key > best:
                best = key
                choice = e * 28 + u
    return choice


def _best_opening(rnd: Table, hand: int) -> int:
    """The round's first tile by the timeout order (All Fives: what it scores first)."""
    if not rnd.four_ends:
        return heaviest(hand)
    best = -1
    choice = -1
    while hand:
        b = hand & -hand
        hand ^= b
        t = BIT_INDEX[b % 37]
        total = LOWS[t] + HIGHS[t]  # the lone first tile counts once
        key = (total if total % 5 == 0 else 0) * 64 + RANK[t]
        if key > best:
            best = key
            choice = t
    return choice
