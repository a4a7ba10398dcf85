"""The head keys `domino play` verifies with come from the API (GetHeadKeys), asked once a
session, and again only for a record naming a key the answer lacks (a rotation since)."""

from __future__ import annotations

import json

from domino.match.v1 import match_service_pb2 as pb
from services.client import export_check
from services.client.api import MatchApi


class KeysStub:
    """GetHeadKeys answering ``keys`` (the ids it lists), counting the calls."""

    def __init__(self, *answers: tuple[str, ...]) -> None:
        self.answers = list(answers)
        self.calls: list = []

    def GetHeadKeys(self, request, metadata, timeout):
        self.calls.append(metadata)
        ids = self.answers[min(len(self.calls), len(self.answers)) - 1]
        return pb.GetHeadKeysResponse(keys=[pb.HeadKey(key_id=k, algorithm="Ed25519", public_key=b"k" * 32)
                                            for k in ids])


def api_with(stub: KeysStub) -> MatchApi:
    api = MatchApi("127.0.0.1:1", "token")
    api.stub = stub  # type: ignore[assignment]
    return api


def record_signed_with(key: str) -> str:
    return json.dumps({"format": "domino-record/1", "chain": {"head": {"key": key}}})


def test_the_head_keys_are_asked_once_a_session_and_need_no_token():
    stub = KeysStub(("a1",))
    api = api_with(stub)
    try:
        assert [k.key_id for k in api.head_keys().keys] == ["a1"]
        api.head_keys()
        assert stub.calls == [()]  # one call, no authorization metadata
    finally:
        api.close()


def test_a_record_signed_with_a_key_the_session_has_not_seen_asks_for_the_keys_again():
    stub = KeysStub(("a1",), ("a1", "b2"))
    api = api_with(stub)
    try:
        assert [k.key_id for k in export_check.fetch_keys(api, record_signed_with("a1")).keys] == ["a1"]
        assert [k.key_id for k in export_check.fetch_keys(api, record_signed_with("b2")).keys] == ["a1", "b2"]
        export_check.fetch_keys(api, record_signed_with("b2"))
        assert len(stub.calls) == 2  # asked again once, for the rotation, then kept
    finally:
        api.close()
