"""Staff (the console's `operator` tokens) calling a match service on loopback: their tokens,
the MatchAdminService stub on the service's channel, and a staff member's WatchMatch read in
the background."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from domino.admin.v1 import match_admin_service_pb2_grpc as admin_grpc
from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import mint_token
from tests.support.keys import KEYS


def staff(*roles: str, subject: str = "staff-ada") -> tuple:
    """gRPC metadata with an operator token of a member of staff holding ``roles``."""
    token = mint_token(subject, KEYS, "operator", staff_roles=roles, staff_name="Ada Ops")
    return (("authorization", f"Bearer {token}"),)


def admin_stub(svc) -> admin_grpc.MatchAdminServiceStub:
    return admin_grpc.MatchAdminServiceStub(svc.channel)


class Watcher:
    """A WatchMatch stream with ``metadata``, from the match's beginning, read in a thread of
    its own until it ends (once the match has)."""

    def __init__(self, svc, match_id: str, metadata, seconds: float = 60) -> None:
        self._pool = ThreadPoolExecutor(1)
        self._stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=metadata,
                                           timeout=seconds)
        self._updates: Future = self._pool.submit(lambda: [u for u in self._stream])

    def updates(self, seconds: float = 30) -> list[pb.WatchMatchResponse]:
        try:
            return self._updates.result(seconds)
        finally:
            self._stream.cancel()
            self._pool.shutdown(wait=False)
