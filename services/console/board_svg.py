"""The line of play drawn as an SVG, server-side, for the console's Tables page (a match
watched as a spectator sees it) and its Matches replays: the same picture whether the line
comes from a live view or from a record stepped move by move.

The page's Content Security Policy forbids style attributes and inline scripts, so the
drawing uses presentation attributes only (fill, stroke) and carries its own text
alternative (``<title>`` and ``aria-label``): the tiles in order, for a screen reader.

Layout: without a spinner the line snakes in rows of ``ROW`` tiles, every other row right to
left (its tiles turned round so touching pips still touch); doubles stand crosswise. With an
All Fives spinner the line is one row, and the spinner's up and down arms stand above and
below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from markupsafe import Markup, escape

Pair = tuple[int, int]  # pips as laid: left touches the previous tile, right the next

ROW = 10  # tiles per row of a snaking line
HALF = 20  # a tile's half is HALF x HALF
GAP = 4
PIP_RADIUS = 2.4
# Pip centres on a 3x3 grid of a half (0..2 per axis), per count.
_GRID = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
    8: ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    9: tuple((x, y) for x in range(3) for y in range(3)),
}


@dataclass(frozen=True)
class Board:
    """What the drawing needs of a position: the line (``MatchView.line``), and for All
    Fives the spinner's index in it and its arms, each from the spinner outwards."""

    line: Sequence[Pair] = ()
    spinner_index: int | None = None
    up_line: Sequence[Pair] = field(default_factory=tuple)
    down_line: Sequence[Pair] = field(default_factory=tuple)


@dataclass(frozen=True)
class _Placed:
    x: float
    y: float
    first: int  # the pips drawn left (or top)
    second: int
    upright: bool  # the long side vertical


def board_from_view(view) -> Board:
    """The board of a ``domino.match.v1.MatchView`` (a live or replayed position)."""
    return Board(
        line=tuple((t.left, t.right) for t in view.line),
        spinner_index=view.spinner_index if view.HasField("spinner_index") else None,
        up_line=tuple((t.left, t.right) for t in view.up_line),
        down_line=tuple((t.left, t.right) for t in view.down_line),
    )


def describe(board: Board) -> str:
    """The line in words, left to right, then the spinner's arms."""
    if not board.line:
        return "No tile played yet."
    words = "Line of play, left to right: " + ", ".join(f"{a}-{b}" for a, b in board.line) + "."
    if board.up_line:
        words += " Up from the spinner: " + ", ".join(f"{a}-{b}" for a, b in board.up_line) + "."
    if board.down_line:
        words += " Down from the spinner: " + ", ".join(f"{a}-{b}" for a, b in board.down_line) + "."
    return words


def draw_board(board: Board, label: str = "The table") -> Markup:
    """An ``<svg>`` element, scaled to its container by its viewBox."""
    placed = _cross(board) if board.spinner_index is not None else _snake(board.line)
    words = describe(board)
    if not placed:
        width, height = 10.0 * HALF, 3.0 * HALF
        body = [f'<text x="{width / 2}" y="{height / 2 + 5}" text-anchor="middle" font-size="12" '
                f'fill="#444">No tile played yet</text>']
        min_x = min_y = 0.0
    else:
        min_x = min(p.x for p in placed) - GAP
        min_y = min(p.y for p in placed) - GAP
        width = max(p.x + (HALF if p.upright else 2 * HALF) for p in placed) + GAP - min_x
        height = max(p.y + (2 * HALF if p.upright else HALF) for p in placed) + GAP - min_y
        body = [_tile(p) for p in placed]
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" role="img" '
        f'viewBox="{_n(min_x)} {_n(min_y)} {_n(width)} {_n(height)}" aria-label="{escape(label)}: {escape(words)}">'
        f"<title>{escape(label)}</title><desc>{escape(words)}</desc>" + "".join(body) + "</svg>"
    )


def _snake(line: Sequence[Pair]) -> list[_Placed]:
    rows: list[list[tuple[float, Pair]]] = []
    widths: list[float] = []
    for start in range(0, len(line), ROW):
        x, slots = 0.0, []
        for pair in line[start:start + ROW]:
            slots.append((x, pair))
            x += (HALF if pair[0] == pair[1] else 2 * HALF) + GAP
        rows.append(slots)
        widths.append(x - GAP)
    full = max(widths, default=0.0)
    placed: list[_Placed] = []
    for row, slots in enumerate(rows):
        y = row * (2 * HALF + 2 * GAP)
        for slot_x, (a, b) in slots:
            double = a == b
            if row % 2:  # right to left from the right edge: mirrored, each tile turned round
                slot_x = full - slot_x - (HALF if double else 2 * HALF)
                a, b = b, a
            placed.append(_Placed(slot_x, y if double else y + HALF / 2, a, b, upright=double))
    return placed


def _cross(board: Board) -> list[_Placed]:
    """One row, the spinner's arms standing on it."""
    placed: list[_Placed] = []
    x = 0.0
    spinner_x = 0.0
    for index, (a, b) in enumerate(board.line):
        double = a == b
        if index == board.spinner_index:
            spinner_x = x
        placed.append(_Placed(x, 0.0 if double else HALF / 2, a, b, upright=double))
        x += (HALF if double else 2 * HALF) + GAP
    y = -GAP
    for a, b in board.up_line:  # upwards: the pips nearer the spinner below
        y -= 2 * HALF
        placed.append(_Placed(spinner_x, y, b, a, upright=True))
        y -= GAP
    y = 2 * HALF + GAP
    for a, b in board.down_line:
        placed.append(_Placed(spinner_x, y, a, b, upright=True))
        y += 2 * HALF + GAP
    return placed


def _tile(p: _Placed) -> str:
    w, h = (HALF, 2 * HALF) if p.upright else (2 * HALF, HALF)
    second_x, second_y = (p.x, p.y + HALF) if p.upright else (p.x + HALF, p.y)
    divider = (f'<line x1="{_n(p.x + 3)}" y1="{_n(p.y + HALF)}" x2="{_n(p.x + HALF - 3)}" y2="{_n(p.y + HALF)}"'
               if p.upright else
               f'<line x1="{_n(p.x + HALF)}" y1="{_n(p.y + 3)}" x2="{_n(p.x + HALF)}" y2="{_n(p.y + HALF - 3)}"')
    return (f'<g class="tile" data-pips="{p.first}-{p.second}">'
            f'<rect x="{_n(p.x)}" y="{_n(p.y)}" width="{w}" height="{h}" rx="3" fill="#fffdf6" '
            f'stroke="#222" stroke-width="1.2"/>{divider} stroke="#222" stroke-width="1"/>'
            + "".join(_pips(p.first, p.x, p.y)) + "".join(_pips(p.second, second_x, second_y)) + "</g>")


def _pips(count: int, x: float, y: float) -> Iterable[str]:
    if count not in _GRID:  # beyond a double-nine set: the number itself
        yield (f'<text class="pip-number" x="{_n(x + HALF / 2)}" y="{_n(y + HALF / 2 + 4)}" '
               f'text-anchor="middle" font-size="11" fill="#111">{count}</text>')
        return
    step = (HALF - 10) / 2
    for gx, gy in _GRID[count]:
        yield (f'<circle class="pip" cx="{_n(x + 5 + gx * step)}" cy="{_n(y + 5 + gy * step)}" '
               f'r="{PIP_RADIUS}" fill="#111"/>')


def _n(value: float) -> str:
    """A coordinate without a needless ``.0``."""
    return f"{value:g}"
