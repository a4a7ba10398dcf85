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

from . import compact, families, layout, lead_words, rounds, seeds, view_reading
from .pips import PIP_STYLES, end_text, tile_text
from .recent import recent_text
from .view_reading import ANY, DOWN, LEFT, RIGHT, UP, Tile
from .wrapping import hanging

#: What leaving a match (LeaveMatch) means, said wherever the player meets it.
LEFT_FOR_GOOD = ("You left this match for good: the server plays your seat to the end and will not give it "
                 "back.")
#: Asked before a player leaves for good: leaving is a loss, whatever the stand-in does.
LEAVE_PROMPT = ("Leave this match for good? It counts as your loss (in teams, your side's), and a rated match "
                "rates it as one, whatever the server's play for your seat scores; the server plays your seat "
                "to the end and never gives it back. Type leave match again to leave; anything else stays.")
MARKS = {LEFT: "←", RIGHT: "→", UP: "↑", DOWN: "↓", ANY: "★"}
BOTH = "↔"
LAST_PLAYED = "on grey30 underline"  # added to the tile just played on the line
HAND_LABEL = "Your hand  "


def to_text(renderable: RenderableType, width: int = 100, color: bool = False) -> str:
    """What the renderable looks like on a terminal ``width`` columns wide."""
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, color_system="truecolor" if color else None,
                      highlight=False, emoji=False, legacy_windows=False)
    console.print(renderable)
    return out.getvalue()


# ---- the game screen ------------------------------------------------------------------


def game_screen(view: pb.MatchView, now: float | None = None, message: str | Text = "",
                pending: Tile | None = None, auto: bool = False, round_panel: RenderableType | None = None,
                talk: RenderableType | None = None, width: int | None = None, height: int | None = None) -> Group:
    """The table as the player sees it; ``round_panel``: the last round's end (its hands),
    shown above the result once the match is over; ``talk``: the table talk (talk.talk_text).
    ``width``: long lines wrap within it, indented; with ``height`` too, the screen is laid
    out to fit a terminal that size (layout.py)."""
    now = time.time() if now is None else now
    said = hanging(message if isinstance(message, Text) else Text(message, style="bold yellow"), width)

    def compose(level: int, turns: int) -> list[RenderableType]:
        head = hanging(compact.header(view), width) if level >= layout.COMPACT else header(view, level >= layout.BRIEF)
        seats = compact.seats(view, now) if level >= layout.COMPACT else seats_table(view, now)
        if seeds.waiting(view):  # no round yet: no line, no hand, no turn; whose seed it waits for
            waits: list[RenderableType] = [head, seats, seeds.waiting_text(view)]
            return waits + ([talk] if talk is not None else []) + ([said] if message else [])
        line = hanging(compact.line(line_panel(view)), width, " " * 5) if level >= layout.COMPACT else line_panel(view)
        parts: list[RenderableType] = [head, line, seats]
        parts += _table_news(view, talk if level < layout.BARE else None, width, turns)
        if view_reading.is_ended(view):
            if round_panel is not None:
                parts.append(round_panel)
            parts.append(rounds.final_panel(view))
        else:
            parts.append(hanging(hand_text(view, key=level == layout.FULL), width, indent=" " * len(HAND_LABEL)))
            parts.append(hanging(status_text(view, now, auto), width))
        if message:
            parts.append(said)
        if not view_reading.is_ended(view) and view_reading.is_my_turn(view) and not auto:
            hint = prompt_hint(view, pending)
            if level >= layout.BARE and pending is None and not hint.plain.startswith("Nothing fits"):
                hint = Text("Tile number, ? for help:", style="bold")
            parts.append(hanging(hint, width))
        return parts

    if width is None or height is None or view_reading.is_ended(view):
        return Group(*compose(layout.FULL, layout.TURNS))
    return layout.fit(compose, width, height)


def header(view: pb.MatchView, brief: bool = False) -> Text:
    text = Text()
    text.append(" domino ", style="bold white on dark_green")
    text.append(f"  {families.setup_text(view.rules, view.variant, len(view.seats), view.teams)} · "
                f"{families.target_text(view.rules, view.target)} · "
                f"{'before the first deal' if seeds.waiting(view) else f'round {view.round_number}'} · "
                f"{families.timer_text(view.rules, view.turn_timer_seconds)}", style="bold")
    played = families.options_of(view)
    if families.family(view.rules).options and played:
        options = families.options_text(played, view.rules)
        text.append(f"\nlowest total wins · {options}" if view_reading.is_goat(view) else f"\n{options}", style="dim")
    if not brief:
        text.append(f"\nmatch {view.match_id}", style="dim")
    return text


