"""Exactly what one seat may see of a match, and nothing more (DESIGN.md "Who may see").

A seat sees its own hand, the line, every seat's tile count, the boneyard's size, scores,
whose turn it is and its own legal moves. It sees that others drew, never what; it never
sees a partner's hand, the boneyard's order, or the set-aside tile before the round ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from .moves import LEFT, Move, legal_moves
from .rulesets import RuleSet
from .state import Match
from .tiles import HIGH, LOW, count, tiles_in


class PublicAction(NamedTuple):
    seat: int
    kind: str  # "play" | "draw" | "pass"
    tile: int = -1  # plays only
    end: int | None = None


@dataclass(frozen=True)
class PlayerView:
    rules: RuleSet
    seat: int
    hand: tuple[int, ...]
    line: tuple[tuple[int, int], ...]  # tiles as laid, left to right, each (left pip, right pip)
    left_end: int | None
    right_end: int | None
    tile_counts: tuple[int, ...]
    boneyard_count: int
    scores: tuple[int, ...]
    target: int
    round_number: int  # 1-based; 0 before the first deal
    turn: int | None  # None when no round is in play
    legal_moves: tuple[Move, ...]
    actions: tuple[PublicAction, ...]  # this round's, in order
    round_outcome: str | None
    winner: int | None


def line_of(actions: list[tuple[int, Move]]) -> list[tuple[int, int]]:
    """The line left to right, each tile oriented so touching halves match."""
    line: list[tuple[int, int]] = []
    left = right = -1
    for _, move in actions:
        if move.kind != "play":
            continue
        t = move.tile
        if not line:
            line.append((LOW[t], HIGH[t]))
            left, right = LOW[t], HIGH[t]
        elif move.end == LEFT:
            other = HIGH[t] if LOW[t] == left else LOW[t]
            line.insert(0, (other, left))
            left = other
        else:
            other = HIGH[t] if LOW[t] == right else LOW[t]
            line.append((right, other))
            right = other
    return line


@cache
def _public(seat: int, move: Move) -> PublicAction:
    return PublicAction(seat, move.kind, move.tile, move.end) if move.kind == "play" else PublicAction(seat, move.kind)


def public_actions(actions: list[tuple[int, Move]]) -> tuple[PublicAction, ...]:
    return tuple(_public(seat, move) for seat, move in actions)


def player_view(match: Match, seat: int) -> PlayerView:
    rnd = match.round
    rounds = len(match.results) + (1 if rnd is not None and rnd.outcome is None else 0)
    if rnd is None:
        return PlayerView(match.rules, seat, (), (), None, None, (0,) * match.rules.seats, 0, match.scores, match.target,
                          0, None, (), (), None, match.winner)
    live = rnd.outcome is None
    actions = rnd.actions()
    return PlayerView(
        rules=match.rules,
        seat=seat,
        hand=tuple(tiles_in(rnd.hands[seat])),
        line=tuple(line_of(actions)),
        left_end=rnd.left if rnd.left >= 0 else None,
        right_end=rnd.right if rnd.right >= 0 else None,
        tile_counts=tuple(count(h) for h in rnd.hands),
        boneyard_count=rnd.boneyard_left,
        scores=match.scores,
        target=match.target,
        round_number=rounds,
        turn=rnd.turn if live else None,
        legal_moves=tuple(legal_moves(rnd)) if live and rnd.turn == seat else (),
        actions=public_actions(actions),
        round_outcome=rnd.outcome,
        winner=match.winner,
    )
