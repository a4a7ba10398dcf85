"""Match service replicas that share one store and one record of open streams, as two
replicas run in production, and seated players' WatchMatch streams held open on them; for
the tests of the notifier's and the social service's calls (services/match/notice_rpcs.py)."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterator

import grpc

from domino.match.v1 import match_service_pb2 as pb
from services.common.changes import ChangeFeed
from services.history.view import View
from services.match.application import MatchApplication
from services.match.bootstrap import create_server
from services.match.open_streams import OpenStreams
from services.match.stream_record import StreamRecord
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth

from .harness import UNLIMITED, Service

NOTIFIER = auth("notifier", "service")
SOCIAL = auth("social", "service")


class Replica(Service):
    open_streams: OpenStreams

    def turn_attention(self, match_id: str, version: int, metadata=NOTIFIER) -> pb.GetTurnAttentionResponse:
        return self.stub.GetTurnAttention(pb.GetTurnAttentionRequest(match_id=match_id, version=version),
                                          metadata=metadata, timeout=10)

    def settled(self) -> None:
        """Until what its streams changed is written to the shared record."""
        self.run(self.open_streams.settled())

    def renew(self) -> None:
        self.run(self.open_streams.renew())


@contextmanager
def replica(app: MatchApplication, open_streams: OpenStreams, history: View | None = None) -> Iterator[Replica]:
    """A match service over ``app``'s store whose seated streams ``open_streams`` records;
    stopped without closing the record (as a killed replica leaves it): ``close`` is the test's."""
    def create():
        return create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=UNLIMITED(), history=history,
                             open_streams=open_streams)

    with serving_in_background(create) as (port, loop):
        service = Replica(app, port, loop)
        service.open_streams = open_streams
        service.run(open_streams.start())
        try:
            yield service
        finally:
            service.channel.close()


def shared_record(env: dict[str, str], name: str, clock: Callable[[], float]) -> OpenStreams:
    """Replica ``name``'s side of the record of open streams of the store ``env`` names."""
    return OpenStreams(StreamRecord.for_env(env), name, clock)


class Watching:
    """``player`` watching ``match_id`` on ``svc`` until ``close``: opened once its first
    message arrived (the server has counted it by then)."""

    def __init__(self, svc: Service, match_id: str, player: str, role: str = "player") -> None:
        self._pool = ThreadPoolExecutor(1)
        self._stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=auth(player, role),
                                           timeout=60)
        first = next(self._stream)
        assert first.view.version >= 1
        self._rest: Future = self._pool.submit(self._drain)

    def _drain(self) -> None:
        try:
            for _ in self._stream:
                pass
        except grpc.RpcError:
            pass

    def close(self) -> None:
        self._stream.cancel()
        self._rest.result(10)
        self._pool.shutdown()


def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for what another thread does (a cancelled stream's server side ending)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "it did not happen in time"
        time.sleep(0.01)
