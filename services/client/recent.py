"""The round's last moves in words, one turn a line: who did what, and where.

A turn is a seat's actions in a row (draws, then a play or a pass), so "drew 2 tiles, then
played [4|1] on the right end" reads as one move; All Fives adds what a play scored.
"""

from __future__ import annotations

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import view_reading
from .pips import tile_text
from .view_reading import DOWN, LEFT, RIGHT, UP


def recent_text(view: pb.MatchView, count: int | None = None) -> Text | None:
    """The round's last ``count`` turns (default: one round of the table, at least 3), oldest first."""
    turns: list[tuple[int, list[pb.PublicAction]]] = []
    for action in view.round_actions:
        if turns and turns[-1][0] == action.seat and turns[-1][1][-1].kind == pb.MOVE_KIND_DRAW:
            turns[-1][1].append(action)
        else:
            turns.append((action.seat, [action]))
    turns = turns[-(count or max(3, len(view.seats))):]
    if not turns:
        return None
    names = [view_reading.seat_name(view, seat) for seat, _ in turns]
    width = max(len(n) for n in names)
    text = Text()
    for i, ((seat, actions), name) in enumerate(zip(turns, names)):
        text.append("Last moves  " if i == 0 else "\n            ", style="dim")
        text.append(name.ljust(width) + "  ", style="bold green" if seat == view.your_seat else "bold")
        text.append_text(_turn_text(view, actions))
    return text


def _turn_text(view: pb.MatchView, actions: list[pb.PublicAction]) -> Text:
    text = Text()
    draws = sum(1 for a in actions if a.kind == pb.MOVE_KIND_DRAW)
    if draws:
        text.append("drew a tile" if draws == 1 else f"drew {draws} tiles")
    final = actions[-1]
    if final.kind != pb.MOVE_KIND_DRAW:
        if draws:
            text.append(", then ")
        if final.kind == pb.MOVE_KIND_PASS:
            text.append("passed (nothing fitted)")
        elif final.kind == pb.MOVE_KIND_PLAY and final.HasField("tile"):
            opening = final.end not in (LEFT, RIGHT, UP, DOWN)
            text.append("opened the line with " if opening else "played ")
            text.append_text(tile_text(view_reading.tile_of(final.tile)))
            if not opening:
                text.append(f" on the {view_reading.END_NAMES[final.end]} end")
            if final.points:
                text.append(f"  +{final.points}", style="bold green")
    if any(a.timeout for a in actions):
        text.append("  (time ran out: the server moved)", style="red")
    return text
