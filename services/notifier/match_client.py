"""The match service as the notifier calls it (sub "notifier", under a deadline):
GetTurnAttention and DescribeMatchEnd. ``refused`` tells a settled answer (the match is not
what the message says: trying again cannot help) from a passing failure."""

from __future__ import annotations

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

SERVICE_SUBJECT = "notifier"
TOKEN_TTL_SECONDS = 600
SETTLED = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)


class MatchClient:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 3.0) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)
        self.timeout_seconds = timeout_seconds

    async def turn_attention(self, match_id: str, version: int) -> pb.GetTurnAttentionResponse:
        return await self.stub.GetTurnAttention(pb.GetTurnAttentionRequest(match_id=match_id, version=version),
                                                metadata=self.token.metadata(), timeout=self.timeout_seconds)

    async def still_to_act(self, match_id: str, version: int) -> bool:
        reply = await self.turn_attention(match_id, version)
        return reply.to_act and not reply.streaming

    async def match_end(self, match_id: str) -> pb.DescribeMatchEndResponse:
        return await self.stub.DescribeMatchEnd(pb.DescribeMatchEndRequest(match_id=match_id),
                                                metadata=self.token.metadata(), timeout=self.timeout_seconds)

    async def close(self) -> None:
        await self.channel.close()


def settled(error: BaseException) -> str | None:
    """The status code's name when the match service's refusal is final, else None."""
    if isinstance(error, grpc.aio.AioRpcError) and error.code() in SETTLED:
        return error.code().name
    return None
