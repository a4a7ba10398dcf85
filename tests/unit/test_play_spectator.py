"""Watching as a spectator in `domino play`: the end of a round and of the match, shown as a
player sees them (round_end.py), with a fake match service and a fake clock."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.inbox import Inbox
from services.client.spectate import Spectator
from services.client.terminal import Output

from .test_play_core import NOW
from .test_play_loop import wait_for
from .test_play_talk import WatchedMatch, public
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

ROUND_1 = {"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 1, "points": 10, "scores": [0, 10]}


def watching(round_pause: float = 8):
    """A spectator watching match m in a thread; returns what the test drives it with."""
    api = WatchedMatch()
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=110, color_system=None, highlight=False), redraw=False)
    now = [NOW]
    spectator = Spectator(api, inbox, out, round_pause=round_pause, clock=lambda: now[0])
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(final=spectator.run("m")), daemon=True)
    thread.start()
    wait_for(lambda: len(api.watches) == 1)
    stream = api.watches[0][1]
    stream.items.put(pb.WatchMatchResponse(view=public()))
    wait_for(lambda: "ONE TURN BEHIND" in file.getvalue())
    return stream, inbox, file, now, thread, result


def test_a_spectator_is_shown_the_rounds_end_a_player_sees_until_enter():
    """Reported: spectators never saw a round's end; the next round simply appeared."""
    stream, inbox, file, _, thread, _ = watching()
    stream.items.put(pb.WatchMatchResponse(view=public(version=14, scores=[0, 10], rounds=[ROUND_1])))
    wait_for(lambda: "round 1 is over" in file.getvalue())
    summary = file.getvalue()[file.getvalue().index("round 1 is over"):]
    assert "Blocked: nobody could play; bob had the fewest pips: +10 for bob." in summary
    assert "(spectators are not shown the hands)" in summary  # a spectator may not export the match
    assert "Scores: ann 0 · bob 10  (to 51)" in summary
    assert "Press Enter for the next round (8 s)." in summary
    assert "to play (as of this view" not in summary  # the table waits behind the summary
    inbox.put("line", "")
    wait_for(lambda: "bob to play (as of this view" in file.getvalue()[file.getvalue().index("round 1 is over"):])
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()


def test_a_spectators_rounds_end_gives_way_to_the_table_after_the_pause():
    stream, inbox, file, now, thread, _ = watching()
    stream.items.put(pb.WatchMatchResponse(view=public(version=14, scores=[0, 10], rounds=[ROUND_1])))
    wait_for(lambda: "round 1 is over" in file.getvalue())
    now[0] += 9
    stream.items.put(pb.WatchMatchResponse(view=public(version=15, scores=[0, 10], rounds=[ROUND_1])))
    wait_for(lambda: "bob to play (as of this view" in file.getvalue()[file.getvalue().index("round 1 is over"):])
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()


def test_a_spectator_sees_the_last_rounds_end_above_the_result():
    stream, _, file, _, thread, result = watching()
    ended = public(version=30, status=pb.MATCH_STATUS_ENDED, winner=1, scores=[0, 60],
                   rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 60, "scores": [0, 60]}])
    ended.turn = -1
    stream.items.put(pb.WatchMatchResponse(view=ended))
    thread.join(5)
    assert not thread.is_alive() and result["final"].version == 30
    text = file.getvalue()
    assert "round 1 is over" in text and text.index("round 1 is over") < text.index("Match over — bob won")
    assert "bob went out (domino): +60 for bob." in text


def test_without_a_round_pause_a_spectator_goes_straight_on_as_a_player_does():
    stream, inbox, file, _, thread, _ = watching(round_pause=0)
    stream.items.put(pb.WatchMatchResponse(view=public(version=14, scores=[0, 10], rounds=[ROUND_1])))
    wait_for(lambda: "Round 1: bob won the blocked round" in file.getvalue())
    inbox.put("line", "q")
    thread.join(5)
    assert "round 1 is over" not in file.getvalue()


def test_the_last_rounds_end_stays_above_the_result_when_the_match_ends_in_the_next_view():
    """The last round's end and the match's end come as two views; drawn only after the
    second (a busy terminal), the last round's summary was lost from the final screen."""
    file = io.StringIO()
    out = Output(Console(file=file, width=110, color_system=None, highlight=False), redraw=False)
    spectator = Spectator(WatchedMatch(), Inbox(), out, round_pause=8, clock=lambda: NOW)
    before = public()
    round_over = public(version=14, scores=[0, 10], rounds=[ROUND_1])
    ended = public(version=15, status=pb.MATCH_STATUS_ENDED, winner=1, scores=[0, 51], rounds=[ROUND_1])
    ended.turn = -1
    for previous, view in ((before, round_over), (round_over, ended)):
        spectator._round_over(previous, view)
    spectator.view = ended
    out.console.print(spectator._screen())
    assert "round 1 is over" in file.getvalue()
