"""Exactly what one seat may see of a match, and nothing more.

A seat sees its own hand, the line, every seat's tile count, the boneyard's size, scores,
whose turn it is and its own legal moves; in All Fives also the spinner's sides, what the
open ends add up to and the points each play scored; in Goat every side's remembered
points, which accounts are open and the pot. It sees that others drew, never what; it never
sees a partner's hand, the boneyard's order, or the set-aside tile before the round ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple, cast

from .moves import DOWN, LEFT, RIGHT, UP, Move, legal_moves
from .family import RuleSet
from .spinner import SpinnerRound
from .state import MatchState, round_number
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
    # All Fives: the spinner's sides (None while closed), each arm from the spinner outwards
    # as (inner pip, outer pip), where the spinner lies in ``line``, what the open ends add up
    # to, and every scoring play of this round as (action index, side, points).
    up_end: int | None = None
    down_end: int | None = None
    up_line: tuple[tuple[int, int], ...] = ()
    down_line: tuple[tuple[int, int], ...] = ()
    spinner_at: int | None = None
    ends_total: int = 0
    play_points: tuple[tuple[int, int, int], ...] = ()
    # Goat: per side, what it remembers and whether its account is open; the pot carried.
    remembered: tuple[int, ...] = ()
    opened: tuple[bool, ...] = ()
    pot: int = 0
    over: bool = False
    goats: tuple[int, ...] = ()


class Layout(NamedTuple):
    line: tuple[tuple[int, int], ...]
    up_line: tuple[tuple[int, int], ...] = ()
    down_line: tuple[tuple[int, int], ...] = ()
    spinner_at: int | None = None


def line_of(actions: list[tuple[int, Move]], spinner: bool = False) -> Layout:
    """The line left to right, each tile oriented so touching halves match; with
    ``spinner`` (All Fives) the first double's place in it and its up and down arms."""
    line: list[tuple[int, int]] = []
    arms: dict[int, list[tuple[int, int]]] = {UP: [], DOWN: []}
    ends = {LEFT: -1, RIGHT: -1}
    spinner_at: int | None = None
    spinner_pip = -1
    for _, move in actions:
        if move.kind != "play":
            continue
        t = move.tile
        end = cast(int, move.end)
        becomes_spinner = spinner and spinner_at is None and LOW[t] == HIGH[t]
        if not line:
            line.append((LOW[t], HIGH[t]))
            ends = {LEFT: LOW[t], RIGHT: HIGH[t]}
            if becomes_spinner:
                spinner_at, spinner_pip = 0, LOW[t]
            continue
        if end in (LEFT, RIGHT):
            number = ends[end]
            other = HIGH[t] if LOW[t] == number else LOW[t]
            ends[end] = other
            if end == LEFT:
                line.insert(0, (other, number))
                if spinner_at is not None:
                    spinner_at += 1
            else:
                line.append((number, other))
            if becomes_spinner:
                spinner_at, spinner_pip = (0 if end == LEFT else len(line) - 1), number
        else:
            arm = arms[end]
            number = arm[-1][1] if arm else spinner_pip
            arm.append((number, HIGH[t] if LOW[t] == number else LOW[t]))
    return Layout(tuple(line), tuple(arms[UP]), tuple(arms[DOWN]), spinner_at)


@cache
def _public(seat: int, move: Move) -> PublicAction:
    return PublicAction(seat, move.kind, move.tile, move.end) if move.kind == "play" else PublicAction(seat, move.kind)


def public_actions(actions: list[tuple[int, Move]]) -> tuple[PublicAction, ...]:
    return tuple(_public(seat, move) for seat, move in actions)


def seat_secrets(match: MatchState, seat: int) -> tuple[tuple[int, ...], tuple[Move, ...]]:
    """What ``seat`` alone sees: its hand, and its legal moves while it is to act; nothing
    for seat -1 (the public view: spectators, services)."""
    rnd = match.round
    if rnd is None or seat < 0:
        return (), ()
    live = rnd.outcome is None
    return tuple(tiles_in(rnd.hands[seat])), tuple(legal_moves(rnd)) if live and rnd.turn == seat else ()


def player_view(match: MatchState, seat: int) -> PlayerView:
    """``seat``'s view; seat -1 is the public one, with no hand and no legal moves."""
    rnd = match.round
    rules = match.rules
    accounts = match.accounts
    goat: dict[str, Any] = {} if accounts is None else {"remembered": accounts.remembered, "opened": accounts.opened,
                                         "pot": accounts.pot}
    if rnd is None:
        return PlayerView(rules, seat, (), (), None, None, (0,) * rules.seats, 0, match.scores, match.target,
                          0, None, (), (), None, match.winner, over=match.over, goats=match.goats, **goat)
    live = rnd.outcome is None
    actions = rnd.actions()
    hand, moves = seat_secrets(match, seat)
    spinner: dict[str, Any] = {}
    if rnd.four_ends:
        four = cast(SpinnerRound, rnd)
        layout = line_of(actions, spinner=True)
        spinner = {"up_end": four.up if four.up >= 0 else None, "down_end": four.down if four.down >= 0 else None,
                   "up_line": layout.up_line, "down_line": layout.down_line, "spinner_at": layout.spinner_at,
                   "ends_total": four.total, "play_points": four.play_points}
    else:
        layout = line_of(actions)
    return PlayerView(
        rules=rules,
        seat=seat,
        hand=hand,
        line=layout.line,
        left_end=rnd.left if rnd.left >= 0 else None,
        right_end=rnd.right if rnd.right >= 0 else None,
        tile_counts=tuple(count(h) for h in rnd.hands),
        boneyard_count=rnd.boneyard_left,
        scores=match.scores,
        target=match.target,
        round_number=round_number(match),
        turn=rnd.turn if live else None,
        legal_moves=moves,
        actions=public_actions(actions),
        round_outcome=rnd.outcome,
        winner=match.winner,
        over=match.over,
        goats=match.goats,
        **spinner,
        **goat,
    )
