"""domino play shows a round's end for the server's pause between rounds, then the board
with the turn's full time (red team finding 16: the board came with 14 of 20 s left, and a
Sports 5 s move could run out before the player saw it)."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.round_end import leave_at
from services.client.terminal import Output
from services.client.view_reading import RIGHT

from .test_play_core import NOW, view
from .test_play_loop import FakeMatch, my_turn, wait_for
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

SERVER_PAUSE = 5.0  # the server's DOMINO_ROUND_PAUSE_SECONDS; the client's own --round-pause is 8


def round_two_after_a_pause(turn_seconds: int, rules: str = "egyptian") -> FakeMatch:
    """Seat 0 ends round 1 at NOW; the reply is round 2, dealt at once, whose clocks start
    SERVER_PAUSE later: the player's first turn runs out at NOW + pause + its seconds."""
    before = view(hand=((5, 5), (4, 2)), line=((6, 4),), legal=[("play", (4, 2), RIGHT)], version=9)
    after = my_turn(version=12, rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 1, "points": 10, "scores": [0, 10]}],
                    scores=[0, 10], deadline_in=SERVER_PAUSE + turn_seconds, timer=45)
    after.rules = rules
    after.turn_seconds = turn_seconds
    after.round_starts_at.FromNanoseconds(int((NOW + SERVER_PAUSE) * 1e9))
    record = {"format": "domino-record/1", "viewer_seat": 0,
              "rounds": [{"hands": [["6-4", "2-4", "5-5"], 2], "boneyard": 0,
                          "actions": [{"seat": 0, "play": "6-4"}, {"seat": 1, "pass": True},
                                      {"seat": 0, "play": "4-2", "end": "right"}]}]}
    return FakeMatch(before, after={"play": after}, record=record)


def play_the_last_tile_and_wait(api: FakeMatch) -> tuple[Game, io.StringIO, list[float], Inbox, threading.Thread]:
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    now = [NOW]
    game = Game(api, inbox, out, GameOptions(tick=0.01, round_pause=8), clock=lambda: now[0])
    thread = threading.Thread(target=lambda: game.run("m"), daemon=True)
    thread.start()
    inbox.put("line", "2")
    wait_for(lambda: "round 1 is over" in file.getvalue(), timeout=2)
    return game, file, now, inbox, thread


def leave(inbox: Inbox, thread: threading.Thread) -> None:
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()


def board_after_summary(file: io.StringIO) -> str:
    text = file.getvalue()
    return text[text.index("round 1 is over"):]


def test_the_summary_stays_for_the_servers_pause_then_the_board_shows_the_full_45_seconds():
    game, file, now, inbox, thread = play_the_last_tile_and_wait(round_two_after_a_pause(45))
    assert game._round_end_until() == NOW + SERVER_PAUSE  # the server's pause, not the client's own 8 s
    now[0] = NOW + SERVER_PAUSE
    wait_for(lambda: "to play, 45 s left" in board_after_summary(file), timeout=2)
    leave(inbox, thread)


def test_a_sports_five_second_move_is_seen_with_all_five_seconds():
    game, file, now, inbox, thread = play_the_last_tile_and_wait(round_two_after_a_pause(5, rules="sports"))
    assert game._round_end_until() == NOW + SERVER_PAUSE
    now[0] = NOW + SERVER_PAUSE
    wait_for(lambda: "to play, 5 s left" in board_after_summary(file), timeout=2)
    leave(inbox, thread)


def test_the_round_end_leaves_when_the_server_starts_the_round_whoever_leads():
    theirs = view(turn=1, deadline_in=SERVER_PAUSE + 45)
    theirs.round_starts_at.FromNanoseconds(int((NOW + SERVER_PAUSE) * 1e9))
    assert leave_at(theirs, NOW, 8) == NOW + SERVER_PAUSE
    unlimited = view(turn=0, timer=0, deadline_in=None)  # no clock to read the pause from but this
    unlimited.round_starts_at.FromNanoseconds(int((NOW + 12) * 1e9))
    assert leave_at(unlimited, NOW, 8) == NOW + 12


def test_a_summary_drawn_after_the_round_started_falls_back_to_the_clients_own_rule():
    late = my_turn(deadline_in=40, timer=45)
    late.round_starts_at.FromNanoseconds(int((NOW - 5) * 1e9))  # a server with no pause (0), or a late view
    assert leave_at(late, NOW, 8) == NOW + 8
    assert leave_at(late, NOW, 30) == NOW + 40 - 22.5  # never more than half the player's turn


def test_the_board_shows_the_full_time_while_the_pause_runs():
    """Enter pressed during the pause goes on to the board: its count stays at the turn's
    full time until the round's clocks start."""
    from services.client import view_reading

    board = my_turn(deadline_in=SERVER_PAUSE + 45, timer=45)
    board.turn_seconds = 45
    board.status = pb.MATCH_STATUS_IN_PROGRESS
    assert view_reading.time_left(board, NOW).seconds == 45
    assert view_reading.time_left(board, NOW + SERVER_PAUSE + 1).seconds == 44
