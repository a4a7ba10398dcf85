"""DescribeMatchEnd over real gRPC, on SQLite and PostgreSQL with the history view: each seat's
result, points and the best opponent's, and in a rated match each person's rating ordinal
before and after it, the same whether the history projection has applied the end or not."""

from __future__ import annotations

from contextlib import contextmanager

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.history_projection import HistoryProjection
from services.history.summary import fresh
from services.history.view import View
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .notice_harness import NOTIFIER, replica
from services.match.open_streams import OpenStreams

PLAYERS = ("ann", "bob")


@contextmanager
def with_history(env):
    app = MatchApplication(env=env, clock=Clock())
    view = View.for_env(env)
    projection = HistoryProjection(app, view)
    projection.start()
    try:
        with replica(app, OpenStreams(), history=view) as service:
            yield service, projection
    finally:
        view.close()
        app.close()


@pytest.fixture
def history(either_store_env):
    with with_history(either_store_env) as pair:
        yield pair


def describe(svc, match_id: str) -> pb.DescribeMatchEndResponse:
    return svc.stub.DescribeMatchEnd(pb.DescribeMatchEndRequest(match_id=match_id), metadata=NOTIFIER, timeout=10)


def played(svc, request_id: str, **options) -> tuple[str, pb.MatchView]:
    match_id = svc.create(variant="draw-2", players=PLAYERS, request_id=request_id, **options).match_id
    return match_id, play_whole_match(svc, match_id)


def test_each_seat_is_told_whether_it_won_and_both_sides_points(history):
    svc, _ = history
    match_id, final = played(svc, "end-1", rated=False)
    said = describe(svc, match_id)
    assert (said.match_id, said.rules, said.rated) == (match_id, "egyptian", False)
    assert [(s.seat, s.player_id) for s in said.seats] == [(0, "ann"), (1, "bob")]
    assert [s.won for s in said.seats] == [final.winner == 0, final.winner == 1]
    assert [(s.points, s.opponent_points) for s in said.seats] == [(final.scores[0], final.scores[1]),
                                                                   (final.scores[1], final.scores[0])]
    assert said.HasField("ended_at")


def test_an_unrated_match_moves_no_rating(history):
    svc, projection = history
    match_id, _ = played(svc, "end-unrated", rated=False)
    projection.catch_up()
    assert not any(s.HasField("rating_before") or s.HasField("rating_after") for s in describe(svc, match_id).seats)


def test_a_rated_match_gives_each_person_their_rating_before_and_after(history):
    svc, projection = history
    match_id, final = played(svc, "end-rated", rated=True)
    projection.catch_up()
    said = describe(svc, match_id)
    assert said.rated
    for seat in said.seats:
        rating = svc.stub.GetRating(pb.GetRatingRequest(rules="egyptian", player_id=seat.player_id),
                                    metadata=auth(seat.player_id)).rating
        assert seat.rating_before == pytest.approx(fresh().ordinal)
        assert seat.rating_after == pytest.approx(rating.ordinal)
    winner = said.seats[final.winner]
    assert winner.rating_after > winner.rating_before


def test_before_the_history_applied_the_end_the_ratings_are_what_it_will_record(history):
    svc, projection = history
    played(svc, "first", rated=True)
    projection.catch_up()
    match_id, _ = played(svc, "second", rated=True)
    foreseen = [x for s in describe(svc, match_id).seats for x in (s.rating_before, s.rating_after)]
    projection.catch_up()
    recorded = [x for s in describe(svc, match_id).seats for x in (s.rating_before, s.rating_after)]
    assert foreseen == pytest.approx(recorded)
    assert all(before != pytest.approx(fresh().ordinal) for before in recorded[::2])  # the first match moved them


def test_a_match_still_played_is_failed_precondition(history):
    svc, _ = history
    match_id = svc.create(variant="draw-2", players=PLAYERS, request_id="still-played").match_id
    with pytest.raises(grpc.RpcError) as caught:
        describe(svc, match_id)
    said = refusal(caught.value)
    assert (said.code, said.reason, said.domain) == (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_NOT_ENDED",
                                                      "domino.match")


def test_an_erased_players_rating_moves_are_forgotten(history):
    svc, projection = history
    match_id, _ = played(svc, "end-erased", rated=True)
    projection.catch_up()
    svc.stub.ForgetPlayer(pb.ForgetPlayerRequest(player_id="ann"), metadata=auth("accounts", "account"))
    ann, bob = describe(svc, match_id).seats
    assert not ann.HasField("rating_before") and not ann.HasField("rating_after")
    assert bob.HasField("rating_before") and bob.HasField("rating_after")


def test_a_teams_match_gives_each_seat_its_sides_points(history):
    svc, _ = history
    match_id = svc.create(variant="block-4", players=("ann", "bob", "cat", "dan"), request_id="end-teams",
                          teams=True, rated=False).match_id
    final = play_whole_match(svc, match_id)
    said = describe(svc, match_id)
    assert [(s.points, s.opponent_points) for s in said.seats] == [
        (final.scores[seat % 2], final.scores[1 - seat % 2]) for seat in range(4)]
    assert [s.won for s in said.seats] == [final.winner == seat % 2 for seat in range(4)]
