"""The one step of a move on the line, and the one test of a blocked round (docs/rules.md,
"The line" and "A turn"; All Fives' spinner and counted ends, §2).

Everything that moves a round forward calls these: the engine's checked ``turns.step`` and
``SpinnerRound.step``, the playout kernels (``playout.py``), the strong bot's rollouts and
what a seat infers from the public line (``bots/knowledge.Line``). None of them checks a
move: the checks, and the errors they raise, stay in the engine's pure-Python layer.

Compiled with mypyc together with ``playout.py`` (setup.py): the round's moving parts are the
fields of the native classes ``Line`` and ``Table``, so the compiled kernels read and write
them as C struct fields, and a step allocates nothing but the history's entry (and, when a
play scores in All Fives, its ``play_points`` entry). As plain Python it runs unchanged.
"""

from __future__ import annotations

from typing import Any, Final

from .tiles import HIGH, LOW, MATCHES, OTHER_END


def _same(cls: Any) -> Any:
    return cls


def _mypyc_only(*_: object, **__: object) -> Any:
    return _same


try:
    from mypy_extensions import mypyc_attr
except ImportError:  # plain Python where mypy is not installed: the decorator is mypyc's alone
    mypyc_attr = _mypyc_only

# Final copies of tiles.py's tables, which compiled code reads without a module lookup.
# OTHER[t * 7 + n]: what tile t shows opposite n. WEIGHT[t]: 2 for a double (an end whose
# outer tile is a double counts both halves), else 1.
FIT: Final[tuple[int, ...]] = tuple(MATCHES)
OTHER: Final[tuple[int, ...]] = tuple(OTHER_END[t][n] for t in range(28) for n in range(7))
LOWS: Final[tuple[int, ...]] = tuple(LOW)
HIGHS: Final[tuple[int, ...]] = tuple(HIGH)
WEIGHT: Final[tuple[int, ...]] = tuple(2 if LOW[t] == HIGH[t] else 1 for t in range(28))
DOMINO: Final = "domino"
BLOCKED: Final = "blocked"


@mypyc_attr(allow_interpreted_subclasses=True)
class Line:
    """The open ends: ``left`` and ``right`` (-1 before the first play) and, on a line with a
    spinner (``four_ends``), the spinner's number (-1 until the first double), its sides still
    waiting for a tile (``pending``: LEFT/RIGHT bits), ``up`` and ``down`` (-1 while closed),
    what each end counts (``lv``, ``rv``, ``uv``, ``dv``) and their ``total``."""

    def __init__(self, four_ends: bool = False) -> None:
        self.four_ends = four_ends
        self.left = -1
        self.right = -1
        self.up = -1
        self.down = -1
        self.spinner = -1
        self.pending = 0
        self.lv = 0
        self.rv = 0
        self.uv = 0
        self.dv = 0
        self.total = 0

    @property
    def values(self) -> tuple[int, int, int, int]:
        """What ``left``, ``right``, ``up`` and ``down`` count."""
        return (self.lv, self.rv, self.uv, self.dv)

    @values.setter
    def values(self, values: tuple[int, int, int, int]) -> None:
        self.lv, self.rv, self.uv, self.dv = values

    def fitting(self) -> int:
        """The tiles that fit some open end (none before the first play)."""
        return fitting(self)


@mypyc_attr(allow_interpreted_subclasses=True)
class Table(Line):
    """A line with the round's moving parts around it: the hands (tile masks), every held
    tile, the boneyard and how much of it is drawn, the seat to act, the lead the first play
    must be (-1: any) and the tiles that may not lead, the history ``(previous, seat, move)``
    newest first, the outcome once ended, the actions made, and in All Fives the side each
    seat scores for and the points scored in play ``(action index, side, points)``."""

    def __init__(self, hands: list[int], boneyard: tuple[int, ...], turn: int, lead: int, barred: int,
                 four_ends: bool = False, seat_side: tuple[int, ...] = ()) -> None:
        super().__init__(four_ends)
        self.hands = hands
        held = 0
        for hand in hands:
            held |= hand
        self.held = held
        self.boneyard = boneyard
        self.drawn = 0
        self.turn = turn
        self.lead = lead
        self.barred = barred
        self.history: object = None
        self.outcome: str | None = None
        self.made = 0
        self.seat_side = seat_side
        self.play_points: tuple[tuple[int, int, int], ...] = ()


