"""The revocation list on a real SQLite file and a real PostgreSQL, through the real account
service: every way a session ends lists exactly the sessions that ended, the list holds no
account id, and a reader paging through it while sessions end concurrently sees each one
exactly once (cursors commit in order: services/accounts/revocation_list.py)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import jwt
import pytest

from domino.account.v1 import account_service_pb2 as pb
from tests.service.account_harness import bearer, device, running_accounts
from tests.service.revocation_harness import ENDINGS

pytestmark = pytest.mark.integration


@pytest.fixture
def svc(either_store_env, tmp_path):
    with running_accounts(tmp_path, env=either_store_env) as service:
        yield service


def sid(session: pb.Session) -> str:
    return jwt.decode(session.access_token, options={"verify_signature": False})["sid"]


def everything_listed(svc, after: int = 0) -> tuple[list[str], int]:
    """Every page since ``after``, as a poller reads them (asking again when it reads too fast
    for its address's limit)."""
    found = []
    while True:
        try:
            reply = svc.stub.ListRevokedSessions(pb.ListRevokedSessionsRequest(after_cursor=after, page_size=7))
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            continue
        found += [s.session_id for s in reply.sessions]
        after = reply.next_cursor
        if not reply.more:
            return found, after


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_each_way_a_session_ends_lists_that_session_and_no_live_one(svc, ending):
    pair = device()
    session = svc.sign_up("", pair)
    bystander = svc.sign_up()
    _, cursor = everything_listed(svc)
    ENDINGS[ending](svc, session, pair)
    found, _ = everything_listed(svc, cursor)
    assert sid(session) in found and sid(bystander) not in found
    assert len(found) == len(set(found))


def test_the_list_holds_session_ids_and_expiries_and_no_account_id(svc):
    session = svc.sign_up("Nobody Traceable")
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(session))
    rows = svc.app.store.dump()["domino_account_revocations"]
    assert [row[1] for row in rows] == [sid(session)]
    assert not any(session.player_id in str(value) for row in rows for value in row)


def test_a_reader_paging_while_sessions_end_concurrently_sees_each_exactly_once(svc):
    sessions = [svc.sign_up() for _ in range(40)]
    seen: list[str] = []
    done = threading.Event()

    def read() -> None:
        cursor = 0
        while True:
            last = done.is_set()
            found, cursor = everything_listed(svc, cursor)
            seen.extend(found)
            if last:
                return

    with ThreadPoolExecutor(9) as pool:
        reader = pool.submit(read)
        list(pool.map(lambda s: svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(s)), sessions))
        done.set()
        reader.result(60)
    assert sorted(seen) == sorted(sid(s) for s in sessions)
