"""The end of a round as the player is shown it before the next deal: the hands at the end,
how the round ended, what it scored (All Fives: points in play too; Goat: written,
remembered, the pot) and the running scores.

By the time the client hears of a round's end the server has usually dealt the next one,
so the view no longer holds it. The hands come from the player's ExportMatch
(docs/record.md): for an ended round every hand as dealt, every play and every draw, which
give each hand at the end. Should an export hide a hand (an older server), it shows as a
tile count; a seat with none left went out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Callable

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import families, lead_words, move_words, rounds, view_reading
from .api import ApiError
from .pips import pip_count, tile_text
from .view_reading import Tile


@dataclass(frozen=True)
class HandAtEnd:
    seat: int
    count: int
    tiles: tuple[Tile, ...] | None  # None: hidden from this player


@dataclass(frozen=True)
class RoundEnd:
    number: int  # 1-based, as in view.rounds
    summary: pb.RoundSummary
    hands: tuple[HandAtEnd, ...] = ()  # () when the record could not be read
    last_seat: int = -1  # whose action ended the round (went out, or made the block: the fisherman); -1: unknown
    redeals: int = 0  # Goat: deals thrown in right after it
    last_move: pb.PublicAction | None = None  # the action that ended it, as a view showed it (why it was made)


def _tile(text: str) -> Tile:
    a, b = (int(x) for x in text.split("-"))
    return (max(a, b), min(a, b))


def from_record(record: dict, number: int, summary: pb.RoundSummary) -> RoundEnd:
    """Round ``number`` (1-based) of a player's domino-record/1 export: each hand at the end."""
    rnd = record["rounds"][number - 1]
    known = [[_tile(t) for t in hand] if isinstance(hand, list) else None for hand in rnd["hands"]]
    counts = [len(hand) if isinstance(hand, list) else int(hand) for hand in rnd["hands"]]
    last_seat = -1
    for action in rnd.get("actions", ()):
        seat = action["seat"]
        if "play" in action:
            counts[seat] -= 1
            if known[seat] is not None and _tile(action["play"]) in known[seat]:
                known[seat].remove(_tile(action["play"]))
            last_seat = seat
        elif "draw" in action:
            counts[seat] += 1
            if known[seat] is not None and action["draw"]:
                known[seat].append(_tile(action["draw"]))
            last_seat = seat
        elif action.get("pass"):
            last_seat = seat
    hands = tuple(HandAtEnd(seat, counts[seat], tuple(k) if (k := known[seat]) is not None
                            else (() if counts[seat] == 0 else None))
                  for seat in range(len(counts)))
    return RoundEnd(number, summary, hands, last_seat)


def ended_between(view: pb.MatchView, since: int, export: Callable[[], str] | None = None,
                  before: pb.MatchView | None = None) -> RoundEnd | None:
    """The last round played to its end after the first ``since`` rounds, with the deals
    thrown in after it; None when none was. Its hands come from ``export`` (the player's
    record JSON), and are left out when that fails or there is none (a spectator may not
    export): the summary still says how it ended."""
    new = range(since, len(view.rounds))
    played = [i for i in new if view.rounds[i].reason != pb.ROUND_END_REASON_REDEAL]
    if not played:
        return None
    index = played[-1]
    summary = view.rounds[index]
    shown = RoundEnd(index + 1, summary)
    if export is not None:
        try:
            shown = from_record(json.loads(export()), index + 1, summary)
        except (ApiError, ValueError, KeyError, IndexError, TypeError):  # no export, or one not as documented
            pass
    return replace(shown, redeals=sum(1 for i in new if i > index), last_move=_last_move(index + 1, view, before))


def _last_move(number: int, *views: pb.MatchView | None) -> pb.PublicAction | None:
    """The last action of round ``number`` as one of ``views`` (still in that round) shows it."""
    for view in views:
        if view is not None and view.round_number == number and view.round_actions:
            return view.round_actions[-1]
    return None


def leave_at(view: pb.MatchView, shown_at: float, pause: float) -> float:
    """When a round's end, on screen since ``shown_at``, gives way to the next round: when
    the server starts the next round's clocks (``round_starts_at``: it pauses between
    rounds while every client shows this, docs/rules.md §1.6), so the board then shows the
    turn's full time. From a server without that pause (or one set to 0): after ``pause``,
    or sooner, at half the time of the next turn when that turn is the player's, so reading
    it never costs them more than half their turn."""
    if view.HasField("round_starts_at"):
        starts_at = view.round_starts_at.ToNanoseconds() / 1e9
        if starts_at > shown_at:
            return starts_at
    until = shown_at + pause
    given = view.turn_seconds or (view.turn_timer_seconds if not families.family(view.rules).per_move_timer else 0)
    if view_reading.is_my_turn(view) and view.HasField("turn_deadline") and given:
        until = min(until, view.turn_deadline.ToNanoseconds() / 1e9 - given / 2)
    return until


# ---- in words ------------------------------------------------------------------------------


def hand_value(view: pb.MatchView, held: tuple[Tile, ...]) -> int:
    """What a hand counts: its pips; a hand of only 0-0 what the family says (Classic: 25;
    Goat: its zero_zero option)."""
    if held == ((0, 0),):
        lone = families.family(view.rules).lone_zero_zero
        value = families.option_of(view, lone) if isinstance(lone, str) else lone
        if isinstance(value, int):
            return value
    return sum(a + b for a, b in held)


