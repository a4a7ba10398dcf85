"""The questions every screen asks at the terminal, answered from the one inbox: a typed line,
one of a few answers (Enter takes the default), and the pause before the menu. Closed input
raises InputClosed, which ends the client."""

from __future__ import annotations

from rich.text import Text

from . import menu
from .inbox import Inbox, InputClosed
from .terminal import Output


def line(inbox: Inbox) -> str:
    while True:
        event = inbox.get()
        if event.kind == "line":
            return event.value
        if event.kind == "eof":
            raise InputClosed()


def ask(out: Output, inbox: Inbox, label: str, choices, default: str | None) -> str:
    while True:
        out.ask(f"{label} [{'/'.join(str(c) for c in choices)}]" + (f" ({default})" if default else "") + ":")
        answer = menu.pick(line(inbox), choices, default)
        if answer is not None:
            return answer
        out.say(f"Please answer one of: {', '.join(str(c) for c in choices)}.", style="red")


def ask_choice(out: Output, inbox: Inbox, label: str, choices, default: str, note: str = "") -> str:
    while True:
        out.ask(menu.question(label, choices, default, note) + ":")
        answer = menu.pick(line(inbox), choices, default)
        if answer is not None:
            return answer
        out.say(menu.unclear(choices), style="red")


def pause(out: Output, inbox: Inbox) -> None:
    out.ask(Text("Press Enter for the menu.", style="dim"))
    line(inbox)
