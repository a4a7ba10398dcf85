"""Races on the account store, on SQLite and PostgreSQL, through the real gRPC service: a
deletion racing a link, a sign-in or a refresh leaves no row behind, and two calls racing
for one key (a name, a device, an identity) each get a proper answer, never UNKNOWN, and
neither a reply's message nor any log line quotes the driver's DETAIL or the key it names
(a display name, a device id, an identity subject: personal data that would outlive the
account's deletion there)."""

from __future__ import annotations

import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from services.accounts import names
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
    return [code for code, _ in answers_at_once(*calls)]


def answers_at_once(*calls) -> list[tuple[grpc.StatusCode, str]]:
    """Runs the calls in threads released together; each one's status code and message."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait(5)
        try:
            call()
        except grpc.RpcError as error:
            return error.code(), error.details() or ""
        return grpc.StatusCode.OK, ""

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


DRIVER_WORDS = ("Key (", "already exists", "DETAIL", "duplicate key", "violates", "UniqueViolation",
                "IntegrityError", "psycopg", "sqlite3")


def every_log(caplog) -> str:
    """Every record's message, its extra fields and its traceback: a DETAIL can hide in any."""
    standard = logging.makeLogRecord({}).__dict__.keys()
    return "\n".join(f"{r.getMessage()} {[v for k, v in r.__dict__.items() if k not in standard]} "
                     f"{r.exc_text or ''}" for r in caplog.records)


def assert_nothing_personal(answers, caplog, personal: list[str]) -> None:
    """No reply's message nor any log line carries a driver's DETAIL or the keys it names."""
    logged = every_log(caplog)
    for code, message in answers:
        assert code != grpc.StatusCode.UNKNOWN, message
        for word in (*DRIVER_WORDS, *personal):
            assert word not in message, (code, message)
    for word in (*DRIVER_WORDS, *personal):
        assert word not in logged, word


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


def test_a_deletion_racing_a_link_leaves_no_identity_behind(svc, caplog):
    answers, personal = [], []
    for i in range(RACES):
        pair = device()
        guest = svc.sign_up(pair=pair)
        subject = f"g-link-race-{secrets.token_hex(4)}-{i}"
        personal += [subject, pair[0], guest.display_name, names.key_of(guest.display_name)]
        link = pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", subject), nonce=NONCE)
        answers += answers_at_once(lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(guest)),
                                   lambda: svc.stub.LinkIdentity(link, metadata=bearer(guest)))
    assert orphans(svc) == []
    assert_nothing_personal(answers, caplog, personal)


def test_a_deletion_racing_a_sign_in_or_a_refresh_leaves_no_session_behind(svc, caplog):
    answers, personal = [], []
    for i in range(RACES):
        subject = f"g-sign-in-race-{secrets.token_hex(4)}-{i}"
        first = identity_session(svc, subject)
        fresh = identity_session(svc, subject)
        personal += [subject, first.display_name, names.key_of(first.display_name)]
        token = svc.id_token("google", subject)
        answers += answers_at_once(
            lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(fresh)),
            lambda: svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token,
                                                                           nonce=NONCE)),
            lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=first.refresh_token)))
    assert orphans(svc) == []
    assert_nothing_personal(answers, caplog, personal)


def test_racing_sign_ups_for_one_name_one_device_or_one_identity_answer_properly(svc, caplog):
    name = f"Racer {secrets.token_hex(3)}"
    named = answers_at_once(*[lambda: svc.sign_up(name) for _ in range(6)])
    assert sorted((code for code, _ in named), key=str) == \
        sorted([grpc.StatusCode.OK] + [grpc.StatusCode.ALREADY_EXISTS] * 5, key=str)
    pair = device()
    paired = answers_at_once(*[lambda: svc.sign_up(pair=pair) for _ in range(6)])
    assert [code for code, _ in paired] == [grpc.StatusCode.OK] * 6
    identity_session(svc, "g-warms-the-keys")  # racing sign-ins find the issuer's keys fetched already
    tokens = [svc.id_token("google", "g-racing-subject") for _ in range(6)]
    sessions: list = []
    assert at_once(*[lambda t=t: sessions.append(svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=t, nonce=NONCE))) for t in tokens]) == [grpc.StatusCode.OK] * 6
    assert len({s.session.player_id for s in sessions}) == 1
    assert_nothing_personal(named + paired, caplog, [name, names.key_of(name), pair[0], "g-racing-subject"])


def test_racing_refreshes_of_one_session_never_deadlock_or_answer_unknown(svc, caplog):
    for _ in range(RACES // 2):
        session = svc.sign_up()
        fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
        codes = at_once(*[lambda t=t: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=t))
                          for t in (session.refresh_token, fresh.refresh_token) * 3])
        assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED}
    assert "Deadlock" not in caplog.text and "deadlock" not in caplog.text
