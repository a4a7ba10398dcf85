"""The player's past matches and the ratings, as screens: pure functions of what
ListMyMatches, GetRating and GetLeaderboard answered."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import families, names, view_reading

PAGE = 10  # matches a page
TOP = 10  # players on the leaderboard

RESULTS = {pb.MATCH_RESULT_WON: ("won", "bold green"), pb.MATCH_RESULT_LOST: ("lost", "red"),
           pb.MATCH_RESULT_TIED: ("tied", "yellow"), pb.MATCH_RESULT_ABANDONED: ("abandoned", "dim"),
           pb.MATCH_RESULT_IN_PLAY: ("in play", "bold cyan")}


def when(stamp, tz: tzinfo | None = None) -> str:
    """A Timestamp as "2025-03-14 18:05" (local time unless ``tz``)."""
    if stamp is None or not (stamp.seconds or stamp.nanos):
        return "—"
    return datetime.fromtimestamp(stamp.seconds + stamp.nanos / 1e9, tz).strftime("%Y-%m-%d %H:%M")


def rated_name(player_id: str) -> str:
    """Bots are rated by strength: "bot:strong:3" (a seat) and "bot:strong" both read "bot:strong";
    players by their display name."""
    if player_id.startswith("bot:"):
        return ":".join(player_id.split(":")[:2])
    return names.name(player_id)


def seats_text(summary: pb.MatchSummary) -> str:
    names = []
    for seat, player in enumerate(summary.player_ids):
        names.append("you" if seat == summary.your_seat else view_reading.player_name(player))
    if summary.teams and len(names) == 4:
        return f"{names[0]} & {names[2]} v {names[1]} & {names[3]}"
    return ", ".join(names)


def result_text(summary: pb.MatchSummary) -> Text:
    """"lost (you left)" when the player left: a leaver loses whatever the stand-in scored."""
    result, style = RESULTS.get(summary.result, ("?", ""))
    if summary.you_left:
        result += " (you left)"
    return Text(result, style=style)


def setup_text(summary: pb.MatchSummary) -> str:
    """The family and team setting, and "unrated" for a match that moved no rating (practice)."""
    text = f"{families.title(summary.rules, summary.variant)} · {'teams' if summary.teams else 'solo'}"
    return text if summary.rated or summary.result == pb.MATCH_RESULT_IN_PLAY else text + " · unrated"


def matches_table(matches, first: int = 1, tz: tzinfo | None = None) -> RenderableType:
    """One page of MatchSummary, numbered from ``first``."""
    if not matches:
        return Text("No matches yet: they show here once you have played.", style="dim")
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", style="bold cyan")
    table.add_column("date")
    table.add_column("family")
    table.add_column("seats")
    table.add_column("result")
    table.add_column("scores", justify="right")
    for number, m in enumerate(matches, first):
        table.add_row(str(number), when(m.started_at, tz), setup_text(m), seats_text(m), result_text(m),
                      " – ".join(str(s) for s in m.scores))
    return table


def history_screen(matches, page: int, more: bool, tz: tzinfo | None = None) -> Group:
    """Page ``page`` (0-based) of the player's matches, newest first, and what to type."""
    title = Text.assemble((" your matches ", "bold white on dark_green"), f"  newest first · page {page + 1}")
    keys = []
    if matches:
        keys.append("a number exports that match")
    if more:
        keys.append("n next page")
    if page:
        keys.append("p previous page")
    keys.append("Enter goes back to the menu")
    return Group(title, matches_table(matches, page * PAGE + 1, tz), Text(" · ".join(keys), style="dim"))


@dataclass(frozen=True)
class HistoryCommand:
    action: str  # "export", "next", "previous", "back", "invalid"
    number: int = 0
    message: str = ""


def parse_history(line: str, first: int, count: int, more: bool, page: int) -> HistoryCommand:
    """What a line typed under a page of ``count`` matches numbered from ``first`` asks."""
    text = line.strip().lower()
    if text in ("", "q", "quit", "b", "back"):
        return HistoryCommand("back")
    if text in ("n", "next"):
        return HistoryCommand("next") if more else HistoryCommand("invalid", message="This is the last page.")
    if text in ("p", "prev", "previous"):
        return HistoryCommand("previous") if page else HistoryCommand("invalid", message="This is the first page.")
    if text.isdigit() and first <= int(text) < first + count:
        return HistoryCommand("export", int(text))
    if text.isdigit() and count:
        return HistoryCommand("invalid", message=f"Pick a match from {first} to {first + count - 1}.")
    return HistoryCommand("invalid", message=f"{line.strip()!r}? Type a match's number to export it, n or p for "
                                             "the next or previous page, Enter to go back.")


# ---- ratings ------------------------------------------------------------------------------


def setting_text(rules: str, teams: bool) -> str:
    return f"{families.title(rules)} · {'teams' if teams else 'solo'}"


def rating_line(rating: pb.Rating) -> str:
    return f"{rating.ordinal:.1f} (μ {rating.mu:.1f}, σ {rating.sigma:.1f})"


def ratings_screen(rules: str, teams: bool, mine: pb.GetRatingResponse, board: pb.GetLeaderboardResponse,
                   me: str) -> Group:
    """The player's rating in one family and team setting, and the leaderboard's top with
    their own rank."""
    title = Text.assemble((" ratings ", "bold white on dark_green"), f"  {setting_text(rules, teams)}",
                          (f"   {mine.rated_players} rated", "dim"))
    rating = mine.rating
    you = Text("Your rating  ", style="bold")
    if rating.rank:
        you.append(rating_line(rating), style="bold green")
        you.append(f" · rank {rating.rank} of {mine.rated_players} · "
                   f"{rating.matches} match{'es' if rating.matches != 1 else ''} rated")
    else:
        you.append("not rated yet: finish a match of this family and team setting.", style="dim")
    parts: list[RenderableType] = [title, you]
    if not board.top:
        parts.append(Text("Nobody is rated here yet.", style="dim"))
        return Group(*parts)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, title="Leaderboard", title_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("player")
    table.add_column("rating (μ − 3σ)", justify="right")
    table.add_column("matches", justify="right")
    mine_listed = False
    for r in board.top:
        own = r.player_id == me
        mine_listed = mine_listed or own
        style = "bold green" if own else ""
        table.add_row(str(r.rank), Text(rated_name(r.player_id) + (" (you)" if own else ""), style=style),
                      f"{r.ordinal:.1f}", str(r.matches), style=style or None)
    if not mine_listed and board.you.rank:
        table.add_row("…", "", "", "")
        table.add_row(str(board.you.rank), Text(f"{rated_name(me)} (you)", style="bold green"),
                      f"{board.you.ordinal:.1f}", str(board.you.matches))
    parts.append(table)
    if not board.you.rank:
        parts.append(Text("You are not on it yet.", style="dim"))
    return Group(*parts)
