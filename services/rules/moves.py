"""Moves as interned values, and the moves a seat may make.

Every possible move exists once (a play of each tile on each of the four ends, 28
openings, draw, pass), so generating legal moves allocates nothing but the list that
holds them. Only All Fives has the ``up`` and ``down`` ends (the spinner's sides,
``spinner.py``); every other family plays on ``left`` and ``right``.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, cast

from .step import Table
from .tiles import MATCHES, NAMES, TILE_COUNT, tiles_in

LEFT = 0
RIGHT = 1
UP = 2
DOWN = 3
END_NAMES = ("left", "right", "up", "down")
END_OF_NAME = {name: end for end, name in enumerate(END_NAMES)}


class Move(NamedTuple):
    kind: str  # "play" | "draw" | "pass"
    tile: int = -1  # the tile played; -1 for draw and pass
    end: int | None = None  # LEFT/RIGHT/UP/DOWN; None for the round's first play

    def __str__(self) -> str:
        if self.kind != "play":
            return self.kind
        if self.end is None:
            return f"play {NAMES[self.tile]}"
        return f"play {NAMES[self.tile]} {END_NAMES[self.end]}"


OPEN = tuple(Move("play", t, None) for t in range(TILE_COUNT))
PLAY_LEFT = tuple(Move("play", t, LEFT) for t in range(TILE_COUNT))
PLAY_RIGHT = tuple(Move("play", t, RIGHT) for t in range(TILE_COUNT))
PLAY_UP = tuple(Move("play", t, UP) for t in range(TILE_COUNT))
PLAY_DOWN = tuple(Move("play", t, DOWN) for t in range(TILE_COUNT))
PLAY_ON = (PLAY_LEFT, PLAY_RIGHT, PLAY_UP, PLAY_DOWN)  # PLAY_ON[end][tile]
DRAW = Move("draw")
PASS = Move("pass")


def play(tile: int, end: int | None = None) -> Move:
    if not 0 <= tile < TILE_COUNT:
        raise ValueError(f"no tile has id {tile}")
    if end is None:
        return OPEN[tile]
    if end not in (LEFT, RIGHT, UP, DOWN):
        raise ValueError(f"no end is numbered {end}")
    return PLAY_ON[end][tile]


class _FourEnds(Protocol):
    """A round with four ends (``spinner.SpinnerRound``, which imports this module): it
    knows its own moves."""

    def legal_moves(self) -> tuple[Move, ...]: ...


def legal_moves(rnd: Table) -> tuple[Move, ...]:
    """Every move the seat to act may make; empty once the round has ended.

    A seat that holds a fitting tile must play; otherwise it draws while the boneyard
    has tiles; otherwise its only move is the forced pass (docs/rules.md, "A turn").
    """
    if rnd.four_ends:
        return cast(_FourEnds, rnd).legal_moves()
    if rnd.outcome is not None:
        return ()
    hand = rnd.hands[rnd.turn]
    left = rnd.left
    if left < 0:
        return openings(rnd, hand)
    key = (hand & MATCHES[left]) << 28 | hand & MATCHES[rnd.right]
    moves = _PLAYS_BY_FIT.get(key)
    if moves is None:
        moves = _plays_for_fit(key)
    if moves:
        return moves
    if rnd.drawn < len(rnd.boneyard):
        return (DRAW,)
    return (PASS,)


def openings(rnd: Table, hand: int) -> tuple[Move, ...]:
    """The round's first play: the tile the rules name, or any tile the seat may lead with."""
    if rnd.lead >= 0:
        return (OPEN[rnd.lead],)
    return tuple(OPEN[t] for t in tiles_in(hand & ~rnd.barred))


# The plays are a function of which held tiles fit each end, a small set of masks that
# recur constantly across rounds; memoising them makes legal_moves nearly free.
_PLAYS_BY_FIT: dict[int, tuple[Move, ...]] = {}
_MEMO_LIMIT = 1 << 18


def _plays_for_fit(key: int) -> tuple[Move, ...]:
    fit_right = key & ((1 << 28) - 1)
    moves = tuple([PLAY_LEFT[t] for t in tiles_in(key >> 28)] + [PLAY_RIGHT[t] for t in tiles_in(fit_right)])
    if len(_PLAYS_BY_FIT) < _MEMO_LIMIT:
        _PLAYS_BY_FIT[key] = moves
    return moves
