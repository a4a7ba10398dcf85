"""The Directory port (use_cases.py) over gRPC: AccountService.FindPlayerByDisplayName and
GetStanding, with the social service's own `service` token (sub "social"), under a short
deadline. Nothing is cached: a renamed or deleted player is answered as they are now."""

from __future__ import annotations

import logging

import grpc

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

from .errors import AccountsUnavailable

log = logging.getLogger("domino.social")
SERVICE_SUBJECT = "social"
TOKEN_TTL_SECONDS = 600


class GrpcDirectory:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 2.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.AccountServiceStub(self.channel)
        self.keys = keys
        self.timeout_seconds = timeout_seconds
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)

    def find_by_display_name(self, display_name: str) -> str | None:
        try:
            reply = self.stub.FindPlayerByDisplayName(pb.FindPlayerByDisplayNameRequest(display_name=display_name),
                                                      metadata=self.token.metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return None
            raise AccountsUnavailable(f"cannot look the name up right now ({e.code().name}); try again",
                                      retry_after=1.0) from None
        return reply.player_id or None

    def exists(self, player_id: str) -> bool:
        try:
            reply = self.stub.GetStanding(pb.GetStandingRequest(player_id=player_id), metadata=self.token.metadata(),
                                          timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                return False
            raise AccountsUnavailable(f"cannot look the player up right now ({e.code().name}); try again",
                                      retry_after=1.0) from None
        return reply.standing in (pb.STANDING_ACTIVE, pb.STANDING_BANNED)

    def display_names(self, player_ids: list[str]) -> dict[str, str]:
        """player -> display name (GetDisplayNames), for a push's fallback text; {} when the
        account service cannot say (the app renders names from the ids anyway)."""
        try:
            reply = self.stub.GetDisplayNames(pb.GetDisplayNamesRequest(player_ids=player_ids),
                                              metadata=self.token.metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            log.warning("cannot read display names for a push", extra={"code": e.code().name})
            return {}
        return dict(reply.display_names)

    def close(self) -> None:
        self.channel.close()
