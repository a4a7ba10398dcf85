"""Screens as rich renderables: pure functions of what the servers sent and the time.

Nothing here reads input or talks to a server; tests turn the renderables into text with
``to_text`` (plain or coloured) and look at what a player would see.
"""

from __future__ import annotations

import io
import time

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import tiles
from .tiles import ANY, LEFT, RIGHT, Tile

PIP_STYLES = {0: "white", 1: "red", 2: "yellow", 3: "green", 4: "cyan", 5: "bright_blue", 6: "magenta"}
MARKS = {LEFT: "←", RIGHT: "→", ANY: "★"}
BOTH = "↔"
KIND_VERBS = {pb.MOVE_KIND_PLAY: "played", pb.MOVE_KIND_DRAW: "drew", pb.MOVE_KIND_PASS: "passed"}


def to_text(renderable: RenderableType, width: int = 100, color: bool = False) -> str:
    """What the renderable looks like on a terminal ``width`` columns wide."""
    console = Console(file=io.StringIO(), width=width, force_terminal=color, color_system="truecolor" if color else None,
                      highlight=False, emoji=False, legacy_windows=False)
    console.print(renderable)
    return console.file.getvalue()


def tile_text(tile: Tile, style: str = "") -> Text:
    """[6|4] with each half in its pip colour."""
    text = Text("[", style=style or "dim")
    text.append(str(tile[0]), style=f"bold {PIP_STYLES[tile[0]]}" if not style else style)
    text.append("|", style=style or "dim")
    text.append(str(tile[1]), style=f"bold {PIP_STYLES[tile[1]]}" if not style else style)
    text.append("]", style=style or "dim")
    return text


def end_text(pips: int) -> Text:
    """An open end, highlighted in its pip colour."""
    return Text(f" {pips} ", style=f"bold black on {PIP_STYLES[pips]}")


# ---- the game screen ------------------------------------------------------------------


def game_screen(view: pb.MatchView, now: float | None = None, message: str | Text = "",
                pending: Tile | None = None, auto: bool = False) -> Group:
    now = time.time() if now is None else now
    parts: list[RenderableType] = [header(view), line_panel(view), seats_table(view, now)]
    summary = rounds_text(view)
    if summary and not tiles.is_ended(view):
        parts.append(summary)
    recent = recent_text(view)
    if recent:
        parts.append(recent)
    if tiles.is_ended(view):
        parts.append(final_panel(view))
    else:
        parts.append(hand_text(view))
        parts.append(status_text(view, now, auto))
    if message:
        parts.append(message if isinstance(message, Text) else Text(message, style="bold yellow"))
    if not tiles.is_ended(view) and tiles.is_my_turn(view) and not auto:
        parts.append(prompt_hint(view, pending))
    return Group(*parts)


def header(view: pb.MatchView) -> Text:
    mode = "teams" if view.teams else "solo"
    timer = f"{view.turn_timer_seconds} s turns" if view.turn_timer_seconds else "no turn timer"
    text = Text()
    text.append(" domino ", style="bold white on dark_green")
    text.append(f"  {view.variant} · {mode} · to {view.target} · round {view.round_number} · {timer}",
                style="bold")
    text.append(f"\nmatch {view.match_id}", style="dim")
    return text


def line_panel(view: pb.MatchView) -> Panel:
    body = Text()
    if not view.line:
        body.append("The line is empty: the first tile opens it.", style="italic")
    else:
        body.append("open ", style="dim")
        body.append_text(end_text(view.left_end))
        body.append(" ◀ ", style="bold")
        for i, placed in enumerate(view.line):
            if i:
                body.append(" ")
            body.append_text(_placed(placed))
        body.append(" ▶ ", style="bold")
        body.append_text(end_text(view.right_end))
        body.append(" open", style="dim")
    subtitle = f"boneyard {view.boneyard_count}" if view.variant.startswith("draw") else None
    return Panel(body, title="the line", title_align="left", subtitle=subtitle, subtitle_align="right",
                 box=box.ROUNDED, padding=(0, 1))


def _placed(placed: pb.PlacedTile) -> Text:
    """A laid tile keeps its orientation: 6|4 then 4|1 reads left to right."""
    text = Text(str(placed.left), style=f"bold {PIP_STYLES[placed.left]}")
    text.append("|", style="dim")
    text.append(str(placed.right), style=f"bold {PIP_STYLES[placed.right]}")
    return text


