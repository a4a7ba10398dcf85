"""The account store on a real SQLite file and a real PostgreSQL: the same scenario on each,
through the real gRPC service. After a deletion, no table of the store holds the name, the
identity subject or the device id."""

from __future__ import annotations

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from tests.service.account_harness import bearer, device, running_accounts
from tests.support.store_search import found_in_store

pytestmark = pytest.mark.integration
NONCE = "n-0123456789"


@pytest.fixture
def svc(either_store_env, tmp_path):
    with running_accounts(tmp_path, env=either_store_env) as service:
        yield service, either_store_env


def test_a_phone_signs_up_links_refreshes_and_finds_its_account_again(svc):
    svc, _ = svc
    pair = device()
    first = svc.sign_up("Store Player", pair)
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", "g-store"),
                                                 nonce=NONCE), metadata=bearer(first))
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=first.refresh_token)).session
    other_phone = svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=svc.id_token("google", "g-store"), nonce=NONCE)).session
    assert fresh.account_id == other_phone.account_id == first.account_id


def test_a_reused_refresh_token_revokes_its_session_on_this_store(svc):
    svc, _ = svc
    session = svc.sign_up("Store Reuse")
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
    for token in (session.refresh_token, fresh.refresh_token):
        with pytest.raises(grpc.RpcError) as caught:
            svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=token))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_after_deletion_no_table_of_the_store_holds_the_accounts_personal_data(svc):
    svc, env = svc
    pair = device()
    session = svc.sign_up("Quokka Zephyr", pair)
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="apple", id_token=svc.id_token("apple", "apple-sub-zq"),
                                                 nonce=NONCE), metadata=bearer(session))
    assert found_in_store(env, ["Quokka Zephyr", "apple-sub-zq"])  # the search does find them first
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(session))
    assert found_in_store(env, ["Quokka Zephyr", "apple-sub-zq", pair[0]]) == []


def test_after_deletion_no_sqlite_file_on_disk_holds_the_accounts_personal_data(tmp_path):
    env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "db" / "m.sqlite")}
    (tmp_path / "db").mkdir()
    with running_accounts(tmp_path, env=env) as svc:
        session = svc.sign_up("Wombat Raw Bytes")
        svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", "g-raw-zq"),
                                                     nonce=NONCE), metadata=bearer(session))
        svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(session))
        on_disk = b"".join(path.read_bytes() for path in (tmp_path / "db").iterdir())  # the file, its WAL
    assert b"Wombat Raw Bytes" not in on_disk and b"g-raw-zq" not in on_disk
