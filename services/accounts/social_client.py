"""The social service's side of an account, over gRPC (the Social port of use_cases.py): a
player's friend code, friends, pending requests and blocks for ExportMyData
(SocialService.ExportPlayerData), their erasure after DeleteAccount
(SocialService.ErasePlayer), and the inbox notices of notices.py
(SocialService.PostNotifications), all with the `account` token this service mints for
itself, `sub` "accounts" as for the match service's ForgetPlayer. Every call has a deadline;
a call the social service does not answer is PartAway for the export, and an exception the
erasure's and the notices' retry keeps the account or the notice pending on."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token

from .errors import PartAway
from .match_client import SUBJECT
from .notices import ACCOUNT, BAN, Notice, NoticesRefused

_KINDS = {BAN: pb.NOTIFICATION_KIND_BAN, ACCOUNT: pb.NOTIFICATION_KIND_ACCOUNT}


class GrpcSocial:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 5.0,
                 notice_timeout_seconds: float = 2.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.SocialServiceStub(self.channel)
        self.keys = keys
        self.timeout_seconds = timeout_seconds
        self.notice_timeout_seconds = notice_timeout_seconds  # a ban or a sign-in waits this long at most

    def _metadata(self) -> tuple:
        return (("authorization", f"Bearer {mint_token(SUBJECT, self.keys, 'account', 300)}"),)

    def forget(self, account_id: str) -> None:
        self.stub.ErasePlayer(pb.ErasePlayerRequest(player_id=account_id), metadata=self._metadata(),
                              timeout=self.timeout_seconds)

    def data(self, account_id: str) -> dict[str, Any]:
        try:
            reply = self.stub.ExportPlayerData(pb.ExportPlayerDataRequest(player_id=account_id),
                                               metadata=self._metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as error:
            raise PartAway("the social service (friends and blocks) cannot be read now; export again soon") \
                from error
        found = MessageToDict(reply, preserving_proto_field_name=True)
        return {"friend_code": reply.friend_code or None,
                "friend_code_created_at": found.get("friend_code_created_at"),
                "friends": found.get("friends", []), "friend_requests": found.get("requests", []),
                "blocked": found.get("blocked", []), "push_tokens": found.get("push_tokens", []),
                "notification_settings": found.get("notification_settings", {}),
                "notifications": found.get("notifications", [])}

    def post(self, batch: list[Notice]) -> None:
        """Stores ``batch`` in the recipients' inboxes (idempotent per notification id);
        NoticesRefused when the social service calls them invalid (they never will be
        valid), grpc.RpcError when it is away or busy (try again)."""
        request = pb.PostNotificationsRequest(notifications=[
            pb.NewNotification(notification_id=n.notification_id, recipient_player_id=n.account_id,
                               kind=_KINDS[n.kind], text_key=n.text_key, args=n.args) for n in batch])
        try:
            self.stub.PostNotifications(request, metadata=self._metadata(), timeout=self.notice_timeout_seconds)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
                raise NoticesRefused(error.details() or "refused") from error
            raise

    def close(self) -> None:
        self.channel.close()
