"""The game screen laid out within the terminal: a 50x20 terminal scrolled the board off its
top and showed no table. The screen is drawn as fully as the terminal's height allows:
first the whole screen with the last moves cut to what fits, then without the match id and
the hand's key, then compact (compact.py), at last without the last moves and the table
talk; a terminal smaller than ``MIN_WIDTH`` x ``MIN_HEIGHT`` is told the size the table
needs, under the screen (where a terminal that scrolled still shows it)."""

from __future__ import annotations

import io
from typing import Callable

from rich.console import Console, Group, RenderableType
from rich.text import Text

from .recent import TURNS  # noqa: F401 - render asks layout how many the full screen shows

MIN_WIDTH, MIN_HEIGHT = 50, 20
FULL, BRIEF, COMPACT, BARE = 0, 1, 2, 3  # how much of the screen is drawn

Compose = Callable[[int, int], list[RenderableType]]  # (level, last moves shown) -> the screen's parts


def height_of(parts: list[RenderableType], width: int) -> int:
    """Lines the parts take on a terminal ``width`` wide."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, highlight=False, emoji=False).print(Group(*parts))
    return out.getvalue().count("\n")


def fit(compose: Compose, width: int, height: int) -> Group:
    """The fullest screen ``compose`` makes that leaves the prompt's line on a terminal of
    ``width`` x ``height``."""
    room = height - 1  # the prompt
    small = width < MIN_WIDTH or height < MIN_HEIGHT
    if small:
        room -= 1
    parts: list[RenderableType] = []
    for level in (FULL, BRIEF, COMPACT, BARE):
        for turns in range(TURNS, 0, -1) if level < BARE else (0,):
            parts = compose(level, turns)
            if height_of(parts, width) <= room:
                return _told(parts, width, height, small)
    return _told(parts, width, height, small)


def _told(parts: list[RenderableType], width: int, height: int, small: bool) -> Group:
    """The parts, and under them (what a terminal that scrolled still shows) the size needed."""
    if not small:
        return Group(*parts)
    notice = Text(f"This terminal is {width}x{height}; the table needs at least {MIN_WIDTH}x{MIN_HEIGHT}.",
                  style="bold red")
    return Group(*parts, notice)
