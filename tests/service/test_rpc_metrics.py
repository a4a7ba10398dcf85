"""RPC metrics record what happened: a caller closing its stream is CANCELLED, never an
error of ours (issue: closed WatchMatch/WatchRoom streams were counted as UNKNOWN)."""

from __future__ import annotations

import time

import grpc
from prometheus_client import CollectorRegistry

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.common.changes import ChangeFeed
from services.common.grpc_metrics import RpcMetrics
from services.match.application import MatchApplication
from services.match.bootstrap import create_server
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

from .harness import Service
from .matchmaking_harness import running_system


def counted(registry: CollectorRegistry, service: str, method: str) -> dict[str, float]:
    out = {}
    for metric in registry.collect():
        for sample in metric.samples:
            if sample.name == f"domino_{service}_rpcs_total" and sample.labels["method"] == method:
                out[sample.labels["code"]] = sample.value
    return out


def wait_for(check, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    return check()


def test_a_closed_watch_match_stream_is_counted_as_cancelled():
    import asyncio
    import threading

    registry = CollectorRegistry()
    metrics = RpcMetrics("match", registry)
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start():
        server, port = create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), metrics)
        await server.start()
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        svc = Service(app, port, loop)
        created = svc.create()
        stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=created.match_id), metadata=auth("ann"))
        next(stream)
        stream.cancel()
        codes = wait_for(lambda: counted(registry, "match", "WatchMatch"))
        assert codes == {"CANCELLED": 1.0}
        svc.channel.close()
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)


def test_a_closed_watch_room_stream_is_counted_as_cancelled():
    registry = CollectorRegistry()
    with running_system(metrics=RpcMetrics("matchmaking", registry)) as system:
        room = system.create_room("ann")
        stream = system.stub.WatchRoom(mm.WatchRoomRequest(room_id=room.room_id), metadata=auth("ann"))
        next(stream)
        stream.cancel()
        codes = wait_for(lambda: counted(registry, "matchmaking", "WatchRoom"))
        assert codes == {"CANCELLED": 1.0}
        assert counted(registry, "matchmaking", "CreateRoom") == {"OK": 1.0}


def test_stopping_ends_open_watch_streams_at_once_instead_of_waiting_out_the_grace_period():
    import asyncio
    import threading

    from services.common.grpc_server import drain, mark_serving

    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    changes = ChangeFeed()
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start():
        server, port = create_server("127.0.0.1:0", app, KEYS, changes)
        await server.start()
        await mark_serving(server)
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    svc = Service(app, port, loop)
    created = svc.create()
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=created.match_id), metadata=auth("ann"))
    next(stream)
    time.sleep(0.2)  # the stream now waits for a change
    began = time.monotonic()
    asyncio.run_coroutine_threadsafe(drain(server, 10, changes), loop).result(20)
    assert time.monotonic() - began < 3
    rest = list(stream)  # ends by itself (an error here would be a stream cut by the stop)
    assert all(m.event.version <= created.view.version for m in rest)
    svc.channel.close()
    loop.call_soon_threadsafe(loop.stop)
