"""The round's last moves in words, one turn a line: who did what, where, and why.

A turn is a seat's actions in a row (draws, then a play or a pass), so "drew 2 tiles, then
played [4|1] on the right end" reads as one move; All Fives adds what a play scored. A pass
says why ("passed: nothing fits", "passed: time ran out"), and a move the server made for a
seat says so ("time ran out: played for you"). The list is always the last ``TURNS`` turns
(fewer only early in a round, or where the screen has no room), so it does not jump between
three and four lines as seats come and go.
"""

from __future__ import annotations

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import move_words, view_reading
from .pips import tile_text
from .wrapping import hanging
from .view_reading import DOWN, LEFT, RIGHT, UP


TURNS = 6  # turns listed


def recent_text(view: pb.MatchView, count: int | None = None, width: int | None = None) -> Text | None:
    """The round's last ``count`` turns (default ``TURNS``), oldest first; within ``width``
    columns a long line goes on under its own text, not under the names."""
    turns: list[tuple[int, list[pb.PublicAction]]] = []
    for action in view.round_actions:
        if turns and turns[-1][0] == action.seat and turns[-1][1][-1].kind == pb.MOVE_KIND_DRAW:
            turns[-1][1].append(action)
        else:
            turns.append((action.seat, [action]))
    turns = turns[-(count or TURNS):]
    if not turns:
        return None
    names = [view_reading.seat_name(view, seat) for seat, _ in turns]
    widest = max(len(n) for n in names)
    text = Text()
    indent = " " * (len("Last moves  ") + widest + 2)
    for i, ((seat, actions), name) in enumerate(zip(turns, names)):
        text.append("Last moves  " if i == 0 else "\n            ", style="dim")
        text.append(name.ljust(widest) + "  ", style="bold green" if view_reading.is_mine(view, seat) else "bold")
        said = _turn_text(view, actions)
        text.append_text(hanging(said, width, indent, first=len(indent)))
    return text


def _turn_text(view: pb.MatchView, actions: list[pb.PublicAction]) -> Text:
    text = Text()
    seat = actions[-1].seat
    draws = sum(1 for a in actions if a.kind == pb.MOVE_KIND_DRAW)
    if draws:
        text.append("drew a tile" if draws == 1 else f"drew {draws} tiles")
    final = actions[-1]
    if final.kind != pb.MOVE_KIND_DRAW:
        if draws:
            text.append(", then ")
        if final.kind == pb.MOVE_KIND_PASS:
            text.append(f"passed: {move_words.PASS_REASONS[move_words.cause(final)]}")
        elif final.kind == pb.MOVE_KIND_PLAY and final.HasField("tile"):
            opening = final.end not in (LEFT, RIGHT, UP, DOWN)
            text.append("opened the line with " if opening else "played ")
            text.append_text(tile_text(view_reading.tile_of(final.tile)))
            if not opening:
                text.append(f" on the {view_reading.END_NAMES[final.end]} end")
            if final.points:
                text.append(f"  +{final.points}", style="bold green")
    chosen = [a for a in actions if move_words.by_server(a)]
    if chosen and not (final.kind == pb.MOVE_KIND_PASS and move_words.by_server(final)):  # its reason says it
        text.append(f"  ({move_words.why_for(view, seat, move_words.cause(chosen[-1]))})", style="red")
    return text
