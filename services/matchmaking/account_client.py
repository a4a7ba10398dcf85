"""The Standings port over gRPC: AccountService.GetStanding, with matchmaking's own service
token, under a short deadline. Nothing is cached: a ban refuses the next request."""

from __future__ import annotations

import datetime

import grpc

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc

from services.common.service_tokens import ServiceToken

from .errors import AccountDeleted, AccountsUnavailable, Banned


class GrpcStandings:
    def __init__(self, address: str, token: ServiceToken, timeout_seconds: float = 2.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.AccountServiceStub(self.channel)
        self.token = token  # matchmaking's one service token, shared with its match client
        self.timeout_seconds = timeout_seconds

    def check(self, player_id: str) -> None:
        """Banned or AccountDeleted when the player may not play."""
        try:
            reply = self.stub.GetStanding(pb.GetStandingRequest(player_id=player_id),
                                          metadata=self.token.metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            raise AccountsUnavailable(f"cannot check your account right now ({e.code().name}); try again") from None
        if reply.standing == pb.STANDING_BANNED:
            until = datetime.datetime.fromtimestamp(reply.until.seconds, datetime.timezone.utc)
            raise Banned(f"this account is banned until {until:%Y-%m-%d %H:%M} UTC: {reply.reason}",
                         until.isoformat().replace("+00:00", "Z"))
        if reply.standing == pb.STANDING_DELETED:
            raise AccountDeleted("this account has been deleted")

    def close(self) -> None:
        self.channel.close()