def line_panel(view: pb.MatchView) -> Panel:
    body = Text()
    last = last_played(view)
    if not view.line:
        body.append("The line is empty: the first tile opens it.", style="italic")
    else:
        body.append("open ", style="dim")
        body.append_text(end_text(view_reading.end_number(view, LEFT)))
        body.append(" ◀ ", style="bold")
        spinner_column = -1
        for i, placed in enumerate(view.line):
            if i:
                body.append(" ")
            spinner = view_reading.four_ends(view) and i == view_reading.spinner_index(view)
            if spinner:
                spinner_column = len(body.plain)
            body.append_text(_placed(placed, spinner=spinner, last=last))
        body.append(" ▶ ", style="bold")
        body.append_text(end_text(view_reading.end_number(view, RIGHT)))
        body.append(" open", style="dim")
    if view_reading.four_ends(view) and view.line:
        _spinner_rows(view, body, spinner_column, last)
    subtitle = f"boneyard {view.boneyard_count}" if view_reading.has_boneyard(view) else None
    if view_reading.is_goat(view) and view.pot:
        subtitle = f"pot {view.pot}" + (f" · {subtitle}" if subtitle else "")
    return Panel(body, title="the line", title_align="left", subtitle=subtitle, subtitle_align="right",
                 box=box.ROUNDED, padding=(0, 1))


def _spinner_rows(view: pb.MatchView, body: Text, column: int, last: Tile | None = None) -> None:
    """All Fives: the spinner's up and down sides under it (closed until it opens), then
    what each end counts now and their total (``counting_text``)."""
    spinner_at = view_reading.spinner_index(view)
    if spinner_at is not None:
        indent = " " * max(column, 0)
        for end, arrow, arm in ((UP, "▲", view.up_line), (DOWN, "▼", view.down_line)):
            body.append(f"\n{indent}{arrow} {view_reading.END_NAMES[end]:<5}", style="bold")
            number = view_reading.end_number(view, end)
            if number is None:
                body.append("closed (opens once the spinner has a tile on both sides)", style="dim")
                continue
            for placed in arm:
                body.append_text(_placed(placed, last=last))
                body.append(" ")
            body.append("▶ ", style="bold")
            body.append_text(end_text(number))
            if not arm:
                body.append(" open, nothing on it yet (not counted)", style="dim")
    body.append("\n")
    if spinner_at is None:
        body.append("no spinner yet: the first double becomes it · ", style="dim")
    else:
        spinner = view.line[spinner_at]
        body.append(f"spinner {spinner.left}|{spinner.right} · ", style="dim")
    body.append_text(counting_text(view))


def counting_text(view: pb.MatchView) -> Text:
    """What each end counts now and the total the server scores by: ``counting: left 6|6
    counts 12 · right 2 · total 14``. An outer double shows its tile and both halves. Up and
    down are left out until a tile lies on them (the rows above say "closed", or "not
    counted" for an open side with nothing on it); the lone first tile counts once."""
    text = Text("counting: ")
    lone = view_reading.lone_first_tile(view)
    if lone is not None:
        text.append(f"the first tile alone, once: {view_reading.show(lone)} counts {lone[0] + lone[1]}")
    else:
        counts = view_reading.end_counts(view)
        names = view_reading.END_NAMES
        text.append(" · ".join(f"{names[end]} {view_reading.show(tile)} counts {count}" if tile[0] == tile[1]
                               else f"{names[end]} {count}"
                               for end, (tile, count) in sorted(counts.items())))
    text.append(" · ")
    text.append(f"total {view.ends_total}", style="bold")
    return text


def _placed(placed: pb.PlacedTile, spinner: bool = False, last: Tile | None = None) -> Text:
    """A laid tile keeps its orientation: 6|4 then 4|1 reads left to right. The spinner is
    shown reversed; the tile just played (``last``) underlined on a grey ground."""
    extra = (" reverse" if spinner else "") + (
        f" {LAST_PLAYED}" if last is not None and view_reading.tile_of(placed_tile(placed)) == last else "")
    text = Text(str(placed.left), style=f"bold {PIP_STYLES[placed.left]}{extra}")
    text.append("|", style=f"bold{extra}" if extra else "dim")
    text.append(str(placed.right), style=f"bold {PIP_STYLES[placed.right]}{extra}")
    return text


def placed_tile(placed: pb.PlacedTile) -> pb.Tile:
    return pb.Tile(low=min(placed.left, placed.right), high=max(placed.left, placed.right))


