"""What the server played for a seat, in the client's words (services/client/move_words.py,
recent.py, round_end.py): issue 34, findings 14 and 17 ("Last moves" of three or four
entries, passes without their reason)."""

from __future__ import annotations

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.client import move_words, render, round_end
from services.client.view_reading import LEFT, RIGHT
from tests.unit.test_play_core import view
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def play(seat, a, b, end=RIGHT, cause=pb.MOVE_CAUSE_SEAT, **kw):
    return {"seat": seat, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=b, high=a), "end": end, "cause": cause, **kw}


def passed(seat, cause=pb.MOVE_CAUSE_FORCED_PASS, **kw):
    return {"seat": seat, "kind": pb.MOVE_KIND_PASS, "cause": cause, **kw}


def lines(v, width=120):
    return render.to_text(render.recent_text(v), width=width).splitlines()


def test_a_pass_says_why_it_was_made():
    v = view(turn=1, actions=[play(1, 6, 6, end=0), passed(0), play(1, 6, 4), passed(0, pb.MOVE_CAUSE_TIMEOUT)])
    assert lines(v)[1].endswith("you           passed: nothing fits")
    assert lines(v)[3].endswith("you           passed: time ran out")


def test_a_play_the_server_made_for_a_seat_says_why():
    v = view(seats=("ann", "bot:greedy:1", "bob"), turn=1,
             actions=[play(1, 6, 6, end=0), play(2, 6, 5, cause=pb.MOVE_CAUSE_AWAY),
                      play(0, 5, 1, cause=pb.MOVE_CAUSE_TIMEOUT),
                      play(1, 6, 4, end=LEFT, cause=pb.MOVE_CAUSE_LEFT)])
    said = lines(v)
    assert said[1].endswith("played [6|5] on the right end  (away: the server plays for them)")
    assert said[2].endswith("played [5|1] on the right end  (time ran out: played for you)")
    assert said[3].endswith("played [6|4] on the left end  (left the match: the server plays for them)")


def test_the_last_moves_are_six_turns_at_two_seats_as_at_four():
    for seats in (("ann", "bot:greedy:1"), ("ann", "bot:greedy:1", "bob", "bot:strong:3")):
        actions = [play(n % len(seats), 6, n % 7, end=0 if n == 0 else RIGHT) for n in range(10)]
        assert len(lines(view(seats=seats, turn=0, actions=actions))) == 6


def test_an_action_that_names_no_cause_is_the_seats_own_and_a_pass_one_because_nothing_fitted():
    action = pb.PublicAction(seat=0, kind=pb.MOVE_KIND_PLAY, tile=pb.Tile(low=5, high=6))
    assert move_words.cause(action) == pb.MOVE_CAUSE_SEAT
    assert move_words.cause(pb.PublicAction(seat=0, kind=pb.MOVE_KIND_PASS)) == pb.MOVE_CAUSE_FORCED_PASS
    assert move_words.cause(pb.MatchEvent(kind=pb.EVENT_KIND_TURN_PASSED)) == pb.MOVE_CAUSE_FORCED_PASS


def test_the_players_own_timed_out_turn_is_said_to_be_played_for_them():
    v = view(turn=1, actions=[play(1, 6, 6, end=0),
                              {"seat": 0, "kind": pb.MOVE_KIND_DRAW, "cause": pb.MOVE_CAUSE_TIMEOUT},
                              play(0, 6, 5, cause=pb.MOVE_CAUSE_TIMEOUT)])
    assert move_words.played_for_you(v) == "Time ran out: a tile was drawn and 6|5 was played for you."
    assert move_words.played_for_you(view(turn=1, actions=[play(0, 6, 6, end=0)])) is None


def test_a_round_the_server_ended_for_you_does_not_say_you_went_out_as_if_you_played():
    summary = pb.RoundSummary(reason=pb.ROUND_END_REASON_DOMINO, winner=0, points=23, scores=[23, 0])
    last = pb.PublicAction(seat=0, kind=pb.MOVE_KIND_PLAY, tile=pb.Tile(low=5, high=6),
                           cause=pb.MOVE_CAUSE_TIMEOUT)
    end = round_end.RoundEnd(1, summary, (round_end.HandAtEnd(0, 0, ()), round_end.HandAtEnd(1, 3, None)),
                             last_seat=0, last_move=last)
    assert round_end.how_it_ended(view(), end) == ("Time ran out: 6|5 was played for you. You went out (domino): "
                                                   "+23 for you.")