def seats_table(view: pb.MatchView, now: float) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("", width=1)
    table.add_column("seat", justify="right")
    table.add_column("player")
    if view.teams:
        table.add_column("team")
    table.add_column("tiles", justify="right")
    table.add_column(f"score/{view.target}", justify="right")
    table.add_column("")
    for seat, info in enumerate(view.seats):
        turn = seat == view.turn and not tiles.is_ended(view)
        name = Text(tiles.seat_name(view, seat), style="bold green" if seat == view.your_seat else "")
        side = tiles.side_of(view, seat)
        score = str(view.scores[side]) if side < len(view.scores) else "0"
        notes = Text()
        if turn:
            notes.append(f"to play, {tiles.time_left(view, now)}", style="bold yellow")
        if info.away:
            notes.append(" away" if notes else "away", style="bold red")
        row = [Text("▶" if turn else " ", style="bold yellow"), str(seat), name]
        if view.teams:
            row.append("AB"[seat % 2])
        row += [str(info.tile_count), score, notes]
        table.add_row(*row)
    return table


def recent_text(view: pb.MatchView, count: int | None = None) -> Text | None:
    actions = list(view.round_actions)[-(count or max(3, len(view.seats) + 1)):]
    if not actions:
        return None
    text = Text("Lately: ", style="dim")
    for i, action in enumerate(actions):
        if i:
            text.append(" · ", style="dim")
        who = tiles.seat_name(view, action.seat)
        text.append(f"{who} {KIND_VERBS.get(action.kind, '?')}")
        if action.kind == pb.MOVE_KIND_PLAY and action.HasField("tile"):
            text.append(" ")
            text.append_text(tile_text(tiles.tile_of(action.tile)))
            if action.end in (LEFT, RIGHT):
                text.append(f" {tiles.END_NAMES[action.end]}")
        if action.timeout:
            text.append(" (timed out)", style="red")
    return text


def round_text(view: pb.MatchView, number: int, summary: pb.RoundSummary) -> str:
    if summary.winner < 0:
        return f"Round {number}: blocked, a tie — no points"
    who = tiles.side_name(view, summary.winner)
    how = "dominoed" if summary.reason == "domino" else "won the blocked round"
    return f"Round {number}: {who} {how}, +{summary.points}"


def rounds_text(view: pb.MatchView) -> Text | None:
    if not view.rounds:
        return None
    last = len(view.rounds)
    return Text(round_text(view, last, view.rounds[-1]), style="cyan")


def hand_text(view: pb.MatchView) -> Text:
    held = tiles.hand(view)
    legal = tiles.plays(view) if tiles.is_my_turn(view) else {}
    text = Text("Your hand  ", style="bold")
    if not held:
        text.append("(empty)", style="dim")
    for number, tile in enumerate(held, 1):
        ends = legal.get(tile)
        text.append(f"{number})", style="bold" if ends else "dim")
        text.append_text(tile_text(tile) if ends or not legal else tile_text(tile, style="dim"))
        if ends:
            mark = BOTH if tiles.end_choice_matters(view, ends) else MARKS[tiles.default_end(view, ends)]
            text.append(mark, style="bold yellow")
        text.append("  ")
    if legal:
        text.append("\n           ")
        text.append("← fits left  → fits right  ↔ fits both ends  ★ opens the line", style="dim")
    return text


def status_text(view: pb.MatchView, now: float, auto: bool = False) -> Text:
    left = tiles.time_left(view, now)
    if view.your_seat >= 0 and view.seats[view.your_seat].away:
        return Text("You are marked away: the server plays your turns. Press Enter to come back.",
                    style="bold red")
    if tiles.is_my_turn(view):
        text = Text("Your turn", style="bold green")
        text.append(f" — {left}.")
        if auto:
            text.append(" (playing automatically)", style="dim")
        return text
    if view.turn < 0:
        return Text("Between rounds…", style="dim")
    if view.turn == view.your_seat:
        return Text("Nothing of yours fits: you pass.", style="dim")
    text = Text(f"Waiting for {tiles.seat_name(view, view.turn)}", style="bold")
    text.append(f" — {left}.  (q leaves, Enter refreshes)", style="dim")
    return text


def prompt_hint(view: pb.MatchView, pending: Tile | None) -> Text:
    if pending is not None:
        return Text(f"{tiles.show(pending)} fits both ends: l (left, {view.left_end}) or r (right, {view.right_end})?",
                    style="bold")
    if tiles.can_draw(view) and not tiles.plays(view):
        return Text("Nothing fits: d to draw.", style="bold")
    return Text("Tile number (add l/r if it fits both ends), ? for help:", style="bold")


def prompt() -> Text:
    return Text("> ", style="bold green")


def final_panel(view: pb.MatchView) -> Panel:
    body = Text()
    body.append(f"Match over — {tiles.winner_text(view)}\n", style="bold green" if _won(view) else "bold")
    sides = range(len(view.scores))
    body.append("Final scores: " + " · ".join(f"{tiles.side_name(view, s)} {view.scores[s]}" for s in sides))
    for number, summary in enumerate(view.rounds, 1):
        body.append("\n" + round_text(view, number, summary), style="dim")
    return Panel(body, box=box.DOUBLE, title="result", title_align="left")


