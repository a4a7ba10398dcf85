"""The Social port (social.py) over gRPC: SocialService.CheckRelations and
PostNotifications, with matchmaking's own service token (sub "matchmaking"), under a short
deadline. Nothing is cached: a friendship ended or a block made a moment ago counts."""

from __future__ import annotations

from typing import cast

import grpc

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.service_tokens import ServiceToken

from .errors import NoticesRefused, SocialUnavailable
from .messages import timestamp
from .social import Relation

BATCH = 100  # both calls take at most this many players or notifications
REFUSED = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)


class GrpcSocial:
    def __init__(self, address: str, token: ServiceToken, timeout_seconds: float = 2.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.SocialServiceStub(self.channel)
        self.token = token  # matchmaking's one service token, shared with its match and account clients
        self.timeout_seconds = timeout_seconds

    def relations(self, player_id: str, others: list[str]) -> dict[str, Relation]:
        found: dict[str, Relation] = {}
        for start in range(0, len(others), BATCH):
            request = pb.CheckRelationsRequest(player_id=player_id, others=others[start:start + BATCH])
            try:
                reply = self.stub.CheckRelations(request, metadata=self.token.metadata(), timeout=self.timeout_seconds)
            except grpc.RpcError as e:
                raise SocialUnavailable(f"cannot tell who your friends are right now ({e.code().name}); try again",
                                        retry_after=1.0) from None
            found.update({r.player_id: Relation(r.friends, r.blocked) for r in reply.relations})
        return {p: found.get(p, Relation(False, False)) for p in others}

    def post(self, notices: list[dict]) -> int:
        stored = 0
        for start in range(0, len(notices), BATCH):
            request = pb.PostNotificationsRequest(notifications=[_new(n) for n in notices[start:start + BATCH]])
            try:
                reply = self.stub.PostNotifications(request, metadata=self.token.metadata(),
                                                    timeout=self.timeout_seconds)
            except grpc.RpcError as e:
                if e.code() in REFUSED:
                    raise NoticesRefused(f"{e.code().name} {e.details() or ''}".strip()) from None
                raise SocialUnavailable(f"PostNotifications failed: {e.code().name} {e.details() or ''}".strip(),
                                        retry_after=1.0) from None
            stored += reply.stored
        return stored

    def close(self) -> None:
        self.channel.close()


def _new(notice: dict) -> pb.NewNotification:
    expires = notice.get("expires_at")
    return pb.NewNotification(notification_id=notice["id"], recipient_player_id=notice["recipient"],
                              kind=cast(pb.NotificationKind, pb.NotificationKind.Value(f"NOTIFICATION_KIND_{notice['kind']}")),
                              text_key=notice["text_key"], args=notice["args"], player_id=notice["player_id"],
                              match_id=notice["match_id"], room_id=notice["room_id"], invite_id=notice["invite_id"],
                              expires_at=timestamp(expires) if expires is not None else None)
