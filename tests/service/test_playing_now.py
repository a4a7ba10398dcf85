"""ListPlayingNow over real gRPC, on SQLite and PostgreSQL with the history view: the match
each named player is seated in now, its rules and whether spectators may watch it, whether
or not the history projection has caught up; a finished match, a match the player left and
a player in no match are left out."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.history_projection import HistoryProjection
from services.history.view import View
from services.match.application import MatchApplication
from services.match.open_streams import OpenStreams
from tests.support.clock import Clock
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .notice_harness import SOCIAL, replica


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


def playing(svc, *players: str) -> dict[str, tuple[str, str, bool]]:
    reply = svc.stub.ListPlayingNow(pb.ListPlayingNowRequest(player_ids=players), metadata=SOCIAL, timeout=10)
    return {p.player_id: (p.match_id, p.rules, p.watchable) for p in reply.playing}


def test_players_in_a_match_the_history_has_applied_are_playing_it(history):
    svc, projection = history
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id="now-1", spectators=True).match_id
    projection.catch_up()
    assert playing(svc, "ann", "bob") == {"ann": (match_id, "egyptian", True), "bob": (match_id, "egyptian", True)}


def test_a_match_started_after_the_historys_position_is_read_from_the_store(history):
    svc, _ = history
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id="now-unprojected").match_id
    assert playing(svc, "ann") == {"ann": (match_id, "egyptian", False)}


def test_a_player_in_no_match_is_left_out(history):
    svc, projection = history
    svc.create(variant="draw-2", players=("ann", "bob"), request_id="now-2")
    projection.catch_up()
    assert playing(svc, "cat", "ann").keys() == {"ann"}


def test_a_finished_match_is_not_played_whether_or_not_the_history_applied_its_end(history):
    svc, projection = history
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id="now-ended").match_id
    projection.catch_up()
    play_whole_match(svc, match_id)
    assert playing(svc, "ann", "bob") == {}
    projection.catch_up()
    assert playing(svc, "ann", "bob") == {}


def test_a_player_who_left_the_match_is_not_playing_it(history):
    svc, projection = history
    match_id = svc.create(variant="block-3", players=("ann", "bob", "cat"), request_id="now-left").match_id
    projection.catch_up()
    svc.stub.LeaveMatch(pb.LeaveMatchRequest(match_id=match_id), metadata=auth("ann"))
    assert playing(svc, "ann", "bob").keys() == {"bob"}


def test_a_players_newest_match_is_the_one_named(history):
    svc, projection = history
    first = svc.create(variant="draw-2", players=("ann", "bob"), request_id="now-first").match_id
    play_whole_match(svc, first)
    projection.catch_up()
    second = svc.create(variant="draw-2", players=("ann", "cat"), request_id="now-second").match_id
    assert playing(svc, "ann")["ann"][0] == second
