"""The match service's side of an account, over gRPC (the History port of application.py):
erasing a deleted account's history (MatchService.ForgetPlayer, with an `account` token
this service mints for itself) and reading a player's matches for ExportMyData (with a
short player token for that account, which this service alone can mint). Every call has a
deadline; a read the match service does not answer is PartAway (the export is UNAVAILABLE)."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token

from .errors import PartAway

SUBJECT = "accounts"
MAX_EXPORTED_MATCHES = 5000


class GrpcHistory:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 5.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.keys = keys
        self.timeout_seconds = timeout_seconds

    def forget(self, account_id: str) -> None:
        token = mint_token(SUBJECT, self.keys, "account", 300)
        self.stub.ForgetPlayer(pb.ForgetPlayerRequest(player_id=account_id),
                               metadata=(("authorization", f"Bearer {token}"),), timeout=self.timeout_seconds)

    def matches(self, account_id: str) -> list[dict[str, Any]]:
        token = mint_token(account_id, self.keys, "player", 300)
        found: list[dict[str, Any]] = []
        page = ""
        while len(found) < MAX_EXPORTED_MATCHES:
            try:
                reply = self.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=50, page_token=page),
                                                metadata=(("authorization", f"Bearer {token}"),),
                                                timeout=self.timeout_seconds)
            except grpc.RpcError as error:
                raise PartAway("the match service (the history) cannot be read now; export again soon") from error
            found += [MessageToDict(m, preserving_proto_field_name=True) for m in reply.matches]
            page = reply.next_page_token
            if not page:
                break
        return found

    def close(self) -> None:
        self.channel.close()
