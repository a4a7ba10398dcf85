"""The account store on a real SQLite file and a real PostgreSQL: the same scenario on each,
through the real gRPC service. After a deletion, no table of the store holds the name, the
identity subject or the device id."""

from __future__ import annotations

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from services.accounts import credentials, names
from tests.service.account_harness import bearer, device, running_accounts
from tests.support.store_search import found_in_store

pytestmark = pytest.mark.integration
NONCE = "n-0123456789"


def identity_sign_in(svc, provider: str, subject: str) -> pb.Session:
    """A fresh sign-in with the account's identity: what deleting an account with one needs."""
    return svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider=provider, id_token=svc.id_token(provider, subject), nonce=NONCE)).session


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
    assert fresh.player_id == other_phone.player_id == first.player_id


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
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(identity_sign_in(svc, "apple", "apple-sub-zq")))
    assert found_in_store(env, ["Quokka Zephyr", "apple-sub-zq", pair[0]]) == []


def test_a_used_id_token_is_remembered_while_it_could_sign_in_and_forgotten_once_it_cannot(svc):
    """Single use costs a row per token; the erasure pass lets it go once the token would be
    refused as too old anyway, so the table never grows with every sign-in ever made."""
    svc, _ = svc
    token = svc.id_token("google", "g-forgotten-token")
    svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce=NONCE))

    def remembered() -> list[tuple]:
        return [r for r in svc.app.store.dump()["domino_account_used_id_tokens"] if r[0] == credentials.hashed(token)]

    [(_, until)] = remembered()
    assert svc.clock() < until <= svc.clock() + 600 + 60 + 5  # its exp (10 minutes) and the leeway
    svc.app.forget_what_expired()
    assert remembered()  # it could still sign in: still refused as used
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce=NONCE))
    assert "used already" in (caught.value.details() or "")
    svc.clock.advance(until - svc.clock() + 1)
    svc.app.forget_what_expired()
    assert remembered() == []


def test_after_deletion_no_sqlite_file_on_disk_holds_the_accounts_personal_data(tmp_path):
    env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "db" / "m.sqlite")}
    (tmp_path / "db").mkdir()
    with running_accounts(tmp_path, env=env) as svc:
        session = svc.sign_up("Wombat Raw Bytes")
        svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", "g-raw-zq"),
                                                     nonce=NONCE), metadata=bearer(session))
        svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(identity_sign_in(svc, "google", "g-raw-zq")))
        on_disk = b"".join(path.read_bytes() for path in (tmp_path / "db").iterdir())  # the file, its WAL
    assert b"Wombat Raw Bytes" not in on_disk and b"g-raw-zq" not in on_disk


def test_names_stored_under_an_older_key_are_rekeyed_at_start_and_a_newer_look_alike_is_renamed(either_store_env):
    from services.accounts.application import AccountApplication
    from services.accounts.store import AccountStore
    from tests.support.keys import KEYS

    store = AccountStore.for_env(either_store_env)
    store.create()
    try:
        with store.transaction() as execute:  # as an older version stored them: NFKC and casefold only
            store.add_account(execute, "a" * 32, "Alice", "alice", 1.0)
            store.add_account(execute, "b" * 32, "AIice", "aiice", 2.0)  # a capital I for the l, made later
        app = AccountApplication(store, KEYS)
        assert app.rekey_names() == 2
        assert app.rekey_names() == 0  # once per key version
        with store.transaction() as execute:
            first, second = store.account(execute, "a" * 32), store.account(execute, "b" * 32)
            assert first is not None and second is not None
            assert first.display_name == "Alice" and second.display_name.startswith("player-")
            assert store.name_owner(execute, names.key_of("AIice")) == "a" * 32
    finally:
        store.close()
