"""The social service as the match service calls it: CheckRelations (who blocks whom at a
table, for blocks.py), with the match service's own `service` token (sub "match"), under a
deadline. Any failure is RelationsUnknown: blocks.py decides what a stream does then."""

from __future__ import annotations

import grpc

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

from .blocks import RelationsUnknown

SERVICE_SUBJECT = "match"
TOKEN_TTL_SECONDS = 600


class GrpcRelations:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 1.0) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.SocialServiceStub(self.channel)
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)
        self.timeout_seconds = timeout_seconds

    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        request = pb.CheckRelationsRequest(player_id=player_id, others=others)
        try:
            reply = await self.stub.CheckRelations(request, metadata=self.token.metadata(),
                                                   timeout=self.timeout_seconds)
        except grpc.RpcError as error:
            raise RelationsUnknown(f"{error.code().name} {error.details() or ''}".strip()) from None
        return frozenset(r.player_id for r in reply.relations if r.blocked)

    async def close(self) -> None:
        await self.channel.close()
