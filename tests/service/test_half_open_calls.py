"""Calls opened and never sent: what a real MatchService (services/common/grpc_server.py)
does with HTTP/2 HEADERS frames that no DATA follows, sent by a bare HTTP/2 client
(tests/support/raw_h2.py) as the red team did, without a token.

Before these bounds one connection could open 130,000 such calls, and the match service
grew from 121 MB to 586 MB, past its pod's limit (bench/h2_flood.py measures it)."""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager
from typing import Callable, Iterator

import grpc
import pytest
from pydantic import ValidationError

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common import free_memory
from services.common.changes import ChangeFeed
from services.common.config import Settings
from services.match.application import MatchApplication
from services.match.bootstrap import create_server
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth
from tests.support.raw_h2 import (ENHANCE_YOUR_CALM, GET_MATCH, REFUSED_STREAM, SETTINGS_MAX_CONCURRENT_STREAMS,
                                  RawH2Connection)

from .harness import UNLIMITED


@contextmanager
def serving(**settings) -> Iterator[tuple[str, int]]:
    """A MatchService with these DOMINO_* settings (by field name) on 127.0.0.1."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})

    def create():
        return create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=UNLIMITED(),
                             settings=Settings(**settings))

    with serving_in_background(create) as (port, _loop):
        yield "127.0.0.1", port


def until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Whether ``condition`` holds within ``seconds`` (the server answers on its own thread)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def get_match_status(host: str, port: int) -> grpc.StatusCode:
    """What a well-behaved client gets for a GetMatch of an unknown match (NOT_FOUND when served)."""
    with grpc.insecure_channel(f"{host}:{port}") as channel:
        try:
            pb_grpc.MatchServiceStub(channel).GetMatch(pb.GetMatchRequest(match_id=str(uuid.uuid4())),
                                                       metadata=auth("ann"), timeout=5)
        except grpc.RpcError as error:
            return error.code()
    return grpc.StatusCode.OK


def test_the_server_advertises_its_stream_bound_and_refuses_headers_beyond_it():
    with serving(grpc_max_concurrent_streams=100) as (host, port), RawH2Connection(host, port) as attacker:
        assert attacker.frames.settings_seen.wait(5)
        assert attacker.frames.settings.get(SETTINGS_MAX_CONCURRENT_STREAMS) == 100
        attacker.open_calls(150)
        assert until(lambda: attacker.frames.resets[REFUSED_STREAM] == 50), attacker.frames.resets
        assert attacker.open_streams() == 100
        assert get_match_status(host, port) == grpc.StatusCode.NOT_FOUND  # others are still served


def test_a_client_that_never_acknowledges_the_settings_is_held_to_the_bound_too():
    with serving(grpc_max_concurrent_streams=100) as (host, port), \
            RawH2Connection(host, port, ack_settings=False) as attacker:
        assert attacker.frames.settings_seen.wait(5)
        attacker.open_calls(150)
        assert until(lambda: len(attacker.frames.reset_streams) == 50), attacker.frames.resets
        assert set(attacker.frames.resets) <= {REFUSED_STREAM, ENHANCE_YOUR_CALM}
        assert attacker.open_streams() == 100


def test_calls_whose_request_never_comes_are_ended_after_the_request_wait():
    with serving(grpc_request_wait_seconds=0.3) as (host, port), RawH2Connection(host, port) as attacker:
        attacker.open_calls(20)
        started = time.monotonic()
        assert until(lambda: len(attacker.frames.ended) == 20), len(attacker.frames.ended)
        assert time.monotonic() - started >= 0.25
        assert attacker.open_streams() == 0
        assert get_match_status(host, port) == grpc.StatusCode.NOT_FOUND


def test_a_grpc_call_without_its_request_gets_deadline_exceeded_and_one_that_sends_it_is_served():
    """The same through a grpc client: a request stream that never yields on a unary method."""
    never = threading.Event()

    def no_request():
        never.wait(10)
        yield from ()

    with serving(grpc_request_wait_seconds=0.3) as (host, port), grpc.insecure_channel(f"{host}:{port}") as channel:
        half_open = channel.stream_unary(GET_MATCH, request_serializer=lambda m: m.SerializeToString(),
                                         response_deserializer=pb.MatchView.FromString)
        try:
            with pytest.raises(grpc.RpcError) as ended:
                half_open(no_request(), metadata=auth("ann"), timeout=5)
        finally:
            never.set()
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "no request message within 0.3 s" in ended.value.details()
        with pytest.raises(grpc.RpcError) as served:  # with its request: the handler runs
            half_open(iter([pb.GetMatchRequest(match_id=str(uuid.uuid4()))]), metadata=auth("ann"), timeout=5)
        assert served.value.code() == grpc.StatusCode.NOT_FOUND


def test_calls_beyond_the_process_bound_are_refused_and_served_again_once_some_end():
    with serving(streams_per_process=3, grpc_max_concurrent_calls=5, grpc_request_wait_seconds=0) as (host, port), \
            RawH2Connection(host, port) as attacker:
        attacker.open_calls(5)
        assert until(lambda: get_match_status(host, port) == grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert attacker.open_streams() == 5
        attacker.close()  # its calls end with its connection
        assert until(lambda: get_match_status(host, port) == grpc.StatusCode.NOT_FOUND)


def test_the_process_bound_must_leave_room_above_the_stream_cap():
    with pytest.raises(ValidationError, match="DOMINO_GRPC_MAX_CONCURRENT_CALLS"):
        Settings(streams_per_process=2000, grpc_max_concurrent_calls=2000)
    assert Settings().grpc_max_concurrent_calls > Settings().streams_per_process
    Settings(streams_per_process=2000, grpc_max_concurrent_calls=0)  # 0: no bound (measurements only)


def test_a_serving_server_releases_freed_memory_until_it_stops(monkeypatch):
    """What a flood freed is handed back while the server serves (bench/h2_flood.py --rounds
    measures the effect), and the releasing ends with the server."""
    releases: list[bool] = []
    real = free_memory.release

    def counted() -> bool:
        releases.append(real())
        return releases[-1]

    monkeypatch.setattr(free_memory, "release", counted)
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    found = {}

    def create():
        server, port = create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=UNLIMITED(),
                                     settings=Settings(memory_release_seconds=0.05))
        found["server"] = server
        return server, port

    with serving_in_background(create, mark_serving=True) as (port, loop):
        with RawH2Connection("127.0.0.1", port) as attacker:
            attacker.open_calls(50)
        assert until(lambda: len(releases) >= 2)
        assert get_match_status("127.0.0.1", port) == grpc.StatusCode.NOT_FOUND
    task = found["server"].releasing_memory
    assert until(task.done)
    assert task.result() == sum(releases)
