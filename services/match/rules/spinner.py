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

``SpinnerRound`` is a ``Round`` (same hands, boneyard, turn and history) with the spinner's
state added, and ``turns.step`` / ``moves.legal_moves`` hand it its own methods, so the
two-ended families never pay for the spinner.
"""

from __future__ import annotations

from .errors import CannotDraw, EndRequired, MustDraw, MustPlay, RoundOver, RulesError, TileDoesNotFit, TileNotHeld, WrongLead
from .moves import DOWN, DRAW, END_NAMES, LEFT, PASS, PLAY_DOWN, PLAY_LEFT, PLAY_RIGHT, PLAY_UP, RIGHT, UP, Move, openings
from .state import Deal, Round
from .tiles import HIGH, LOW, MATCHES, NAMES, OTHER_END, tiles_in

BOTH_SIDES = 1 << LEFT | 1 << RIGHT


def end_count(outer: int, double: bool) -> int:
    """What an open end counts: the outer number of its last tile, both halves when that
    tile is a double (doubles lie crosswise: an outer 5-5 counts 10). The one home of the
    rule, so the terminal client shows each end's count exactly as it is scored (the
    playout kernel inlines it for speed, and its tests hold it to ``step``)."""
    return outer * 2 if double else outer


def points_scored(total: int) -> int:
    """What a play scores when the open ends add up to ``total`` after it: the total when it
    is a positive multiple of five, else nothing."""
    return total if total > 0 and total % 5 == 0 else 0


class SpinnerRound(Round):
    __slots__ = ("spinner", "pending", "up", "down", "values", "total", "seat_side", "play_points", "made")

    four_ends = True

    def __init__(self, deal: Deal, leader: int, lead: int, barred: int, seat_side: tuple[int, ...]) -> None:
        super().__init__(deal, leader, lead, barred)
        self.spinner = -1  # the spinner's number; -1 until a double is played
        self.pending = 0  # LEFT/RIGHT bits: spinner sides still waiting for a tile
        self.up = -1  # the up end's number; -1 while up and down are closed
        self.down = -1
        self.values: tuple[int, int, int, int] = (0, 0, 0, 0)  # what left, right, up, down count
        self.total = 0  # what the open ends add up to now
        self.seat_side = seat_side  # the side each seat scores for
        self.play_points: tuple[tuple[int, int, int], ...] = ()  # (action index, side, points)
        self.made = 0  # actions made this round

    def copy(self) -> "SpinnerRound":
        other = _new_round(SpinnerRound)
        for name in _SLOTS:
            setattr(other, name, getattr(self, name))
        other.hands = self.hands[:]
        return other

    def fitting(self) -> int:
        """The tiles that fit some open end."""
        fit = MATCHES[self.left] | MATCHES[self.right]
        if self.up >= 0:
            fit |= MATCHES[self.up] | MATCHES[self.down]
        return fit

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
            self._play(turn, hand, move)
        elif kind == "draw":
            self._must_not_fit(hand, "draw")
            if self.drawn >= len(self.boneyard):
                raise CannotDraw("this round has no boneyard" if not self.boneyard else "the boneyard is empty")
            bit = 1 << self.boneyard[self.drawn]
            self.hands[turn] = hand | bit
            self.held |= bit
            self.drawn += 1
            self._record(turn, move)
            if self.drawn == len(self.boneyard) and not self.held & self.fitting():
                self.outcome = "blocked"
        elif kind == "pass":
            self._must_not_fit(hand, "pass")
            if self.drawn < len(self.boneyard):
                raise MustDraw(f"seat {turn} must draw before passing: the boneyard still has tiles")
            self._record(turn, move)
            self.turn = (turn + 1) % len(self.hands)
        else:
            raise RulesError(f"unknown move {kind!r}")

    def _play(self, turn: int, hand: int, move: Move) -> None:
        t, end = move[1], move[2]
        bit = 1 << t
        if not hand & bit:
            raise TileNotHeld(f"seat {turn} does not hold {NAMES[t]}")
        double = LOW[t] == HIGH[t]
        if self.left < 0:
            if self.lead >= 0 and t != self.lead:
                raise WrongLead(f"this round must be led with {NAMES[self.lead]}")
            if self.barred & bit:
                raise WrongLead(f"{NAMES[t]} may not lead a round")
            if end is not None:
                raise TileDoesNotFit(f"{NAMES[t]} opens the line: the first tile takes no end")
            self.left, self.right = LOW[t], HIGH[t]
            self.values = (end_count(LOW[t], double), end_count(HIGH[t], double), 0, 0)
            if double:
                self.spinner, self.pending = LOW[t], BOTH_SIDES
            points = LOW[t] + HIGH[t]  # the lone first tile counts once
        elif end is None:
            raise EndRequired(f"say which end {NAMES[t]} goes on (left, right, up or down)")
        else:
            number = self._open_number(end)
            if not MATCHES[number] & bit:
                raise TileDoesNotFit(f"{NAMES[t]} does not fit the {END_NAMES[end]} end ({number})")
            outer = OTHER_END[t][number]
            values = list(self.values)
            values[end] = end_count(outer, double)
            if end == LEFT:
                self.left = outer
            elif end == RIGHT:
                self.right = outer
            elif end == UP:
                self.up = outer
            else:
                self.down = outer
            if end <= RIGHT:
                if double and self.spinner < 0:
                    self.spinner, self.pending = number, 1 << end
                elif self.pending & 1 << end:
                    self.pending &= ~(1 << end)
                    if not self.pending:
                        self.up = self.down = self.spinner
            self.values = (values[0], values[1], values[2], values[3])
            points = values[0] + values[1] + values[2] + values[3]
        self.hands[turn] = hand ^ bit
        self.held ^= bit
        self.total = points
        if points_scored(points):
            self.play_points += ((self.made, self.seat_side[turn], points),)
        self._record(turn, move)
        if hand == bit:
            self.outcome = "domino"
        elif self.drawn == len(self.boneyard) and not self.held & self.fitting():
            self.outcome = "blocked"
        self.turn = (turn + 1) % len(self.hands)

    def _open_number(self, end: int) -> int:
        if end not in (LEFT, RIGHT, UP, DOWN):
            raise TileDoesNotFit(f"this line has no end numbered {end!r}")
        if end >= UP and self.up < 0:
            if self.spinner < 0:
                raise TileDoesNotFit(f"{END_NAMES[end]} is a side of the spinner, and no double has been played yet")
            raise TileDoesNotFit(f"the spinner's {END_NAMES[end]} side opens only once it has a tile on both of its "
                                 "other sides")
        return (self.left, self.right, self.up, self.down)[end]

    def _record(self, turn: int, move: Move) -> None:
        self.history = (self.history, turn, move)
        self.made += 1

    def _must_not_fit(self, hand: int, what: str) -> None:
        if self.left < 0 or hand & self.fitting():
            raise MustPlay(f"seat {self.turn} holds a tile that fits, so it must play, not {what}")


_SLOTS = Round.__slots__ + SpinnerRound.__slots__
_new_round = object.__new__
