"""Refusals that come from the services matchmaking asks, each with its own ErrorInfo reason:
the account service's standing (a real AccountService: BANNED with its end, ACCOUNT_DELETED,
UNAVAILABLE while it is away) and the match service's answer to CreateMatch (UNAVAILABLE
with the same request id to retry, MATCH_REFUSED). Each changes nothing."""

from __future__ import annotations

import datetime
import socket
from contextlib import contextmanager

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as account_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.changes import ChangeFeed
from services.common.service_tokens import ServiceToken
from services.matchmaking.account_client import GrpcStandings
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.match_client import SERVICE_SUBJECT, TOKEN_TTL_SECONDS
from tests.support.errors import refusal
from tests.support.fakes import FakeMatches
from tests.support.keys import KEYS, auth

from .account_harness import bearer, running_accounts
from .matchmaking_harness import POPO, running_matchmaking


def refused_with(call) -> tuple[grpc.StatusCode, str, tuple, float | None, dict]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    said = refusal(caught.value)
    assert said.domain == "domino.matchmaking"
    return said.code, said.reason, said.fields, said.retry_after, dict(said.metadata)


@contextmanager
def serving(matches: FakeMatches, standings=None):
    """(the application, a stub of its MatchmakingService over loopback)."""
    changes = ChangeFeed()
    app = MatchmakingApplication(env=POPO, matches=matches, standings=standings, on_change=changes.publish)
    try:
        with running_matchmaking(app, changes) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield app, pb_grpc.MatchmakingServiceStub(channel)
    finally:
        app.close()


def practice(stub, player: str):
    return lambda: stub.StartPractice(pb.StartPracticeRequest(request_id="p", variant="draw-2"), metadata=auth(player))


@pytest.fixture
def tokens():
    return ServiceToken(SERVICE_SUBJECT, KEYS, TOKEN_TTL_SECONDS)


def test_a_banned_player_is_refused_with_the_end_of_the_ban(tmp_path, tokens):
    with running_accounts(tmp_path) as accounts:
        player = accounts.sign_up("Banned Player").player_id
        until = accounts.clock() + 86400
        accounts.app.ban(player, until, "abusive chat")
        standings = GrpcStandings(f"127.0.0.1:{accounts.port}", tokens)
        try:
            with serving(FakeMatches(), standings) as (_, stub):
                code, reason, _, _, metadata = refused_with(practice(stub, player))
        finally:
            standings.close()
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BANNED")
    ends = datetime.datetime.fromisoformat(metadata["until"].replace("Z", "+00:00"))
    assert ends == datetime.datetime.fromtimestamp(int(until), datetime.timezone.utc)


def test_a_deleted_account_is_refused_as_deleted(tmp_path, tokens):
    with running_accounts(tmp_path) as accounts:
        session = accounts.sign_up("Deleted Player")
        accounts.stub.DeleteAccount(account_pb.DeleteAccountRequest(), metadata=bearer(session))
        standings = GrpcStandings(f"127.0.0.1:{accounts.port}", tokens)
        try:
            with serving(FakeMatches(), standings) as (_, stub):
                code, reason, *_ = refused_with(practice(stub, session.player_id))
                room = refused_with(lambda: stub.CreateRoom(pb.CreateRoomRequest(request_id="r"),
                                                            metadata=auth(session.player_id)))
        finally:
            standings.close()
    assert (code, reason) == (room[0], room[1]) == (grpc.StatusCode.PERMISSION_DENIED, "ACCOUNT_DELETED")


def test_a_player_is_told_to_retry_while_the_account_service_is_away(tokens):
    away = socket.socket()
    away.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    standings = GrpcStandings(f"127.0.0.1:{away.getsockname()[1]}", tokens, timeout_seconds=1)
    try:
        with serving(FakeMatches(), standings) as (app, stub):
            code, reason, _, retry_after, _ = refused_with(practice(stub, "ann"))
            assert app.presence("ann").place is None
    finally:
        standings.close()
        away.close()
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE") and retry_after and retry_after > 0


def test_a_practice_the_match_service_cannot_create_yet_is_to_be_retried_with_the_same_request_id():
    matches = FakeMatches()
    matches.down = True
    with serving(matches) as (_, stub):
        code, reason, _, retry_after, _ = refused_with(practice(stub, "ann"))
        matches.down = False
        assert practice(stub, "ann")().match_id  # the retry finishes it
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE") and retry_after and retry_after > 0


def test_a_practice_the_match_service_refuses_for_good_says_so():
    matches = FakeMatches()
    matches.refusal = "no such seats"
    with serving(matches) as (app, stub):
        code, reason, *_ = refused_with(practice(stub, "ann"))
        assert app.presence("ann").place is None  # the refused table closed, freeing her
    assert (code, reason) == (grpc.StatusCode.INTERNAL, "MATCH_REFUSED")
