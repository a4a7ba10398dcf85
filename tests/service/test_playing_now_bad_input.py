"""ListPlayingNow refuses bad input with its status code, ErrorInfo reason (domain
domino.match) and BadRequest field, and changes nothing; without the history view it is
UNAVAILABLE."""

from __future__ import annotations

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import auth

from .harness import running_service

C = grpc.StatusCode
SOCIAL = auth("social", "service")


@pytest.fixture(scope="module")
def svc():
    with running_service(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())) as s:
        s.create(variant="draw-2", players=("ann", "bob"), request_id="playing-bad")
        yield s


def refused(svc, players, code: grpc.StatusCode, reason: str, field: str | None = None, metadata=SOCIAL) -> str:
    before = svc.app.recorder.max_notification_id()
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.ListPlayingNow(pb.ListPlayingNowRequest(player_ids=players), metadata=metadata)
    said = refusal(caught.value)
    assert (said.code, said.reason, said.domain) == (code, reason, "domino.match"), said
    assert said.fields == ((field,) if field else ())
    assert svc.app.recorder.max_notification_id() == before
    return said.message


def test_without_a_token_it_is_unauthenticated(svc):
    refused(svc, ["ann"], C.UNAUTHENTICATED, "TOKEN_MISSING", metadata=())


@pytest.mark.parametrize("metadata", [auth("ann"), auth("auditor-1", "auditor"), auth("matchmaking", "service"),
                                      auth("notifier", "service"), auth("accounts", "account")],
                         ids=["player", "auditor", "matchmaking", "notifier", "account"])
def test_only_the_social_services_token_asks_who_is_playing(svc, metadata):
    refused(svc, ["ann"], C.PERMISSION_DENIED, "WRONG_CALLER", metadata=metadata)


def test_more_than_a_hundred_players_is_invalid(svc):
    message = refused(svc, [f"p{i}" for i in range(101)], C.INVALID_ARGUMENT, "INVALID_REQUEST", "player_ids")
    assert "100" in message


@pytest.mark.parametrize("bad", ["", "x" * 101], ids=["empty", "overlong"])
def test_a_player_id_that_is_not_one_is_invalid_and_named_by_its_place(svc, bad):
    refused(svc, ["ann", bad], C.INVALID_ARGUMENT, "INVALID_REQUEST", "player_ids[1]")


def test_without_the_history_view_it_is_unavailable(svc):
    message = refused(svc, ["ann"], C.UNAVAILABLE, "UNAVAILABLE")
    assert "history" in message


def test_no_players_is_answered_with_nobody(svc):
    assert list(svc.stub.ListPlayingNow(pb.ListPlayingNowRequest(), metadata=SOCIAL).playing) == []
