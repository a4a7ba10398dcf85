"""The moment a match's end is stored, its player is free: no bus, two matchmaking replicas,
written once and run on SQLite and on PostgreSQL.

A player practises on one replica against a real match service until the match ends (every
turn times out, then the server plays the seats), and at once, on the same injected clock
(no second passes), asks the other replica where they are and for the next practice. Nothing
relays `match_ended` here: matchmaking learns of the end only by asking the match service,
as a use case does when it finds the player held for a match (services/matchmaking/match_ends.py).
"""

from __future__ import annotations

from contextlib import ExitStack

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.changes import ChangeFeed
from services.match.application import MatchApplication
from services.match.timers import TurnTimer
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.match_client import GrpcMatchCreator
from tests.service.harness import Service, running_service
from tests.service.matchmaking_harness import SERVICE, running_matchmaking
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration


def play_out(match: Service, clock: Clock, match_id: str) -> None:
    """Let every turn time out: after two timeouts a seat is away and the server plays it."""
    timer = TurnTimer(match.app)
    for _ in range(200):
        view = match.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view
        if view.status == match_pb.MATCH_STATUS_ENDED:
            return
        clock.advance(91)
        timer.follow_store()
        match.run(timer.step())
    raise AssertionError("the match did not end")


class ReadYourWrites:
    @pytest.fixture
    def envs(self) -> tuple[dict[str, str], dict[str, str]]:
        """(the match service's store, matchmaking's)."""
        raise NotImplementedError

    def test_the_next_practice_and_the_presence_come_the_moment_a_practice_ends(self, envs):
        match_env, matchmaking_env = envs
        clock = Clock()
        with ExitStack() as stack:
            match_app = MatchApplication(env=match_env, clock=clock)
            stack.callback(match_app.close)
            match = stack.enter_context(running_service(match_app))
            stubs = []
            for _ in range(2):
                creator = GrpcMatchCreator(f"127.0.0.1:{match.port}", KEYS)
                stack.callback(creator.close)
                changes = ChangeFeed()
                app = MatchmakingApplication(env=matchmaking_env, matches=creator, clock=clock,
                                             on_change=changes.publish)
                stack.callback(app.close)
                port = stack.enter_context(running_matchmaking(app, changes))
                channel = stack.enter_context(grpc.insecure_channel(f"127.0.0.1:{port}"))
                stubs.append(pb_grpc.MatchmakingServiceStub(channel))
            first, other = stubs

            started = first.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2", target=51),
                                          metadata=auth("ann"))
            assert other.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann")).match_id == started.match_id
            play_out(match, clock, started.match_id)
            ended_at = clock()

            presence = other.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann"))
            assert presence.WhichOneof("place") is None and presence.match_id == ""
            following = other.StartPractice(pb.StartPracticeRequest(request_id="p2", variant="draw-2"),
                                            metadata=auth("ann"))
            assert following.match_id and following.match_id != started.match_id
            for stub in stubs:
                assert stub.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann")).match_id == following.match_id
            assert clock() == ended_at  # not a second later: asked, not waited for


class TestWithSQLite(ReadYourWrites):
    @pytest.fixture
    def envs(self, tmp_path):
        from services.common.servers import sqlite_env

        return sqlite_env(tmp_path / "match.sqlite"), sqlite_env(tmp_path / "matchmaking.sqlite")


class TestWithPostgres(ReadYourWrites):
    @pytest.fixture
    def envs(self, fresh_postgres_env):
        return fresh_postgres_env, fresh_postgres_env  # each application has its own tables
