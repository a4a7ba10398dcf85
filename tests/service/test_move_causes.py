"""Why each move was made, over real gRPC: a move the server made for a seat said "you
played 6|5" on that player's screen as if they had chosen it. The view's round actions and
the stream's events now say who made each one and why (issue 34, 14)."""

from __future__ import annotations

import uuid

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.keys import auth

from .harness import running_service

TIMER = 30


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as service:
        yield service


def start(svc, request_id: str, players=("ann", "bob", "cat", "dan")) -> pb.MatchView:
    return svc.create(variant="block-4", players=players, request_id=request_id, turn_timer_seconds=TIMER).view


def view_of(svc, match_id: str, player: str) -> pb.MatchView:
    token = auth(player, "service") if player == "ops" else auth(player)
    return svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=token).view


def play_own_move(svc, match_id: str, n: int) -> pb.MatchView:
    public = view_of(svc, match_id, "ops")
    player = public.seats[public.turn].player_id
    move = view_of(svc, match_id, player).legal_moves[0]
    return svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"own-{n}", tile=move.tile,
                                                end=move.end), metadata=auth(player)).view


def time_out(svc, match_id: str) -> None:
    match = svc.run(svc.app.read(svc.app.get_match, uuid.UUID(match_id)))
    svc.app.clock.advance(TIMER)
    svc.run(svc.app.expire_turn(match.id, match.round_number, match.turn_no))


def streamed_events(svc, match_id: str, player: str) -> list[pb.MatchEvent]:
    public = view_of(svc, match_id, "ops")
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=1), metadata=auth(player))
    events = []
    for update in stream:
        if update.HasField("event"):
            events.append(update.event)
        if update.view.version == public.version:
            stream.cancel()
            break
    return events


def test_a_move_the_server_made_when_time_ran_out_says_so_in_the_view_and_the_stream(svc):
    created = start(svc, "timeout")
    timed_out = created.seats[created.turn].player_id
    time_out(svc, created.match_id)
    mine = view_of(svc, created.match_id, timed_out)
    first = mine.round_actions[0]
    assert first.seat == mine.your_seat and first.cause == pb.MOVE_CAUSE_TIMEOUT
    events = [e for e in streamed_events(svc, created.match_id, timed_out) if e.kind == pb.EVENT_KIND_TILE_PLAYED]
    assert events[0].cause == pb.MOVE_CAUSE_TIMEOUT


def test_a_move_the_seat_chose_is_marked_as_its_own(svc):
    created = start(svc, "own")
    after = play_own_move(svc, created.match_id, 1)
    assert after.round_actions[0].cause == pb.MOVE_CAUSE_SEAT
    played = [e for e in streamed_events(svc, created.match_id, "ann") if e.kind == pb.EVENT_KIND_TILE_PLAYED]
    assert played[0].cause == pb.MOVE_CAUSE_SEAT


def test_the_turns_of_a_seat_marked_away_are_marked_played_for_an_away_seat(svc):
    created = start(svc, "away")
    away = created.turn
    for n in range(12):  # the seat times out twice in a row; the others play their own moves
        public = view_of(svc, created.match_id, "ops")
        if public.seats[away].away or public.status != pb.MATCH_STATUS_IN_PROGRESS:
            break
        if public.turn == away:
            time_out(svc, created.match_id)
        else:
            play_own_move(svc, created.match_id, n)
    public = view_of(svc, created.match_id, "ops")
    assert public.seats[away].away
    # (a pass the deal forced on it, with nothing to play, is the server's whatever the clock)
    causes = [a.cause for a in public.round_actions if a.seat == away and a.cause != pb.MOVE_CAUSE_FORCED_PASS]
    assert causes[:2] == [pb.MOVE_CAUSE_TIMEOUT, pb.MOVE_CAUSE_TIMEOUT]
    def after_timeouts(view: pb.MatchView) -> list:
        mine = [a for a in view.round_actions if a.seat == away]
        second = [i for i, a in enumerate(mine) if a.cause == pb.MOVE_CAUSE_TIMEOUT][1]
        return mine[second + 1:]

    for n in range(40, 60):  # its next turn is played at once, for an away seat
        public = view_of(svc, created.match_id, "ops")
        if after_timeouts(public) or not public.HasField("turn"):
            break
        play_own_move(svc, created.match_id, n)
    later = after_timeouts(public)
    assert later and all(a.cause in (pb.MOVE_CAUSE_AWAY, pb.MOVE_CAUSE_FORCED_PASS) for a in later)


def test_a_seat_that_left_is_played_for_as_a_seat_that_left(svc):
    created = start(svc, "left")
    leaver = created.seats[created.turn].player_id
    svc.stub.LeaveMatch(pb.LeaveMatchRequest(match_id=created.match_id), metadata=auth(leaver))
    public = view_of(svc, created.match_id, "ops")
    assert public.round_actions[0].cause == pb.MOVE_CAUSE_LEFT


def test_a_pass_because_nothing_fitted_is_marked_forced(svc):
    created = start(svc, "forced")
    for n in range(40):
        public = view_of(svc, created.match_id, "ops")
        if any(a.kind == pb.MOVE_KIND_PASS for a in public.round_actions) or not public.HasField("turn"):
            break
        play_own_move(svc, created.match_id, n)
    passes = [a for a in public.round_actions if a.kind == pb.MOVE_KIND_PASS]
    assert passes and all(a.cause == pb.MOVE_CAUSE_FORCED_PASS for a in passes)
