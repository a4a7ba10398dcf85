"""The social service as the notifier calls it (its `service` token, sub "notifier", under a
deadline): ClaimPush, ForgetPushToken and PostNotifications. Errors are left to the caller,
which asks for the message again."""

from __future__ import annotations

import grpc

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

SERVICE_SUBJECT = "notifier"
TOKEN_TTL_SECONDS = 600


class SocialClient:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 3.0) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.SocialServiceStub(self.channel)
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)
        self.timeout_seconds = timeout_seconds

    async def claim(self, notification_id: str, claim_id: str = "") -> pb.ClaimPushResponse:
        return await self.stub.ClaimPush(pb.ClaimPushRequest(notification_id=notification_id, claim_id=claim_id),
                                         metadata=self.token.metadata(), timeout=self.timeout_seconds)

    async def forget(self, platform: pb.PushPlatform, token: str) -> bool:
        reply = await self.stub.ForgetPushToken(pb.ForgetPushTokenRequest(platform=platform, token=token),
                                                metadata=self.token.metadata(), timeout=self.timeout_seconds)
        return reply.removed

    async def post(self, notifications: list[pb.NewNotification]) -> int:
        reply = await self.stub.PostNotifications(pb.PostNotificationsRequest(notifications=notifications),
                                                  metadata=self.token.metadata(), timeout=self.timeout_seconds)
        return reply.stored

    async def close(self) -> None:
        await self.channel.close()
