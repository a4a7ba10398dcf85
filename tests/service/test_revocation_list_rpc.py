"""AccountService.ListRevokedSessions over real gRPC on a real SQLite store: what it lists,
its bad input (each with its status and a message that says what is wrong, changing
nothing), that it needs no token, and its limit per client address."""

from __future__ import annotations

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.accounts.revocation_list import LISTED_SECONDS
from tests.support.forwarding_edge import from_address

from .account_harness import bearer, code_of, running_accounts


@pytest.fixture
def svc(tmp_path):
    with running_accounts(tmp_path) as service:
        yield service


def listed(svc, after: int = 0, size: int = 0) -> pb.ListRevokedSessionsResponse:
    return svc.stub.ListRevokedSessions(pb.ListRevokedSessionsRequest(after_cursor=after, page_size=size))


def session_of(session: pb.Session) -> str:
    import jwt

    return jwt.decode(session.access_token, options={"verify_signature": False})["sid"]


def test_a_signed_out_session_is_listed_until_its_last_token_expires_and_nothing_else_is(svc):
    session = svc.sign_up("Listed Leaver")
    svc.sign_up("Still Playing")
    signed_out_at = svc.clock()
    svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(session))
    reply = listed(svc)
    assert [s.session_id for s in reply.sessions] == [session_of(session)]
    assert reply.sessions[0].expires_at.ToSeconds() == int(signed_out_at + LISTED_SECONDS)
    assert reply.next_cursor > 0 and not reply.more
    assert not listed(svc, after=reply.next_cursor).sessions  # nothing since


def test_a_page_says_there_are_more_and_the_next_cursor_reads_on(svc):
    for i in range(3):
        svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(svc.sign_up(f"Pager {i}")))
    first = listed(svc, size=2)
    second = listed(svc, after=first.next_cursor, size=2)
    assert (len(first.sessions), first.more, len(second.sessions), second.more) == (2, True, 1, False)


def test_expired_revocations_are_left_out_and_forgotten_but_the_cursor_keeps_its_place(svc):
    svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(svc.sign_up("Long Gone")))
    newest = listed(svc).next_cursor
    svc.clock.advance(LISTED_SECONDS + 1)
    assert not listed(svc).sessions
    assert svc.app.forget_what_expired() == 0  # the newest row is kept: the cursor's high-water mark
    assert code_of(lambda: listed(svc, after=newest)) == grpc.StatusCode.OK


def test_it_needs_no_token_and_ignores_one_that_is_bad(svc):
    reply = svc.stub.ListRevokedSessions(pb.ListRevokedSessionsRequest(),
                                         metadata=(("authorization", "Bearer not-a-token"),))
    assert reply.next_cursor == 0


@pytest.mark.parametrize("request_, code, words", [
    (pb.ListRevokedSessionsRequest(after_cursor=-1), grpc.StatusCode.INVALID_ARGUMENT,
     "after_cursor cannot be negative"),
    (pb.ListRevokedSessionsRequest(page_size=-1), grpc.StatusCode.INVALID_ARGUMENT, "page_size must be 1 to 1000"),
    (pb.ListRevokedSessionsRequest(page_size=1001), grpc.StatusCode.INVALID_ARGUMENT, "page_size must be 1 to 1000"),
    (pb.ListRevokedSessionsRequest(after_cursor=7), grpc.StatusCode.OUT_OF_RANGE,
     "after_cursor 7 is past the newest revocation this store listed (0)"),
])
def test_list_revoked_sessions_refuses_bad_input_and_changes_nothing(svc, request_, code, words):
    before = svc.app.store.dump()
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.ListRevokedSessions(request_)
    assert caught.value.code() == code
    assert words in caught.value.details()
    assert svc.app.store.dump() == before


def test_one_client_reading_too_fast_is_refused_and_another_address_is_not(svc):
    codes = [code_of(lambda: listed(svc)) for _ in range(80)]
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes and codes[0] == grpc.StatusCode.OK
    with from_address("127.0.0.42", svc.port) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        other = pb_grpc.AccountServiceStub(channel)
        assert other.ListRevokedSessions(pb.ListRevokedSessionsRequest()).next_cursor == 0
