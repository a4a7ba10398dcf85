"""Two match service replicas on one PostgreSQL racing on one match: only one play lands."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from tests.service.harness import running_service
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import auth

pytestmark = pytest.mark.integration


def test_two_replicas_racing_on_one_turn_store_exactly_one_play(fresh_postgres_env):
    clock = Clock()
    first, second = MatchApplication(env=fresh_postgres_env, clock=clock), MatchApplication(env=fresh_postgres_env, clock=clock)
    try:
        with running_service(first) as one, running_service(second) as two:
            created = one.create()
            match_id = created.match_id
            for turn in range(6):
                view = one.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("svc", "service")).view
                player = view.seats[view.turn].player_id
                # Both replicas have the match cached at this version before the race.
                two.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player))
                moves = one.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view.legal_moves
                before = len(list(first.events_after(uuid.UUID(match_id), 0)))

                def attempt(i):
                    svc = (one, two)[i % 2]
                    move = moves[i % len(moves)]
                    try:
                        svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"t{turn}-{i}",
                                                             tile=move.tile, end=move.end), metadata=auth(player))
                        return grpc.StatusCode.OK
                    except grpc.RpcError as e:
                        said = refusal(e)
                        refused.append((e.code(), said.reason, said.retry_after))
                        return e.code()

                refused: list = []
                with ThreadPoolExecutor(8) as pool:
                    codes = list(pool.map(attempt, range(8)))
                assert codes.count(grpc.StatusCode.OK) == 1, codes
                assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED}
                for code, reason, retry_after in refused:  # the losers hear why: not theirs now, or call again
                    assert (reason == "CONFLICT" and retry_after > 0) if code == grpc.StatusCode.ABORTED else \
                        reason in ("NOT_YOUR_TURN", "TILE_NOT_HELD", "ROUND_OVER", "MATCH_ENDED"), (code, reason)
                events = list(second.events_after(uuid.UUID(match_id), 0))[before:]
                plays = [e for e in events if type(e).__name__ == "TilePlayed" and not e.timeout]
                assert len(plays) == 1
    finally:
        first.close()
        second.close()



def test_get_match_at_least_a_version_newer_than_the_replicas_copy_reads_the_store(fresh_postgres_env):
    first, second = MatchApplication(env=fresh_postgres_env, clock=Clock()), MatchApplication(env=fresh_postgres_env, clock=Clock())
    try:
        with running_service(first) as one, running_service(second) as two:
            match_id = one.create().match_id
            view = two.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("svc", "service")).view
            player = view.seats[view.turn].player_id
            mine = one.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
            move = mine.legal_moves[0]
            one.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="p1", tile=move.tile, end=move.end),
                              metadata=auth(player))
            held = two.stub.GetMatch(pb.GetMatchRequest(match_id=match_id, min_version=view.version),
                                     metadata=auth(player)).view
            newer = two.stub.GetMatch(pb.GetMatchRequest(match_id=match_id, min_version=view.version + 1),
                                      metadata=auth(player)).view
            assert held.version == view.version  # its own copy was new enough
            assert newer.version > view.version and len(newer.hand) == len(mine.hand) - 1
    finally:
        first.close()
        second.close()


def test_a_replica_whose_copy_is_from_before_the_end_still_refuses_chat_after_the_grace(fresh_postgres_env):
    clock = Clock()
    first, second = MatchApplication(env=fresh_postgres_env, clock=clock), MatchApplication(env=fresh_postgres_env, clock=clock)
    try:
        with running_service(first) as one, running_service(second) as two:
            match_id = one.create(variant="draw-2", players=("ann", "bob")).match_id
            two.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_GOOD_LUCK),
                              metadata=auth("ann"))
            for player in ("ann", "bob"):  # the match ends through the first replica only
                ended = one.stub.LeaveMatch(pb.LeaveMatchRequest(match_id=match_id), metadata=auth(player)).view
            assert ended.status == pb.MATCH_STATUS_ENDED
            clock.advance(61)
            with pytest.raises(grpc.RpcError) as refused:
                two.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_HELLO),
                                  metadata=auth("ann"))
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, refused.value.details()
            assert refusal(refused.value).reason == "CHAT_CLOSED"
            assert [e.phrase for e in first.phrases_after(uuid.UUID(match_id), 0)] == ["good_luck"]
    finally:
        first.close()
        second.close()
