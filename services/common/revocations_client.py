"""The revocation list read over gRPC: AccountService.ListRevokedSessions, with no token (any
caller may read it) and a deadline of its own, on the asyncio channel of the process that
polls it (services/common/revocations.py). Kept apart so that module needs no gRPC."""

from __future__ import annotations

import grpc

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc

from .revocations import CursorAhead, Page, Unreachable

DEADLINE_SECONDS = 1.0
# A channel whose server was away waits before it connects again, by default up to 120 s; a
# list read every second must find the account service the second it is back: at most 0.8 s,
# which gRPC's 20% jitter keeps under the poller's second (1 s could become 1.2 s and miss it).
RECONNECT_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 500), ("grpc.min_reconnect_backoff_ms", 500),
                     ("grpc.max_reconnect_backoff_ms", 800))


class GrpcRevocationSource:
    """The channel opens on the first read, on the loop that reads (a grpc.aio channel belongs
    to its loop)."""

    def __init__(self, address: str, deadline_seconds: float = DEADLINE_SECONDS) -> None:
        self.address = address
        self.deadline_seconds = deadline_seconds
        self._channel: grpc.aio.Channel | None = None
        self._stub: pb_grpc.AccountServiceStub | None = None

    async def page(self, after_cursor: int, page_size: int, wait_seconds: float = 0) -> Page:
        if self._stub is None:
            self._channel = grpc.aio.insecure_channel(self.address, options=RECONNECT_OPTIONS)
            self._stub = pb_grpc.AccountServiceStub(self._channel)
        try:
            reply = await self._stub.ListRevokedSessions(
                pb.ListRevokedSessionsRequest(after_cursor=after_cursor, page_size=page_size,
                                              wait_seconds=int(wait_seconds)),
                timeout=self.deadline_seconds + int(wait_seconds))
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.OUT_OF_RANGE:
                raise CursorAhead(error.details() or "") from None
            raise Unreachable(f"{error.code().name}: {(error.details() or '')[:120]}") from None
        return Page(tuple((s.session_id, s.expires_at.ToNanoseconds() / 1e9) for s in reply.sessions),
                    reply.next_cursor, reply.more)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = self._stub = None