def how_it_ended(view: pb.MatchView, end: RoundEnd) -> str:
    """``bot greedy 1 went out (domino): +23 for bot greedy 1.`` and the like, per family;
    after ``Time ran out: 6|5 was played for you.`` when the server made that last play."""
    played = move_words.played_for(view, end.last_move) if end.last_move is not None else None
    text = _how_it_ended(view, end)
    return f"{played[0].upper()}{played[1:]}. {text[0].upper()}{text[1:]}" if played else text


def _how_it_ended(view: pb.MatchView, end: RoundEnd) -> str:
    s = end.summary
    winner = view_reading.round_winner(s)
    domino = s.reason == pb.ROUND_END_REASON_DOMINO
    out = [h.seat for h in end.hands if h.count == 0]
    seat = out[0] if domino and out else end.last_seat
    who = view_reading.seat_name(view, seat) if seat >= 0 else None
    if view_reading.is_goat(view):
        if domino:
            text = f"{who or view_reading.side_name(view, winner)} went out (domino) and writes nothing"
        else:
            text = (f"Blocked: nobody could play; {who or view_reading.side_name(view, winner)} made the fish "
                    "and writes nothing")
        return text + "; every other hand is written (lowest total wins)."
    if domino:
        text = f"{who or view_reading.side_name(view, winner)} went out (domino)"
        if view.teams and who is not None:
            text += f": {view_reading.side_name(view, winner)} wins the round"
    elif winner is None:
        return "Blocked: nobody could play, and the fewest pips are tied — no points."
    else:
        fewest = "the fewest pips" if not view.teams else "the fewer pips of the two teams"
        text = f"Blocked: nobody could play; {view_reading.side_name(view, winner)} had {fewest}"
    if winner is None:
        return text + "."
    step = families.family(view.rules).points_rounded_to
    rounded = f" (pips rounded to the nearest {step})" if step else ""
    return text + f": +{s.points} for {view_reading.side_name(view, winner)}{rounded}."


def _hands(view: pb.MatchView, end: RoundEnd) -> Group:
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    table.add_column("who", style="bold")
    table.add_column("tiles")
    table.add_column("count", justify="right")
    hidden = False
    for hand in end.hands:
        name = view_reading.seat_name(view, hand.seat)
        who = Text(name, style="bold green" if view_reading.is_mine(view, hand.seat) else "bold")
        if hand.count == 0:
            table.add_row(who, Text("out — no tiles left", style="green"), "")
        elif hand.tiles is None:
            hidden = True
            table.add_row(who, Text(f"{hand.count} tile{'s' if hand.count != 1 else ''}, not shown", style="dim"),
                          "")
        else:
            shown = Text(" ").join(tile_text(t) for t in sorted(hand.tiles, key=lambda t: (-t[0], -t[1])))
            table.add_row(who, shown, pip_count(hand_value(view, hand.tiles)))
    if not hidden:
        return Group(table)
    return Group(table, Text("(this server did not show the other hands)", style="dim"))


def round_end_panel(view: pb.MatchView, end: RoundEnd) -> Panel:
    """The ended round: how it ended, the hands, the points and the running scores."""
    s = end.summary
    parts: list[RenderableType] = [Text(how_it_ended(view, end), style="bold")]
    if end.hands:
        parts.append(_hands(view, end))
    elif view_reading.your_seat(view) is None:
        parts.append(Text("(spectators are not shown the hands)", style="dim"))
    else:
        parts.append(Text("(the hands could not be fetched)", style="dim"))
    points = Text()
    if any(s.points_in_play):
        points.append("Scored in play: " + rounds.per_side(view, s.points_in_play) + "\n")
    columns = {key for key, _ in families.family(view.rules).round_columns}
    if "written" in columns:
        points.append("Written this round: " + rounds.per_side(view, s.written) + "\n")
    if "remembered" in columns and (any(s.remembered) or families.option_of(view, "remembered")):
        points.append("Remembered (not written): " + rounds.per_side(view, s.remembered) + "\n")
    if "pot" in columns and s.pot:
        points.append(f"Pot {s.pot} carried to the next round\n")
    totals = " · ".join(f"{view_reading.side_name(view, side)} {score}" for side, score in enumerate(s.scores))
    points.append(f"Scores: {totals}  ({families.target_text(view.rules, view.target)})", style="bold")
    parts.append(points)
    if end.redeals:
        parts.append(Text(f"Then the deal was thrown in and dealt again"
                          + (f" ({end.redeals} times)" if end.redeals > 1 else "") + ".", style="dim"))
    return Panel(Group(*parts), title=f"round {end.number} is over", title_align="left", box=box.ROUNDED,
                 padding=(0, 1))


def next_round_text(view: pb.MatchView, now: float, wait: float | None) -> Text:
    """Under the summary: the next round's first turn, and how to go on to it."""
    text = Text()
    if view_reading.turn(view) is not None:
        text.append(f"Round {view.round_number} is dealt: ", style="bold")
        led = lead_words.leader_text(view)  # the seat that led, not the seat to move now
        if view_reading.is_my_turn(view):
            turn = "" if not view.round_actions else "; your turn"
            text.append(f"{led}{turn} — {view_reading.time_left(view, now)}.", style="bold yellow")
        else:
            text.append(f"{led}.")
        text.append("\n")  # its own line: a long leader line never splits the prompt
    seconds = f" ({max(0, int(wait + 0.999))} s)" if wait is not None else ""
    text.append(f"Press Enter for the next round{seconds}.", style="bold")
    return text