def copy_table(src: Table, dst: Table) -> None:
    """``dst`` takes every field of ``src`` (the hands as a list of its own)."""
    dst.four_ends = src.four_ends
    dst.left = src.left
    dst.right = src.right
    dst.up = src.up
    dst.down = src.down
    dst.spinner = src.spinner
    dst.pending = src.pending
    dst.lv = src.lv
    dst.rv = src.rv
    dst.uv = src.uv
    dst.dv = src.dv
    dst.total = src.total
    dst.hands = src.hands[:]
    dst.held = src.held
    dst.boneyard = src.boneyard
    dst.drawn = src.drawn
    dst.turn = src.turn
    dst.lead = src.lead
    dst.barred = src.barred
    dst.history = src.history
    dst.outcome = src.outcome
    dst.made = src.made
    dst.seat_side = src.seat_side
    dst.play_points = src.play_points


def fitting(line: Line) -> int:
    """The tiles that fit some open end (none before the first play)."""
    left = line.left
    if left < 0:
        return 0
    fit = FIT[left] | FIT[line.right]
    up = line.up
    if up >= 0:
        fit |= FIT[up] | FIT[line.down]
    return fit


def blocked(table: Table) -> bool:
    """Whether no seat can play and nothing can be drawn: the round ends blocked."""
    return table.drawn == len(table.boneyard) and not table.held & fitting(table)


def lay(line: Line, t: int, end: int) -> int:
    """Lay tile ``t`` on ``end`` (LEFT, RIGHT, UP, DOWN; -1: it opens the line), which it
    fits; returns what the open ends count after it (All Fives; 0 on a two-ended line)."""
    if line.left < 0:
        low = LOWS[t]
        high = HIGHS[t]
        line.left = low
        line.right = high
        if not line.four_ends:
            return 0
        weight = WEIGHT[t]
        line.lv = low * weight
        line.rv = high * weight
        if weight == 2:
            line.spinner = low
            line.pending = 3
        line.total = low + high  # the lone first tile counts once
        return line.total
    if end == 0:
        number = line.left
        line.left = outer = OTHER[t * 7 + number]
    elif end == 1:
        number = line.right
        line.right = outer = OTHER[t * 7 + number]
    elif end == 2:
        number = line.up
        line.up = outer = OTHER[t * 7 + number]
    else:
        number = line.down
        line.down = outer = OTHER[t * 7 + number]
    if not line.four_ends:
        return 0
    value = outer * WEIGHT[t]
    if end == 0:
        line.lv = value
    elif end == 1:
        line.rv = value
    elif end == 2:
        line.uv = value
    else:
        line.dv = value
    if end <= 1:
        if line.spinner < 0:
            if WEIGHT[t] == 2:
                line.spinner = number
                line.pending = 1 << end
        elif line.pending & 1 << end:
            pending = line.pending & ~(1 << end)
            line.pending = pending
            if not pending:
                line.up = line.down = line.spinner
    total = line.lv + line.rv + line.uv + line.dv
    line.total = total
    return total


def play(table: Table, t: int, end: int, move: object) -> None:
    """The seat to act plays ``t`` on ``end`` (-1: the round's first play), recorded as
    ``move``; the round ends on a domino or when blocked, else the next seat is to act."""
    turn = table.turn
    hands = table.hands
    hand = hands[turn]
    bit = 1 << t
    opening = table.left < 0
    total = lay(table, t, end)
    if opening:
        table.lead = -1
    hands[turn] = hand ^ bit
    table.held ^= bit
    if total and total % 5 == 0:  # only All Fives counts the ends
        table.play_points += ((table.made, table.seat_side[turn], total),)
    table.history = (table.history, turn, move)
    table.made += 1
    if hand == bit:
        table.outcome = DOMINO
    elif blocked(table):
        table.outcome = BLOCKED
    turn += 1
    table.turn = 0 if turn == len(hands) else turn


def draw(table: Table, move: object) -> None:
    """The seat to act draws the boneyard's next tile, recorded as ``move``."""
    turn = table.turn
    drawn = table.drawn
    bit = 1 << table.boneyard[drawn]
    table.hands[turn] |= bit
    table.held |= bit
    table.drawn = drawn + 1
    table.history = (table.history, turn, move)
    table.made += 1
    if blocked(table):
        table.outcome = BLOCKED


def pass_turn(table: Table, move: object) -> None:
    """The seat to act passes, recorded as ``move``."""
    turn = table.turn
    table.history = (table.history, turn, move)
    table.made += 1
    turn += 1
    table.turn = 0 if turn == len(table.hands) else turn
