"""MatchService.GetHeadKeys over real gRPC: the public keys the heads are signed with, each
with its period of use, to anyone, token or not. Players were told to keep signed heads,
but no RPC served the keys: `--key` worked only by reading the server's
var/keys/heads-keys.json."""

from __future__ import annotations

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import mint_token
from services.match.application import MatchApplication
from services.match.head_keys import HeadKeys
from services.match.heads import PUBLISHED_FILE, PublishedKey, PublishedKeys, key_id, load_signer, rotate
from services.match.messages import head_of
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .harness import running_service

DAY = 86_400


@pytest.fixture
def app():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    yield app
    app.close()


def head_keys(svc, metadata=()) -> list[pb.HeadKey]:
    return list(svc.stub.GetHeadKeys(pb.GetHeadKeysRequest(), metadata=metadata).keys)


def published(keys: list[pb.HeadKey]) -> PublishedKeys:
    """The keys as a verifier takes them (a domino-keys/1 file), from the API's answer alone."""
    return PublishedKeys([PublishedKey(k.key_id, Ed25519PublicKey.from_public_bytes(k.public_key),
                                       k.valid_from.seconds if k.HasField("valid_from") else None,
                                       k.valid_until.seconds if k.HasField("valid_until") else None) for k in keys])


def test_anyone_gets_the_key_the_heads_are_signed_with_without_a_token(app):
    with running_service(app) as svc:
        (key,) = head_keys(svc)
        assert (key.key_id, key.algorithm) == (svc.signer.key_id, "Ed25519")
        assert key_id(Ed25519PublicKey.from_public_bytes(key.public_key)) == key.key_id
        view = svc.create(variant="draw-2", players=("ann", "bob")).view
        assert published([key]).problem(head_of(view.head)) is None  # it verifies the heads players keep


@pytest.mark.parametrize("metadata", [auth("ann"), auth("matchmaking", "service"),
                                      (("authorization", f"Bearer {mint_token('ann', KEYS, ttl_seconds=-10)}"),),
                                      (("authorization", "Bearer not-a-jwt"),)],
                         ids=["player", "service", "expired", "malformed"])
def test_a_token_of_any_kind_or_none_that_verifies_is_no_hindrance(app, metadata):
    with running_service(app) as svc:
        assert [k.key_id for k in head_keys(svc, metadata)] == [svc.signer.key_id]


def test_the_published_keys_are_served_oldest_first_with_their_periods_of_use(app, tmp_path):
    old = rotate(tmp_path, now=1_000_000, overlap_seconds=DAY)
    new = rotate(tmp_path, now=2_000_000, overlap_seconds=DAY)
    with running_service(app, signer=load_signer(tmp_path), keys_dir=str(tmp_path)) as svc:
        keys = head_keys(svc)
        assert [k.key_id for k in keys] == [old, new] and keys[-1].key_id == svc.signer.key_id
        assert (keys[0].valid_from.seconds, keys[0].valid_until.seconds) == (1_000_000, 2_000_000 + DAY)
        assert keys[1].valid_from.seconds == 2_000_000 and not keys[1].HasField("valid_until")
        view = svc.create(variant="draw-2", players=("ann", "bob")).view
        assert published(keys).problem(head_of(view.head)) is None


def test_a_rotation_is_served_at_once_by_a_server_not_yet_restarted(app, tmp_path):
    first = rotate(tmp_path, now=1_000_000)
    with running_service(app, signer=load_signer(tmp_path), keys_dir=str(tmp_path)) as svc:
        assert [k.key_id for k in head_keys(svc)] == [first]
        second = rotate(tmp_path, now=2_000_000)
        assert [k.key_id for k in head_keys(svc)] == [first, second]


def test_a_server_whose_published_keys_cannot_be_read_answers_unavailable_and_to_call_again(app, tmp_path):
    with running_service(app, keys_dir=str(tmp_path)) as svc:  # no heads-keys.json there
        with pytest.raises(grpc.RpcError) as caught:
            head_keys(svc)
    said = refusal(caught.value)
    assert (caught.value.code(), said.reason, said.domain) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE",
                                                               "domino.match")
    assert said.retry_after and said.retry_after > 0


def test_a_published_file_that_turns_unreadable_keeps_the_last_keys_served(tmp_path):
    made = rotate(tmp_path, now=1_000_000)
    keys = HeadKeys(tmp_path, load_signer(tmp_path))
    assert [k.key_id for k in keys.response().keys] == [made]
    (tmp_path / PUBLISHED_FILE).write_text("{not json")
    assert [k.key_id for k in keys.response().keys] == [made]