def _won(view: pb.MatchView) -> bool:
    return view.winner >= 0 and view.your_seat >= 0 and tiles.side_of(view, view.your_seat) == view.winner


def result_line(view: pb.MatchView) -> str:
    """One plain line for scripts: the outcome and the scores."""
    scores = ", ".join(f"{tiles.side_name(view, s)} {view.scores[s]}" for s in range(len(view.scores)))
    return f"match {view.match_id} ended: {tiles.winner_text(view)} ({scores})"


# ---- menus, rooms and tables ----------------------------------------------------------


def banner(player: str, match_address: str, matchmaking_address: str) -> Text:
    text = Text()
    text.append(" domino ", style="bold white on dark_green")
    text.append("  playing as ")
    text.append(player, style="bold")
    text.append(f"   (match {match_address}, matchmaking {matchmaking_address})", style="dim")
    return text


def menu(items: list[tuple[str, str]], title: str = "What would you like to do?") -> Text:
    text = Text(title + "\n", style="bold")
    for key, label in items:
        text.append(f"  {key}) ", style="bold cyan")
        text.append(label + "\n")
    return text


def options_text(options: mm.MatchOptions) -> str:
    mode = "teams" if options.teams else "solo"
    timer = f"{options.turn_timer_seconds} s turns" if options.turn_timer_seconds else "no turn timer"
    return f"{options.variant} · {mode} · to {options.target} · {timer}"


ROOM_STATUS = {mm.ROOM_STATUS_OPEN: "open", mm.ROOM_STATUS_STARTING: "starting", mm.ROOM_STATUS_PLAYING: "playing",
               mm.ROOM_STATUS_CLOSED: "closed"}


def room_screen(room: mm.RoomView, me: str, message: str = "") -> Group:
    host = room.host_id == me
    code = Text()
    code.append("Invite code  ", style="bold")
    code.append(f" {room.code} ", style="bold black on yellow")
    code.append("   friends join with: domino play --join " + room.code, style="dim")
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("seat", justify="right")
    table.add_column("player")
    if room.options.teams:
        table.add_column("team")
    for seat in room.seats:
        if not seat.player_id:
            who = Text("(free)", style="dim")
        elif seat.player_id == me:
            who = Text("you" + (" (host)" if host else ""), style="bold green")
        else:
            who = Text(tiles.player_name(seat.player_id) + (" (host)" if seat.player_id == room.host_id else ""))
        row = [str(seat.seat), who]
        if room.options.teams:
            row.append("AB"[seat.team] if seat.team >= 0 else "")
        table.add_row(*row)
    parts: list[RenderableType] = [
        Text.assemble((" room ", "bold white on dark_green"), f"  {options_text(room.options)}",
                      (f"   {ROOM_STATUS.get(room.status, '?')}", "bold")),
        code, table,
    ]
    if room.status == mm.ROOM_STATUS_CLOSED:
        parts.append(Text(f"The room is closed: {room.closed_reason or 'closed'}.", style="bold red"))
    elif host:
        free = sum(1 for s in room.seats if not s.player_id)
        parts.append(Text("b [SEAT] [random|greedy|strong] adds a bot · k SEAT removes one · m SEAT moves you\n"
                          "s starts" + (f" (when full: {free} free)" if free else " (everyone is here)")
                          + " · q leaves (closes the room)", style="dim"))
    else:
        parts.append(Text("Waiting for the host to start · m SEAT moves you · q leaves", style="dim"))
    if message:
        parts.append(Text(message, style="bold yellow"))
    return Group(*parts)


TICKET_STATUS = {mm.TICKET_STATUS_WAITING: "waiting for players", mm.TICKET_STATUS_SEATED: "seated",
                 mm.TICKET_STATUS_CANCELLED: "cancelled", mm.TICKET_STATUS_ENDED: "ended"}


def ticket_screen(ticket: mm.TicketView, now: float) -> Group:
    mode = "teams" if ticket.teams else "solo"
    text = Text.assemble((" table ", "bold white on dark_green"), f"  public {ticket.variant} · {mode}   ",
                         (TICKET_STATUS.get(ticket.status, "?"), "bold"))
    lines: list[RenderableType] = [text]
    if ticket.status == mm.TICKET_STATUS_WAITING:
        waited = max(0, int(now - ticket.requested_at.ToNanoseconds() / 1e9)) if ticket.HasField("requested_at") else 0
        lines.append(Text(f"Looking for players… {waited} s (empty seats get bots after a while). q cancels.",
                          style="dim"))
    elif ticket.status == mm.TICKET_STATUS_SEATED:
        lines.append(Text("Seated: " + ", ".join(tiles.player_name(p) for p in ticket.seats)
                          + (" — starting the match…" if not ticket.match_id else "")))
    return Group(*lines)
