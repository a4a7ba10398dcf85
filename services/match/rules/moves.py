"""Moves as interned values, and the moves a seat may make.

Every possible move exists once (56 plays on an end, 28 openings, draw, pass), so
generating legal moves allocates nothing but the list that holds them.
"""

from __future__ import annotations

from typing import NamedTuple

from .tiles import MATCHES, NAMES, TILE_COUNT, tiles_in

LEFT = 0
RIGHT = 1
END_NAMES = ("left", "right")


class Move(NamedTuple):
    kind: str  # "play" | "draw" | "pass"
    tile: int = -1  # the tile played; -1 for draw and pass
    end: int | None = None  # LEFT/RIGHT; None for the round's first play

    def __str__(self) -> str:
        if self.kind != "play":
            return self.kind
        if self.end is None:
            return f"play {NAMES[self.tile]}"
        return f"play {NAMES[self.tile]} {END_NAMES[self.end]}"


OPEN = tuple(Move("play", t, None) for t in range(TILE_COUNT))
PLAY_LEFT = tuple(Move("play", t, LEFT) for t in range(TILE_COUNT))
PLAY_RIGHT = tuple(Move("play", t, RIGHT) for t in range(TILE_COUNT))
DRAW = Move("draw")
PASS = Move("pass")


def play(tile: int, end: int | None = None) -> Move:
    if not 0 <= tile < TILE_COUNT:
        raise ValueError(f"no tile has id {tile}")
    if end is None:
        return OPEN[tile]
    return (PLAY_LEFT if end == LEFT else PLAY_RIGHT)[tile]


def legal_moves(rnd) -> tuple[Move, ...]:
    """Every move the seat to act may make; empty once the round has ended.

    A seat that holds a fitting tile must play; otherwise it draws while the boneyard
    has tiles; otherwise its only move is the forced pass (RULES.md §1.3).
    """
    if rnd.outcome is not None:
        return ()
    hand = rnd.hands[rnd.turn]
    left = rnd.left
    if left < 0:
        if rnd.lead >= 0:
            return (OPEN[rnd.lead],)
        return tuple(OPEN[t] for t in tiles_in(hand))
    key = (hand & MATCHES[left]) << 28 | hand & MATCHES[rnd.right]
    moves = _PLAYS_BY_FIT.get(key)
    if moves is None:
        moves = _plays_for_fit(key)
    if moves:
        return moves
    if rnd.drawn < len(rnd.boneyard):
        return (DRAW,)
    return (PASS,)


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