def last_played(view: pb.MatchView) -> Tile | None:
    """The tile of the round's latest play (passes and draws may have followed it)."""
    for action in reversed(view.round_actions):
        if action.kind == pb.MOVE_KIND_PLAY and action.HasField("tile"):
            return view_reading.tile_of(action.tile)
    return None


def spectator_screen(view: pb.MatchView, message: str | Text = "", talk: RenderableType | None = None,
                     round_panel: RenderableType | None = None) -> Group:
    """The table as a spectator sees it: the public view one turn behind (the server holds
    back each seat's newest turn until the next seat acts), no hand, nothing to play;
    ``round_panel``: the last round's end, above the result once the match is over."""
    parts: list[RenderableType] = [header(view)]
    if view_reading.is_ended(view):
        parts.append(Text("Watching as a spectator — the match is over: everything is shown.", style="bold cyan"))
    else:
        parts.append(Text("Watching as a spectator · ONE TURN BEHIND the table (a seat's newest turn shows once "
                          "the next seat acts) · no hands", style="bold cyan"))
    parts += [line_panel(view), seats_table(view, 0.0, countdown=False)]
    parts += _table_news(view, talk)
    if view_reading.is_ended(view):
        if round_panel is not None:
            parts.append(round_panel)
        parts.append(rounds.final_panel(view))
    elif seeds.waiting(view):
        parts.append(seeds.waiting_text(view))
    elif view_reading.turn(view) is None:
        parts.append(Text("Between rounds…", style="dim"))
    else:
        status = Text(f"{view_reading.seat_name(view, view_reading.turn(view))} to play", style="bold")
        status.append(" (as of this view: one turn behind the table)", style="dim")
        parts.append(status)
    if message:
        parts.append(message if isinstance(message, Text) else Text(message, style="bold yellow"))
    parts.append(Text("q leaves · Enter refreshes · ? help (spectators only watch: no moves, no chat)",
                      style="dim"))
    return Group(*parts)


def seats_table(view: pb.MatchView, now: float, countdown: bool = True) -> Table:
    """``countdown``: the seconds the seat to act has left (not for a spectator's view,
    which is a turn behind)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("", width=1)
    table.add_column("seat", justify="right")
    table.add_column("player")
    if view.teams:
        table.add_column("team")
    table.add_column("tiles", justify="right")
    table.add_column(f"score/{view.target}", justify="right")
    accounts = _shows_accounts(view)
    if accounts:
        table.add_column("remembered", justify="right")
        table.add_column("account")
    table.add_column("")
    for seat, info in enumerate(view.seats):
        turn = seat == view_reading.turn(view) and not view_reading.is_ended(view)
        name = Text(view_reading.seat_name(view, seat), style="bold green" if view_reading.is_mine(view, seat) else "")
        side = view_reading.side_of(view, seat)
        score = str(view.scores[side]) if side < len(view.scores) else "0"
        notes = Text()
        if turn:
            notes.append(f"to play, {view_reading.time_left(view, now)}" if countdown else "to play",
                         style="bold yellow")
        if info.away:
            notes.append(" away" if notes else "away", style="bold red")
        row: list[RenderableType] = [Text("▶" if turn else " ", style="bold yellow"), str(seat), name]
        if view.teams:
            row.append("AB"[seat % 2])
        row += [str(info.tile_count), score]
        if accounts:
            row += [str(view.remembered[side]) if side < len(view.remembered) else "0",
                    Text("open", style="green") if side < len(view.accounts_open) and view.accounts_open[side]
                    else Text("closed", style="dim")]
        row.append(notes)
        table.add_row(*row)
    return table


def _shows_accounts(view: pb.MatchView) -> bool:
    """Goat with remembered points: each side's remembered points and open account."""
    return view_reading.is_goat(view) and (bool(families.option_of(view, "remembered")) or any(view.remembered))


def hand_text(view: pb.MatchView, key: bool = True) -> Text:
    """The player's tiles, numbered, each marked with the ends it fits; ``key``: what the marks mean."""
    held = view_reading.hand(view)
    legal = view_reading.plays(view) if view_reading.is_my_turn(view) else {}
    four = view_reading.four_ends(view)
    text = Text(HAND_LABEL, style="bold")
    if not held:
        text.append("(empty)", style="dim")
    for number, tile in enumerate(held, 1):
        ends = legal.get(tile)
        text.append(f"{number})", style="bold" if ends else "dim")
        text.append_text(tile_text(tile) if ends or not legal else tile_text(tile, style="dim"))
        if ends:
            text.append(_marks(view, ends), style="bold yellow")
        text.append("  ")
    if legal and key:
        text.append("\n           ")
        if four:
            text.append("← left  → right  ↑ up  ↓ down (the ends it fits)  ★ opens the line", style="dim")
        else:
            text.append("← fits left  → fits right  ↔ fits both ends  ★ opens the line", style="dim")
    return text


