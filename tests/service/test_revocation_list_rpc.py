"""AccountService.ListRevokedSessions over real gRPC on a real SQLite store: what it lists,
its bad input (each with its status, its ErrorInfo reason and a message that says what is
wrong, changing nothing), that it needs no token, and its limit per client address (with its
reason and a RetryInfo wait)."""

from __future__ import annotations

import time

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.accounts.revocation_list import LISTED_SECONDS
from tests.support.errors import refusal
from tests.support.forwarding_edge import from_address

from .account_harness import bearer, code_of, running_accounts


@pytest.fixture
def svc(tmp_path):
    with running_accounts(tmp_path, limited_revocation_reads=True) as service:
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


def test_a_held_read_is_answered_as_soon_as_a_session_is_revoked(svc):
    session = svc.sign_up("Soon Gone")
    newest = listed(svc).next_cursor
    held = svc.stub.ListRevokedSessions.future(pb.ListRevokedSessionsRequest(after_cursor=newest, wait_seconds=20),
                                               timeout=25)
    time.sleep(0.3)  # the call is held: nothing was revoked yet
    assert not held.done()
    svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(session))
    began = time.monotonic()
    reply = held.result(timeout=5)
    assert [s.session_id for s in reply.sessions] == [session_of(session)]
    assert time.monotonic() - began < 2


def test_a_held_read_that_nothing_interrupts_ends_empty_after_its_wait(svc):
    reply = svc.stub.ListRevokedSessions(pb.ListRevokedSessionsRequest(wait_seconds=1), timeout=5)
    assert not reply.sessions and reply.next_cursor == 0


def test_it_needs_no_token_and_ignores_one_that_is_bad(svc):
    reply = svc.stub.ListRevokedSessions(pb.ListRevokedSessionsRequest(),
                                         metadata=(("authorization", "Bearer not-a-token"),))
    assert reply.next_cursor == 0


@pytest.mark.parametrize("request_, code, reason, fields, words", [
    (pb.ListRevokedSessionsRequest(after_cursor=-1), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
     ("after_cursor",), "after_cursor cannot be negative"),
    (pb.ListRevokedSessionsRequest(page_size=-1), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
     ("page_size",), "page_size must be 1 to 1000"),
    (pb.ListRevokedSessionsRequest(page_size=1001), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
     ("page_size",), "page_size must be 1 to 1000"),
    (pb.ListRevokedSessionsRequest(wait_seconds=-1), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
     ("wait_seconds",), "wait_seconds must be 0 to 30"),
    (pb.ListRevokedSessionsRequest(wait_seconds=31), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
     ("wait_seconds",), "wait_seconds must be 0 to 30"),
    (pb.ListRevokedSessionsRequest(after_cursor=7), grpc.StatusCode.OUT_OF_RANGE, "REVOCATION_CURSOR_AHEAD",
     (), "after_cursor 7 is past the newest revocation this store listed (0)"),
])
def test_list_revoked_sessions_refuses_bad_input_and_changes_nothing(svc, request_, code, reason, fields, words):
    before = svc.app.store.dump()
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.ListRevokedSessions(request_)
    refused = refusal(caught.value)
    assert (refused.code, refused.reason, refused.domain) == (code, reason, "domino.account")
    assert refused.fields == fields
    assert words in refused.message
    assert refused.retry_after is None  # the same request is refused again: fix it (or read from 0)
    assert svc.app.store.dump() == before


def test_one_client_reading_too_fast_is_refused_and_another_address_is_not(svc):
    outcomes = []  # None: answered
    for _ in range(80):
        try:
            listed(svc)
            outcomes.append(None)
        except grpc.RpcError as error:
            outcomes.append(refusal(error))
    refusals = [r for r in outcomes if r is not None]
    assert outcomes[0] is None and refusals
    first = refusals[0]
    assert (first.code, first.reason, first.domain) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED",
                                                        "domino.account")
    assert first.retry_after is not None and first.retry_after > 0
    with from_address("127.0.0.42", svc.port) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        other = pb_grpc.AccountServiceStub(channel)
        assert other.ListRevokedSessions(pb.ListRevokedSessionsRequest()).next_cursor == 0
