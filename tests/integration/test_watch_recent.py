"""WatchMatch on PostgreSQL: a stream woken by a change this replica stored takes the new
events from what the replica kept of them; a stream that would miss one stored elsewhere asks
the store. Streams never re-read on a timer, and the second test's replica hears no pushes,
so every wake there is one of its own moves."""

from __future__ import annotations

import time

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common.changes import ChangeFeed
from services.match.application import MatchApplication
from services.match.bootstrap import change_tail
from tests.service.harness import running_service
from tests.support.clock import Clock
from tests.support.grpc_matches import act
from tests.support.keys import auth

pytestmark = pytest.mark.integration
SERVICE = auth("svc", "service")


def act_once(svc, match_id: str, n: int) -> int:
    """The seat to act makes a move; the version it stored."""
    return act(svc, match_id, svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view, n).version


def next_versions(stream, until: int) -> list[int]:
    seen: list[int] = []
    while not seen or seen[-1] < until:
        update = next(stream)
        if update.HasField("event"):
            seen.append(update.event.version)
    return seen


def store_reads(app, monkeypatch) -> list:
    reads: list = []
    real = app.events_after

    def counted(match_id, version):
        reads.append(version)
        return real(match_id, version)

    monkeypatch.setattr(app, "events_after", counted)
    return reads


def test_a_stream_woken_by_this_replicas_moves_reads_them_from_memory(fresh_postgres_env, monkeypatch):
    app = MatchApplication(env=fresh_postgres_env, clock=Clock())
    reads = store_reads(app, monkeypatch)
    try:
        with running_service(app) as svc:
            match_id = svc.create().match_id
            start = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view.version
            stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=start),
                                         metadata=SERVICE)
            try:
                versions = [start]
                for n in range(4):
                    last = act_once(svc, match_id, n)
                    versions += next_versions(stream, last)
            finally:
                stream.cancel()
        assert versions == list(range(start, last + 1))
        assert reads == [start]  # the stream's first read only
    finally:
        app.close()


def test_a_stream_that_would_miss_a_move_stored_by_another_replica_asks_the_store(fresh_postgres_env, monkeypatch):
    first, second = MatchApplication(env=fresh_postgres_env, clock=Clock()), MatchApplication(env=fresh_postgres_env, clock=Clock())
    reads = store_reads(second, monkeypatch)
    tail = change_tail(second, ChangeFeed(), safety_seconds=3600)

    async def deaf(notes):  # the second replica's tail hears nothing: only the gap sends its stream to the store
        return 0

    monkeypatch.setattr(tail, "take", deaf)
    try:
        with running_service(first) as one, running_service(second, tail=tail) as two:
            match_id = one.create().match_id
            start = two.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view.version
            two.run(tail.started())  # so the stream's first read is not held back behind the move below
            stream = two.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=start),
                                         metadata=SERVICE)
            try:
                while not reads:  # the stream's first read has begun: let it end before the moves
                    time.sleep(0.01)
                time.sleep(0.3)
                act_once(one, match_id, 0)  # the second replica is not told
                last = act_once(two, match_id, 1)
                versions = next_versions(stream, last)
            finally:
                stream.cancel()
        assert versions == list(range(start + 1, last + 1))
        assert reads == [start, start]  # the first read, and the one the gap sent to the store
    finally:
        first.close()
        second.close()
