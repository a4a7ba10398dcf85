"""What one player, one process and a hung neighbour can take from a service: open streams
are capped per caller and per process, requests are rate-limited per caller, and a hung
match service holds up no other matchmaking call (each point an attack that once worked)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from prometheus_client import CollectorRegistry

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc
from services.common.changes import ChangeFeed
from services.common.config import Settings
from services.common.limits import RateLimit, StreamLimits, limits_of
from services.match.application import MatchApplication
from services.match.bootstrap import count_open_streams, create_server
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.match_client import GrpcMatchCreator
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

from .harness import Service
from .matchmaking_harness import POPO, running_matchmaking


def serving(limits):
    """A match service with these limits, on a loop of its own; returns (Service, stop)."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start():
        server, port = create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=limits)
        await server.start()
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)

    def stop():
        asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)

    return Service(app, port, loop), stop


def watch(svc, match_id: str, player: str, role: str = "player"):
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=auth(player, role), timeout=20)
    return stream, next(stream)


def test_a_player_may_hold_only_so_many_open_streams():
    svc, stop = serving((StreamLimits(per_caller=2, per_process=100), RateLimit(1e9, 1e9)))
    try:
        match_id = svc.create().match_id
        held = [watch(svc, match_id, "ann")[0] for _ in range(2)]
        with pytest.raises(grpc.RpcError) as caught:
            watch(svc, match_id, "ann")
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "2 open streams" in caught.value.details()
        watch(svc, match_id, "bob")[0].cancel()  # somebody else is not affected
        held.pop().cancel()
        time.sleep(0.3)
        watch(svc, match_id, "ann")[0].cancel()  # a closed stream frees its place
        for stream in held:
            stream.cancel()
    finally:
        stop()


def test_a_process_serves_only_so_many_open_streams():
    svc, stop = serving((StreamLimits(per_caller=10, per_process=3), RateLimit(1e9, 1e9)))
    try:
        match_id = svc.create().match_id
        held = [watch(svc, match_id, player)[0] for player in ("ann", "bob", "cat")]
        with pytest.raises(grpc.RpcError) as caught:
            watch(svc, match_id, "dan")
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "3 open streams" in caught.value.details()
        for stream in held:
            stream.cancel()
    finally:
        stop()


def spectators_fill(svc, match_id: str, accounts: int, streams_each: int) -> tuple[list, list[grpc.RpcError]]:
    """Each of ``accounts`` spectator accounts opens ``streams_each`` streams on the match:
    (the streams that opened, the refusals)."""
    held, refused = [], []
    for n in range(accounts):
        for _ in range(streams_each):
            try:
                held.append(watch(svc, match_id, f"fan{n}")[0])
            except grpc.RpcError as e:
                refused.append(e)
    return held, refused


def test_spectators_filling_their_share_leave_a_seated_player_of_another_match_room():
    settings = Settings(streams_per_caller=4, streams_per_process=40, spectator_streams_per_process=10,
                        spectator_streams_per_match=100)
    limits = limits_of(settings)
    svc, stop = serving(limits)
    try:
        watched = svc.create(request_id="public table", spectators=True).match_id
        other = svc.create(request_id="other table", players=("eve", "fay", "gus", "hal")).match_id
        held, refused = spectators_fill(svc, watched, accounts=11, streams_each=4)  # the attack: 44 > 40 streams
        assert len(held) == 10 and len(refused) == 34
        assert {e.code() for e in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
        assert all("10 open spectator streams" in e.details() for e in refused)
        seated = watch(svc, other, "eve")[0]  # a seated player of another match still finds room
        registry = CollectorRegistry()
        count_open_streams(limits[0], registry)
        assert registry.get_sample_value("domino_match_open_streams", {"kind": "spectator"}) == 10
        assert registry.get_sample_value("domino_match_open_streams", {"kind": "seated"}) == 1
        for stream in held + [seated]:
            stream.cancel()
    finally:
        stop()


def test_one_match_has_only_so_many_spectator_streams_and_its_players_and_other_matches_are_not_affected():
    svc, stop = serving(limits_of(Settings(streams_per_caller=4, streams_per_process=40,
                                           spectator_streams_per_match=3)))
    try:
        watched = svc.create(request_id="watched", spectators=True).match_id
        other = svc.create(request_id="other", players=("eve", "fay", "gus", "hal"), spectators=True).match_id
        held, refused = spectators_fill(svc, watched, accounts=4, streams_each=1)
        assert len(held) == 3 and [e.code() for e in refused] == [grpc.StatusCode.RESOURCE_EXHAUSTED]
        assert "this match has 3 spectator streams" in refused[0].details()
        held.append(watch(svc, watched, "ann")[0])  # its own players,
        held.append(watch(svc, watched, "matchmaking", "service")[0])  # services,
        held.append(watch(svc, other, "fan3")[0])  # and spectators of another match still find room
        for stream in held:
            stream.cancel()
    finally:
        stop()


def test_a_player_making_requests_too_fast_is_refused_and_nobody_else_is():
    svc, stop = serving((StreamLimits(), RateLimit(rate=1, burst=3)))
    try:
        match_id = svc.create().match_id
        get = lambda player: svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player))  # noqa: E731
        for _ in range(3):
            get("ann")
        with pytest.raises(grpc.RpcError) as caught:
            get("ann")
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "slow down" in caught.value.details()
        get("bob")
        time.sleep(1.1)
        get("ann")  # a second later, one more
    finally:
        stop()


def test_a_hung_match_service_holds_up_no_other_matchmaking_call():
    hung = socket.socket()  # accepts connections and never answers: CreateMatch waits for its deadline
    hung.bind(("127.0.0.1", 0))
    hung.listen(64)
    creator = GrpcMatchCreator(f"127.0.0.1:{hung.getsockname()[1]}", KEYS, timeout_seconds=2)
    changes = ChangeFeed()
    app = MatchmakingApplication(env=POPO, matches=creator, on_change=changes.publish)
    try:
        with running_matchmaking(app, changes) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = mm_grpc.MatchmakingServiceStub(channel)

            def practice(n: int):
                try:
                    stub.StartPractice(mm.StartPracticeRequest(request_id=f"p{n}", variant="draw-2"),
                                       metadata=auth(f"p{n}"), timeout=15)
                except grpc.RpcError as e:
                    return e.code()

            with ThreadPoolExecutor(12) as pool:
                waiting = [pool.submit(practice, n) for n in range(12)]
                time.sleep(0.5)
                began = time.monotonic()
                room = stub.CreateRoom(mm.CreateRoomRequest(request_id="r", variant="draw-2"), metadata=auth("host"),
                                       timeout=5).room
                took = time.monotonic() - began
                codes = [w.result() for w in waiting]
            assert room.room_id and took < 1.0, took
            assert set(codes) <= {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}, codes
    finally:
        creator.close()
        hung.close()
