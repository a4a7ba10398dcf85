"""Where screens go: a rich Console, redrawn in place when it is a terminal.

The player types into the terminal's own line editor (canonical mode): what they typed is
echoed by the terminal, not kept by us, so a redraw that clears the prompt line would hide
a half-typed line that is still waiting in the terminal's buffer. The countdown therefore
never redraws the whole screen: ``screen(..., in_place=True)`` rewrites only the lines that
changed, with the cursor saved before and put back after, and never touches the prompt line.
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.text import Text

from . import render

HOME, CLEAR_LINE, CLEAR_BELOW, CLEAR_SCREEN = "\x1b[H", "\x1b[K", "\x1b[J", "\x1b[2J"
SAVE_CURSOR, RESTORE_CURSOR = "\x1b7", "\x1b8"


def move_to(row: int) -> str:
    """The cursor to the start of ``row`` (1-based)."""
    return f"\x1b[{row};1H"


class Output:
    """``redraw``: each screen replaces the last (cursor home, lines cleared as they are
    written over, so nothing flickers); otherwise screens follow each other, separated by
    a rule, which is what a log or a pipe wants."""

    def __init__(self, console: Console | None = None, redraw: bool | None = None) -> None:
        self.console = console or Console(highlight=False, emoji=False)
        self.redraw = self.console.is_terminal if redraw is None else redraw
        self._first = True
        self._lines: list[str] | None = None  # the last screen drawn, line by line
        self._size: tuple[int, int] | None = None

    def screen(self, renderable: RenderableType, with_prompt: bool = False, in_place: bool = False) -> None:
        """Show ``renderable`` (and the prompt after it). ``in_place``: nothing was typed
        or printed since the last screen, so only the lines that differ are rewritten and
        the cursor, with whatever the player has half typed, stays where it is."""
        if not self.redraw:
            if not self._first:
                self.console.print(Rule(style="dim"))
            self.console.print(renderable)
            if with_prompt:
                self.prompt()
            self._first = False
            return
        with self.console.capture() as captured:
            self.console.print(renderable)
            if with_prompt:
                self.console.print(render.prompt(), end="")
        lines = captured.get().split("\n")
        size = (self.console.width, self.console.height)
        last = self._lines
        if (in_place and not self._first and last is not None and self._size == size and len(last) == len(lines)
                and last[-1] == lines[-1]):
            self._rewrite_changed(last, lines)
        else:
            body = (CLEAR_LINE + "\n").join(lines)
            tall = len(lines) >= self.console.height
            prefix = CLEAR_SCREEN + HOME if self._first or tall else HOME
            self.console.file.write(prefix + body + CLEAR_BELOW)
            self.console.file.flush()
        self._lines, self._size = lines, size
        self._first = False

    def _rewrite_changed(self, last: list[str], lines: list[str]) -> None:
        """The lines that changed, each at its row; the last line (the prompt, or the empty
        line the cursor waits on) is the same and is left alone. A screen taller than the
        terminal scrolled: its first lines are off the top and are not written."""
        top = max(0, len(lines) - self.console.height)
        changed = [i for i in range(top, len(lines) - 1) if lines[i] != last[i]]
        if not changed:
            return
        parts = [SAVE_CURSOR]
        parts += [move_to(i - top + 1) + lines[i] + CLEAR_LINE for i in changed]
        parts.append(RESTORE_CURSOR)
        self.console.file.write("".join(parts))
        self.console.file.flush()

    def say(self, text: str | RenderableType, style: str = "", soft_wrap: bool = False) -> None:
        self._lines = None
        self.console.print(Text(text, style=style) if isinstance(text, str) else text, soft_wrap=soft_wrap)

    def ask(self, question: str | Text) -> None:
        """A question whose answer is read from the inbox."""
        self._lines = None
        self.console.print(question if isinstance(question, Text) else Text(question, style="bold"), end=" ")
        self.console.file.flush()

    def prompt(self) -> None:
        self._lines = None
        self.console.print(render.prompt(), end="")
        self.console.file.flush()

    def fresh(self) -> None:
        """The next screen starts on a clean terminal (after plain printing)."""
        self._first = True
        self._lines = None
