"""The table in few lines, for a terminal too small for the full screen (layout.py): one
line of header, the line without its frame, one short line per seat."""

from __future__ import annotations

from rich import box
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import families, seeds, view_reading

NAME_WIDTH = 16  # a seat's name, cut with an ellipsis beyond this


def header(view: pb.MatchView) -> Text:
    text = Text()
    where = "before the first deal" if seeds.waiting(view) else f"round {view.round_number}"
    text.append(f"{families.title(view.rules, view.variant)} · {where} · "
                f"{families.target_text(view.rules, view.target)} · "
                f"{families.timer_text(view.rules, view.turn_timer_seconds)}", style="bold")
    return text


def line(panel: Panel) -> Text:
    """The line panel's body, unframed, with what its frame said (the boneyard, the pot)."""
    body = panel.renderable
    text = Text("line ", style="dim")
    text.append_text(body if isinstance(body, Text) else Text(str(body)))
    if panel.subtitle:
        text.append(f"  · {panel.subtitle}", style="dim")
    return text


def seats(view: pb.MatchView, now: float) -> Table:
    """One line a seat: who, team, tiles, score and, for the seat to act, its time."""
    table = Table(box=box.SIMPLE, show_header=False, show_edge=False, pad_edge=False, padding=(0, 1))
    table.add_column(width=1)
    table.add_column(no_wrap=True, overflow="ellipsis", max_width=NAME_WIDTH)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(no_wrap=True, overflow="ellipsis")
    for seat, info in enumerate(view.seats):
        turn = seat == view_reading.turn(view) and not view_reading.is_ended(view)
        name = view_reading.seat_name(view, seat) + (f" {'AB'[seat % 2]}" if view.teams else "")
        side = view_reading.side_of(view, seat)
        score = view.scores[side] if side < len(view.scores) else 0
        notes = Text()
        if turn:
            notes.append(f"{view_reading.time_left(view, now)}", style="bold yellow")
        if info.away:
            notes.append(" away" if notes else "away", style="bold red")
        table.add_row(Text("▶" if turn else " ", style="bold yellow"),
                      Text(name, style="bold green" if view_reading.is_mine(view, seat) else ""),
                      f"{info.tile_count}t", f"{score}/{view.target}", notes)
    return table
