"""Races on the account store, on SQLite and PostgreSQL, through the real gRPC service: a
deletion racing a link, a sign-in or a refresh leaves no row behind, and two calls racing
for one key (a name, a device, an identity) each get a proper answer, never UNKNOWN, and
no log line quotes the driver's DETAIL (it names the key, which may be personal data)."""

from __future__ import annotations

import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from tests.service.account_harness import bearer, code_of, device, running_accounts

pytestmark = pytest.mark.integration
NONCE = "n-0123456789"
RACES = 20
OWNED = ("domino_account_devices", "domino_account_identities", "domino_account_sessions",
         "domino_account_refresh_tokens")


@pytest.fixture
def svc(either_store_env, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with running_accounts(tmp_path, env=either_store_env) as service:
        yield service


def at_once(*calls):
    """Runs the calls in threads released together; their status codes."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait(5)
        return code_of(call)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def orphans(svc) -> list[tuple[str, tuple]]:
    """Rows that name an account no longer in the store."""
    rows = svc.app.store.dump()
    accounts = {r[0] for r in rows["domino_accounts"]}
    found = []
    for table in OWNED:
        with svc.app.store.transaction() as execute:
            owners = [r[0] for r in execute(f"SELECT account_id FROM {table}").fetchall()]
        found += [(table, (owner,)) for owner in owners if owner not in accounts]
    return found


def identity_session(svc, subject: str) -> pb.Session:
    return svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=svc.id_token("google", subject), nonce=NONCE)).session


def test_a_deletion_racing_a_link_leaves_no_identity_behind(svc):
    for i in range(RACES):
        guest = svc.sign_up()
        link = pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", f"g-link-race-{i}"),
                                      nonce=NONCE)
        at_once(lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(guest)),
                lambda: svc.stub.LinkIdentity(link, metadata=bearer(guest)))
    assert orphans(svc) == []


def test_a_deletion_racing_a_sign_in_or_a_refresh_leaves_no_session_behind(svc):
    for i in range(RACES):
        subject = f"g-sign-in-race-{i}"
        first = identity_session(svc, subject)
        fresh = identity_session(svc, subject)
        token = svc.id_token("google", subject)
        codes = at_once(lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(fresh)),
                        lambda: svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
                            provider="google", id_token=token, nonce=NONCE)),
                        lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=first.refresh_token)))
        assert grpc.StatusCode.UNKNOWN not in codes
    assert orphans(svc) == []


def test_racing_sign_ups_for_one_name_one_device_or_one_identity_answer_properly(svc, caplog):
    name = f"Racer {secrets.token_hex(3)}"
    codes = at_once(*[lambda: svc.sign_up(name) for _ in range(6)])
    assert sorted(codes, key=str) == sorted([grpc.StatusCode.OK] + [grpc.StatusCode.ALREADY_EXISTS] * 5, key=str)
    pair = device()
    assert at_once(*[lambda: svc.sign_up(pair=pair) for _ in range(6)]) == [grpc.StatusCode.OK] * 6
    identity_session(svc, "g-warms-the-keys")  # racing sign-ins find the issuer's keys fetched already
    tokens = [svc.id_token("google", "g-racing-subject") for _ in range(6)]
    sessions: list = []
    assert at_once(*[lambda t=t: sessions.append(svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=t, nonce=NONCE))) for t in tokens]) == [grpc.StatusCode.OK] * 6
    assert len({s.session.player_id for s in sessions}) == 1
    for personal in (name, pair[0], "g-racing-subject", "DETAIL", "Key ("):
        assert personal not in caplog.text


def test_racing_refreshes_of_one_session_never_deadlock_or_answer_unknown(svc, caplog):
    for _ in range(RACES // 2):
        session = svc.sign_up()
        fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
        codes = at_once(*[lambda t=t: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=t))
                          for t in (session.refresh_token, fresh.refresh_token) * 3])
        assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED}
    assert "Deadlock" not in caplog.text and "deadlock" not in caplog.text
