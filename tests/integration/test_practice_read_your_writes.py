"""Issue 35, "Read your writes", as a player meets it: the moment a practice match's end is
stored, the next practice starts and the history lists the result, through replicas other
than the ones that played it, written once and run on SQLite and on PostgreSQL.

Two match-service replicas share one store (with its history view, whose projection caught
up once at the start and never runs again), and two matchmaking replicas share theirs, each
creating its matches through one of the match replicas. A player practises through the first
pair until the match ends (every turn times out, then the server plays the seats); at once,
on the same injected clock (no second passes), the second matchmaking replica starts their
next practice and the second match replica lists the finished match with its result and
scores. Nothing relays `match_ended` and no projection applies it: both answers come from
the stored end itself.
"""

from __future__ import annotations

from contextlib import ExitStack

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.changes import ChangeFeed
from services.match.history_projection import HistoryProjection
from services.history.view import View
from services.match.application import MatchApplication
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.match_client import GrpcMatchCreator
from tests.integration.test_matchmaking_read_your_writes import play_out
from tests.service.harness import running_service
from tests.service.matchmaking_harness import SERVICE, running_matchmaking
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration


def result_of(final: match_pb.MatchView, seat: int) -> int:
    """The result ListMyMatches owes the player at ``seat`` of the ended two-seat match."""
    if not final.HasField("winner"):
        return match_pb.MATCH_RESULT_TIED
    return match_pb.MATCH_RESULT_WON if final.winner == seat else match_pb.MATCH_RESULT_LOST


class ReadYourWrites:
    @pytest.fixture
    def envs(self) -> tuple[dict[str, str], dict[str, str]]:
        """(the match service's store, matchmaking's)."""
        raise NotImplementedError

    def test_the_next_practice_starts_and_the_history_lists_the_result_the_moment_a_practice_ends(self, envs):
        match_env, matchmaking_env = envs
        clock = Clock()
        with ExitStack() as stack:
            history = View.for_env(match_env)
            stack.callback(history.close)
            replicas = []
            for _ in range(2):
                app = MatchApplication(env=match_env, clock=clock)
                stack.callback(app.close)
                replicas.append(stack.enter_context(running_service(app, history=history)))
            playing, listing = replicas
            HistoryProjection(playing.app, history).start()  # caught up once, before any match: never again
            stubs = []
            for replica in replicas:  # matchmaking replica i creates its matches through match replica i
                creator = GrpcMatchCreator(f"127.0.0.1:{replica.port}", KEYS)
                stack.callback(creator.close)
                changes = ChangeFeed()
                mm = MatchmakingApplication(env=matchmaking_env, matches=creator, clock=clock, on_change=changes.publish)
                stack.callback(mm.close)
                port = stack.enter_context(running_matchmaking(mm, changes))
                channel = stack.enter_context(grpc.insecure_channel(f"127.0.0.1:{port}"))
                stubs.append(pb_grpc.MatchmakingServiceStub(channel))
            first, other = stubs

            started = first.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2", target=51),
                                          metadata=auth("ann"))
            play_out(playing, clock, started.match_id)
            final = playing.stub.GetMatch(match_pb.GetMatchRequest(match_id=started.match_id), metadata=SERVICE).view
            assert final.status == match_pb.MATCH_STATUS_ENDED
            seat = [s.player_id for s in final.seats].index("ann")
            ended_at = clock()

            following = other.StartPractice(pb.StartPracticeRequest(request_id="p2", variant="draw-2"),
                                            metadata=auth("ann"))
            assert following.match_id and following.match_id != started.match_id
            listed = listing.stub.ListMyMatches(match_pb.ListMyMatchesRequest(), metadata=auth("ann")).matches
            rows = {row.match_id: row for row in listed}
            assert set(rows) == {started.match_id, following.match_id}
            done = rows[started.match_id]
            assert done.result == result_of(final, seat) != match_pb.MATCH_RESULT_IN_PLAY
            assert list(done.scores) == list(final.scores) and len(done.scores) == 2
            assert done.HasField("ended_at") and done.your_seat == seat
            assert rows[following.match_id].result == match_pb.MATCH_RESULT_IN_PLAY
            assert clock() == ended_at  # not a second later: read, not waited for


class TestWithSQLite(ReadYourWrites):
    @pytest.fixture
    def envs(self, tmp_path):
        from services.common.servers import sqlite_env

        return sqlite_env(tmp_path / "match.sqlite"), sqlite_env(tmp_path / "matchmaking.sqlite")


class TestWithPostgres(ReadYourWrites):
    @pytest.fixture
    def envs(self, fresh_postgres_env):
        return fresh_postgres_env, fresh_postgres_env  # each application has its own tables
