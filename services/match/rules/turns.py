"""What one action does to a round in play (docs/rules.md, "The line" and "A turn").

``step`` is the one place the rules of a turn live: it checks the move, changes the round
in place, and ends the round the moment it must (a domino, or a position in which no seat
can play and nothing can be drawn). ``take_turn`` is its pure face for everyone else.
A line with a spinner (All Fives) has four ends and its own step, ``spinner.py``.
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
from .tiles import HIGH, LOW, MATCHES, NAMES, OTHER_END


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
    hands = rnd.hands
    hand = hands[turn]
    kind = move[0]
    if kind == "play":
        t = move[1]
        bit = 1 << t
        if not hand & bit:
            raise TileNotHeld(f"seat {turn} does not hold {NAMES[t]}")
        left = rnd.left
        if left < 0:
            if rnd.lead >= 0 and t != rnd.lead:
                raise WrongLead(f"this round must be led with {NAMES[rnd.lead]}")
            if rnd.barred & bit:
                raise WrongLead(f"{NAMES[t]} may not lead a round")
            if move[2] is not None:
                raise TileDoesNotFit(f"{NAMES[t]} opens the line: the first tile takes no end")
            rnd.left = left = LOW[t]
            rnd.right = right = HIGH[t]
            rnd.lead = -1
        elif move[2] == LEFT:
            if not MATCHES[left] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the left end ({left})")
            rnd.left = left = OTHER_END[t][left]
            right = rnd.right
        elif move[2] == RIGHT:
            right = rnd.right
            if not MATCHES[right] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the right end ({right})")
            rnd.right = right = OTHER_END[t][right]
        elif move[2] is None:
            raise EndRequired(f"say which end {NAMES[t]} goes on (left or right)")
        else:
            raise TileDoesNotFit(f"this line has only a left and a right end, no {_end_name(move[2])} end")
        hands[turn] = hand ^ bit
        rnd.held = held = rnd.held ^ bit
        rnd.history = (rnd.history, turn, move)
        if hand == bit:
            rnd.outcome = "domino"
        elif not held & (MATCHES[left] | MATCHES[right]) and rnd.drawn == len(rnd.boneyard):
            rnd.outcome = "blocked"
        turn += 1
        rnd.turn = 0 if turn == len(hands) else turn
    elif kind == "draw":
        _must_not_fit(rnd, hand, "draw")
        drawn = rnd.drawn
        boneyard = rnd.boneyard
        if drawn >= len(boneyard):
            raise CannotDraw("this variant has no boneyard" if not boneyard else "the boneyard is empty")
        bit = 1 << boneyard[drawn]
        hands[turn] = hand | bit
        rnd.held |= bit
        rnd.drawn = drawn = drawn + 1
        rnd.history = (rnd.history, turn, move)
        if drawn == len(boneyard) and not rnd.held & (MATCHES[rnd.left] | MATCHES[rnd.right]):
            rnd.outcome = "blocked"
    elif kind == "pass":
        _must_not_fit(rnd, hand, "pass")
        if rnd.drawn < len(rnd.boneyard):
            raise MustDraw(f"seat {turn} must draw before passing: the boneyard still has tiles")
        rnd.history = (rnd.history, turn, move)
        turn += 1
        rnd.turn = 0 if turn == len(hands) else turn
    else:
        raise RulesError(f"unknown move {kind!r}")


def _end_name(end: int | None) -> str:
    return END_NAMES[end] if end is not None and 0 <= end < len(END_NAMES) else repr(end)


def _must_not_fit(rnd: Round, hand: int, what: str) -> None:
    if rnd.left < 0 or hand & (MATCHES[rnd.left] | MATCHES[rnd.right]):
        raise MustPlay(f"seat {rnd.turn} holds a tile that fits, so it must play, not {what}")
