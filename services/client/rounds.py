"""How rounds ended and how the match ended, in words: each family's round summary (points
scored in play for All Fives; written and remembered points, the pot and redeals for Goat),
Goat's running table of every round's writes, the result panel (and Goat's goat) and the
one line scripts read."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import view_reading

DOMINO, REDEAL = pb.ROUND_END_REASON_DOMINO, pb.ROUND_END_REASON_REDEAL


def round_text(view: pb.MatchView, number: int, summary: pb.RoundSummary) -> str:
    if view_reading.is_goat(view):
        return _goat_round_text(view, number, summary)
    winner = view_reading.round_winner(summary)
    if winner is None:
        text = f"Round {number}: blocked, a tie — no points"
    else:
        who = view_reading.side_name(view, winner)
        how = "dominoed" if summary.reason == DOMINO else "won the blocked round"
        text = f"Round {number}: {who} {how}, +{summary.points}"
    if any(summary.points_in_play):
        text += " · scored in play: " + per_side(view, summary.points_in_play)
    return text


def _goat_round_text(view: pb.MatchView, number: int, summary: pb.RoundSummary) -> str:
    if summary.reason == REDEAL:
        return f"Round {number}: redealt (a hand called for it) — nothing written"
    who = view_reading.side_name(view, view_reading.round_winner(summary))
    how = "went out" if summary.reason == DOMINO else "made the fish (blocked)"
    text = f"Round {number}: {who} {how} · written: {per_side(view, summary.written)}"
    if any(summary.remembered):
        text += f" · remembered: {per_side(view, summary.remembered)}"
    if summary.pot:
        text += f" · pot {summary.pot} carried on"
    return text


def per_side(view: pb.MatchView, values) -> str:
    return ", ".join(f"{view_reading.side_name(view, side)} {value}" for side, value in enumerate(values))


def last_round_text(view: pb.MatchView) -> Text | None:
    """The latest round's summary, shown while the match goes on."""
    if not view.rounds:
        return None
    last = len(view.rounds)
    return Text(round_text(view, last, view.rounds[-1]), style="cyan")


def goat_writes(view: pb.MatchView) -> Group | None:
    """Goat, during play: what every side wrote in every round so far and its written total
    (docs/rules.md §3: only written points count toward 101 and the ranking), so a player
    sees the whole match, not only the last round. None before the first round ends."""
    if not view.rounds:
        return None
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    table.add_column("round", justify="right")
    sides = range(len(view.scores))
    for side in sides:
        table.add_column(view_reading.side_name(view, side), justify="right")
    table.add_column("")
    for number, summary in enumerate(view.rounds, 1):
        if summary.reason == REDEAL:
            table.add_row(str(number), *("—" for _ in sides), Text("redealt: nothing written", style="dim"))
            continue
        written = list(summary.written) + [0] * (len(view.scores) - len(summary.written))
        table.add_row(str(number), *(str(w) for w in written), Text(_goat_how(view, summary), style="dim"))
    table.add_row(Text("total", style="bold"), *(Text(str(view.scores[s]), style="bold") for s in sides), "")
    title = Text("Written so far", style="bold cyan")
    title.append(" (lowest total wins; 101 or more makes the goat)", style="dim")
    return Group(title, table)


def _goat_how(view: pb.MatchView, summary: pb.RoundSummary) -> str:
    who = view_reading.side_name(view, view_reading.round_winner(summary))
    how = f"{who} went out" if summary.reason == DOMINO else f"{who} made the fish"
    return how + (f" · pot {summary.pot} carried on" if summary.pot else "")


def final_panel(view: pb.MatchView) -> Panel:
    body = Text()
    body.append(f"Match over — {view_reading.winner_text(view)}\n", style="bold green" if _won(view) else "bold")
    goat = view_reading.goat_text(view)
    if goat:
        body.append(goat[0].upper() + goat[1:] + ".\n", style="bold red")
    sides = range(len(view.scores))
    body.append("Final scores: " + " · ".join(f"{view_reading.side_name(view, s)} {view.scores[s]}" for s in sides))
    if view_reading.is_goat(view):
        body.append("  (lowest wins)", style="dim")
    for number, summary in enumerate(view.rounds, 1):
        body.append("\n" + round_text(view, number, summary), style="dim")
    return Panel(body, box=box.DOUBLE, title="result", title_align="left")


def _won(view: pb.MatchView) -> bool:
    won = view_reading.winner(view)
    return won is not None and view_reading.my_side(view) == won


def result_line(view: pb.MatchView) -> str:
    """One plain line for scripts: the outcome and the scores."""
    scores = ", ".join(f"{view_reading.side_name(view, s)} {view.scores[s]}" for s in range(len(view.scores)))
    goat = view_reading.goat_text(view)
    return (f"match {view.match_id} ended: {view_reading.winner_text(view)}" + (f"; {goat}" if goat else "")
            + f" ({scores})")