def _marks(view: pb.MatchView, ends: set[int]) -> str:
    if ANY in ends:
        return MARKS[ANY]
    if view_reading.four_ends(view):
        return "".join(MARKS[e] for e in view_reading.ENDS if e in ends)
    end = view_reading.default_end(view, ends)  # None when the choice matters
    return BOTH if end is None else MARKS[end]


def status_text(view: pb.MatchView, now: float, auto: bool = False) -> Text:
    left = view_reading.time_left(view, now)
    mine = view_reading.your_seat(view)
    seat = view.seats[mine] if mine is not None and 0 <= mine < len(view.seats) else None
    if seat is not None and seat.left:
        return Text(LEFT_FOR_GOOD + " q closes this screen.", style="bold red")
    if seat is not None and seat.away:
        return Text("You are marked away: the server plays your turns. Type back (or a move) to play them "
                    "again; Enter only refreshes, q leaves.", style="bold red")
    if view_reading.is_my_turn(view):
        text = Text("Your turn", style="bold green")
        text.append(f" — {left}{_move_seconds(view)}.")
        if auto:
            text.append(" (playing automatically)", style="dim")
        return text
    to_act = view_reading.turn(view)
    if to_act is None:
        return Text("Between rounds…", style="dim")
    text = Text(f"Waiting for {view_reading.seat_name(view, to_act)}", style="bold")
    text.append(f" — {left}{_move_seconds(view)}.  (q leaves, Enter refreshes)", style="dim")
    return text


def _move_seconds(view: pb.MatchView) -> str:
    """A family with a per-move timer (Sports) times each move itself: say what this one was given."""
    if families.family(view.rules).per_move_timer and view.turn_seconds:
        return f" (this move: {view.turn_seconds} s)"
    return ""


def prompt_hint(view: pb.MatchView, pending: Tile | None) -> Text:
    if pending is not None:
        ends = view_reading.plays(view).get(pending, set())
        if view_reading.four_ends(view):
            return end_question(view, pending, ends)
        return Text(f"{view_reading.show(pending)} fits both ends: l (left, {view_reading.end_number(view, LEFT)}) "
                    f"or r (right, {view_reading.end_number(view, RIGHT)})?", style="bold")
    if view_reading.can_draw(view) and not view_reading.plays(view):
        return Text("Nothing fits: d to draw.", style="bold")
    opening = lead_words.opening_hint(view)
    if opening:
        return Text(opening + " Tile number, ? for help:", style="bold")
    if view_reading.four_ends(view):
        return Text("Tile number (add l/r/u/d to name the end; d alone draws), ? for help:", style="bold")
    return Text("Tile number (add l/r if it fits both ends), ? for help:", style="bold")


def end_question(view: pb.MatchView, tile: Tile, ends: set[int]) -> Text:
    """All Fives: which end, with what each would score, 0 included, so the choice is made
    on the points: ``Play 5|3 on left (l, scores 10) or right (r, scores 0)?``."""
    offers = [f"{view_reading.END_NAMES[end]} ({view_reading.END_KEYS[end]}, "
              f"scores {view_reading.points_if(view, tile, end)})" for end in view_reading.ENDS if end in ends]
    listed = offers[0] if len(offers) == 1 else ", ".join(offers[:-1]) + " or " + offers[-1]
    return Text(f"Play {view_reading.show(tile)} on {listed}? (Enter cancels)", style="bold")


def prompt() -> Text:
    return Text("> ", style="bold green")


def _table_news(view: pb.MatchView, talk: RenderableType | None, width: int | None = None,
                turns: int | None = None) -> list[RenderableType]:
    """What happened lately, under the table: the last round's end (Goat: every round's
    writes so far), the newest ``turns`` actions (None: recent.TURNS; 0: none), the talk."""
    parts: list[RenderableType] = []
    summary = rounds.goat_writes(view) if view_reading.is_goat(view) else rounds.last_round_text(view)
    if summary and not view_reading.is_ended(view):
        parts.append(summary)
    recent = recent_text(view, turns, width) if turns != 0 else None
    if recent:
        parts.append(recent)
    if talk is not None:
        parts.append(talk)
    return parts
