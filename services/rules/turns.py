"""What one action does to a round in play (docs/rules.md, "The line" and "A turn").

``step`` checks a move and raises the error that says why it is illegal; a legal one is
made by the one step of every family (``step.py``: place the tile, open the ends, end the
round the moment it must, on a domino or a position in which no seat can play and nothing
can be drawn). ``take_turn`` is its pure face for everyone else. A line with a spinner
(All Fives) has four ends and its own checks, ``spinner.py``.
"""

from __future__ import annotations

from .errors import (
    CannotDraw,
    EndRequired,
    MustDraw,
    MustPlay,
    NotYourTurn,
    RoundOver,
    RulesError,
    TileDoesNotFit,
    TileNotHeld,
    WrongLead,
)
from typing import cast

from .moves import END_NAMES, LEFT, RIGHT, Move
from .spinner import SpinnerRound
from .state import Round
from .step import draw, pass_turn, play
from .tiles import MATCHES, NAMES


def take_turn(rnd: Round, move: Move, seat: int | None = None) -> Round:
    """The round after ``move`` by the seat to act (``seat``, if given, must be that seat)."""
    if seat is not None and seat != rnd.turn and rnd.outcome is None:
        raise NotYourTurn(f"it is seat {rnd.turn}'s turn, not seat {seat}'s")
    nxt = rnd.copy()
    step(nxt, move)
    return nxt


def step(rnd: Round, move: Move) -> None:
    """Apply ``move`` by the seat to act, in place; raises (changing nothing) if illegal."""
    if rnd.four_ends:
        return cast(SpinnerRound, rnd).step(move)
    if rnd.outcome is not None:
        raise RoundOver(f"the round has already ended ({rnd.outcome})")
    turn = rnd.turn
    hand = rnd.hands[turn]
    kind = move[0]
    if kind == "play":
        t = move[1]
        bit = 1 << t
        if not hand & bit:
            raise TileNotHeld(f"seat {turn} does not hold {NAMES[t]}")
        left = rnd.left
        end = move[2]
        if left < 0:
            if rnd.lead >= 0 and t != rnd.lead:
                raise WrongLead(f"this round must be led with {NAMES[rnd.lead]}")
            if rnd.barred & bit:
                raise WrongLead(f"{NAMES[t]} may not lead a round")
            if end is not None:
                raise TileDoesNotFit(f"{NAMES[t]} opens the line: the first tile takes no end")
            end = -1
        elif end == LEFT:
            if not MATCHES[left] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the left end ({left})")
        elif end == RIGHT:
            right = rnd.right
            if not MATCHES[right] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the right end ({right})")
        elif end is None:
            raise EndRequired(f"say which end {NAMES[t]} goes on (left or right)")
        else:
            raise TileDoesNotFit(f"this line has only a left and a right end, no {_end_name(end)} end")
        play(rnd, t, end, move)
    elif kind == "draw":
        _must_not_fit(rnd, hand, "draw")
        if rnd.drawn >= len(rnd.boneyard):
            raise CannotDraw("this variant has no boneyard" if not rnd.boneyard else "the boneyard is empty")
        draw(rnd, move)
    elif kind == "pass":
        _must_not_fit(rnd, hand, "pass")
        if rnd.drawn < len(rnd.boneyard):
            raise MustDraw(f"seat {turn} must draw before passing: the boneyard still has tiles")
        pass_turn(rnd, move)
    else:
        raise RulesError(f"unknown move {kind!r}")


def _end_name(end: int | None) -> str:
    return END_NAMES[end] if end is not None and 0 <= end < len(END_NAMES) else repr(end)


def _must_not_fit(rnd: Round, hand: int, what: str) -> None:
    if rnd.left < 0 or hand & (MATCHES[rnd.left] | MATCHES[rnd.right]):
        raise MustPlay(f"seat {rnd.turn} holds a tile that fits, so it must play, not {what}")
