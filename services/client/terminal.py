"""Where screens go: a rich Console, redrawn in place when it is a terminal."""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.text import Text

from . import render

HOME, CLEAR_LINE, CLEAR_BELOW = "\x1b[H", "\x1b[K", "\x1b[J"


class Output:
    """``redraw``: each screen replaces the last (cursor home, lines cleared as they are
    written over, so nothing flickers); otherwise screens follow each other, separated by
    a rule, which is what a log or a pipe wants."""

    def __init__(self, console: Console | None = None, redraw: bool | None = None) -> None:
        self.console = console or Console(highlight=False, emoji=False)
        self.redraw = self.console.is_terminal if redraw is None else redraw
        self._first = True

    def screen(self, renderable: RenderableType, with_prompt: bool = False) -> None:
        if self.redraw:
            with self.console.capture() as captured:
                self.console.print(renderable)
                if with_prompt:
                    self.console.print(render.prompt(), end="")
            text = captured.get()
            lines = text.split("\n")
            body = (CLEAR_LINE + "\n").join(lines)
            tall = len(lines) >= self.console.height
            prefix = "\x1b[2J" + HOME if self._first or tall else HOME
            self.console.file.write(prefix + body + CLEAR_BELOW)
            self.console.file.flush()
        else:
            if not self._first:
                self.console.print(Rule(style="dim"))
            self.console.print(renderable)
            if with_prompt:
                self.prompt()
        self._first = False

    def say(self, text: str | RenderableType, style: str = "", soft_wrap: bool = False) -> None:
        self.console.print(Text(text, style=style) if isinstance(text, str) else text, soft_wrap=soft_wrap)

    def ask(self, question: str | Text) -> None:
        """A question whose answer is read from the inbox."""
        self.console.print(question if isinstance(question, Text) else Text(question, style="bold"), end=" ")
        self.console.file.flush()

    def prompt(self) -> None:
        self.console.print(render.prompt(), end="")
        self.console.file.flush()

    def fresh(self) -> None:
        """The next screen starts on a clean terminal (after plain printing)."""
        self._first = True
