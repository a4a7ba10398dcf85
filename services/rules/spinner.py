"""The All Fives line: a spinner with four ends, and points for the open ends
(docs/rules.md §2, "The line and the spinner" and "Counting the ends").

The first double played in a round is the spinner. ``left`` and ``right`` are the two ends
of the line as in every family; the spinner's ``up`` and ``down`` sides open once it has a
tile on both of its other sides (a first-tile spinner needs one on ``left`` and one on
``right``; a spinner laid on an end needs one more tile played past it on that end).

After every play the open ends are counted: ``left`` and ``right`` always, ``up`` and
``down`` once a tile lies on them; an end whose outer tile is a double counts both halves,
and the lone first tile counts its two numbers once. A positive multiple of five scores at
once for the player's side; ``play_points`` keeps (action index, side, points) in order.

``SpinnerRound`` is a ``Round`` whose line has four ends (``step.Line``: the spinner, its
sides, what each end counts); ``turns.step`` / ``moves.legal_moves`` hand it its own checks
and moves, and both lines are stepped by the one ``step.play``.
"""

from __future__ import annotations

from .errors import CannotDraw, EndRequired, MustDraw, MustPlay, RoundOver, RulesError, TileDoesNotFit, TileNotHeld, WrongLead
from .moves import DOWN, DRAW, END_NAMES, LEFT, PASS, PLAY_DOWN, PLAY_LEFT, PLAY_RIGHT, PLAY_UP, RIGHT, UP, Move, openings
from .state import Deal, Round
from .step import draw, lay, pass_turn, play
from .tiles import HIGH, LOW, MATCHES, NAMES, tiles_in

BOTH_SIDES = 1 << LEFT | 1 << RIGHT


def end_count(outer: int, double: bool) -> int:
    """What an open end counts: the outer number of its last tile, both halves when that
    tile is a double (doubles lie crosswise: an outer 5-5 counts 10). The one home of the
    rule for the terminal client, which shows each end's count as ``step.lay`` scores it
    (compiled, it reads the rule from its own table; tests/unit/test_step.py holds the two
    together)."""
    return outer * 2 if double else outer


def points_scored(total: int) -> int:
    """What a play scores when the open ends add up to ``total`` after it: the total when it
    is a positive multiple of five, else nothing (as ``step.play`` records it)."""
    return total if total > 0 and total % 5 == 0 else 0


def end_counts(rnd: Round) -> tuple[tuple[int, int], ...]:
    """What each open end counts towards the ends' total, as (end, count) in the order left,
    right, up, down: left and right once the line has a tile, up and down once open (0 until a
    tile lies on them), so the counts add up to the total. The lone first tile counts once, so
    its ends show its two numbers (a lone 5-5: 5 and 5, the total 10). Empty on a line
    without a spinner, which counts nothing."""
    if not rnd.four_ends or rnd.left < 0:
        return ()
    plays = [move for _, move in rnd.actions() if move.kind == "play"]
    if len(plays) == 1:
        t = plays[0].tile
        return ((LEFT, LOW[t]), (RIGHT, HIGH[t]))
    counts = ((LEFT, rnd.lv), (RIGHT, rnd.rv))
    return counts + ((UP, rnd.uv), (DOWN, rnd.dv)) if rnd.up >= 0 else counts


def points_of_play(rnd: Round, move: Move) -> int:
    """What the legal play ``move`` would score at once (the ends' total after it, when that
    is a positive multiple of five): laid by the one step of every play (``step.lay``) on a
    copy of the line. 0 for a draw or a pass, and on a line without a spinner."""
    if not rnd.four_ends or move.kind != "play":
        return 0
    line = rnd.copy()
    return points_scored(lay(line, move.tile, -1 if move.end is None else move.end))


class SpinnerRound(Round):
    """A ``Round`` whose line has four ends: its ``step`` checks a move by the spinner's rules,
    then makes it with the one step of every family (``step.play``)."""

    __slots__ = ()

    def __init__(self, deal: Deal, leader: int, lead: int, barred: int, seat_side: tuple[int, ...]) -> None:
        super().__init__(deal, leader, lead, barred, True, seat_side)

    def end_number(self, end: int) -> int:
        """The number showing on ``end``; -1 for a closed ``up``/``down``."""
        return (self.left, self.right, self.up, self.down)[end]

    # ---- the rules of a turn ---------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        if self.outcome is not None:
            return ()
        hand = self.hands[self.turn]
        if self.left < 0:
            return openings(self, hand)
        moves = [PLAY_LEFT[t] for t in tiles_in(hand & MATCHES[self.left])]
        moves += [PLAY_RIGHT[t] for t in tiles_in(hand & MATCHES[self.right])]
        if self.up >= 0:
            moves += [PLAY_UP[t] for t in tiles_in(hand & MATCHES[self.up])]
            moves += [PLAY_DOWN[t] for t in tiles_in(hand & MATCHES[self.down])]
        if moves:
            return tuple(moves)
        return (DRAW,) if self.drawn < len(self.boneyard) else (PASS,)

    def step(self, move: Move) -> None:
        """``turns.step`` for this line: apply ``move`` in place or raise, changing nothing."""
        if self.outcome is not None:
            raise RoundOver(f"the round has already ended ({self.outcome})")
        turn = self.turn
        hand = self.hands[turn]
        kind = move[0]
        if kind == "play":
            self._check_play(turn, hand, move)
            play(self, move[1], -1 if move[2] is None else move[2], move)
        elif kind == "draw":
            self._must_not_fit(hand, "draw")
            if self.drawn >= len(self.boneyard):
                raise CannotDraw("this round has no boneyard" if not self.boneyard else "the boneyard is empty")
            draw(self, move)
        elif kind == "pass":
            self._must_not_fit(hand, "pass")
            if self.drawn < len(self.boneyard):
                raise MustDraw(f"seat {turn} must draw before passing: the boneyard still has tiles")
            pass_turn(self, move)
        else:
            raise RulesError(f"unknown move {kind!r}")

    def _check_play(self, turn: int, hand: int, move: Move) -> None:
        t, end = move[1], move[2]
        bit = 1 << t
        if not hand & bit:
            raise TileNotHeld(f"seat {turn} does not hold {NAMES[t]}")
        if self.left < 0:
            if self.lead >= 0 and t != self.lead:
                raise WrongLead(f"this round must be led with {NAMES[self.lead]}")
            if self.barred & bit:
                raise WrongLead(f"{NAMES[t]} may not lead a round")
            if end is not None:
                raise TileDoesNotFit(f"{NAMES[t]} opens the line: the first tile takes no end")
        elif end is None:
            raise EndRequired(f"say which end {NAMES[t]} goes on (left, right, up or down)")
        else:
            number = self._open_number(end)
            if not MATCHES[number] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the {END_NAMES[end]} end ({number})")

    def _open_number(self, end: int) -> int:
        if end not in (LEFT, RIGHT, UP, DOWN):
            raise TileDoesNotFit(f"this line has no end numbered {end!r}")
        if end >= UP and self.up < 0:
            if self.spinner < 0:
                raise TileDoesNotFit(f"{END_NAMES[end]} is a side of the spinner, and no double has been played yet")
            raise TileDoesNotFit(f"the spinner's {END_NAMES[end]} side opens only once it has a tile on both of its "
                                 "other sides")
        return (self.left, self.right, self.up, self.down)[end]

    def _must_not_fit(self, hand: int, what: str) -> None:
        if self.left < 0 or hand & self.fitting():
            raise MustPlay(f"seat {self.turn} holds a tile that fits, so it must play, not {what}")
