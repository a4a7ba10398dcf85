"""Long lines wrapped at word boundaries within the screen's width, each continuation line
indented, so a wrapped message or move reads as one item and not as the start of another
(a terminal wrapping them itself breaks words and starts again at the left edge)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

_MEASURE = Console(width=1000)  # what wrapping measures characters with (widths only)


def hanging(text: Text, width: int | None, indent: str = "  ", first: int = 0) -> Text:
    """``text`` in lines of at most ``width`` columns, broken between words, each line after
    the first starting with ``indent``; ``first``: columns already taken on the first line
    (what came before it). Unchanged without a width, or when it fits."""
    if width is None or width - len(indent) < 12:
        return text
    out = Text()
    for n, paragraph in enumerate(text.split("\n", allow_blank=True)):
        if n:
            out.append("\n")
        room = width - (first if n == 0 else 0)
        if len(paragraph.plain) <= room:
            out.append_text(paragraph)
            continue
        head = paragraph.wrap(_MEASURE, room)[0]
        head.rstrip()
        out.append_text(head)
        rest = paragraph[len(head.plain):]
        for line in _lstripped(rest).wrap(_MEASURE, width - len(indent)):
            line.rstrip()
            out.append("\n" + indent)
            out.append_text(line)
    return out


def _lstripped(text: Text) -> Text:
    plain = text.plain
    cut = len(plain) - len(plain.lstrip())
    return text[cut:]
