"""GetTurnAttention refuses bad input with its status code, ErrorInfo reason (domain
domino.match) and BadRequest field, and changes nothing; the notifier's and the social
service's tokens are refused by every other MatchService call (CreateMatch stays matchmaking's)."""

from __future__ import annotations

import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common import bus
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import auth

from .harness import running_service

C = grpc.StatusCode
NOTIFIER = auth("notifier", "service")


@pytest.fixture(scope="module")
def svc():
    with running_service(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())) as s:
        yield s


@pytest.fixture(scope="module")
def match_id(svc) -> str:
    return svc.create(variant="draw-2", players=("ann", "bob"), request_id="attention-bad").match_id


def refused(svc, call, code: grpc.StatusCode, reason: str, field: str | None = None) -> str:
    before = svc.app.recorder.max_notification_id()
    with pytest.raises(grpc.RpcError) as caught:
        call()
    said = refusal(caught.value)
    assert (said.code, said.reason, said.domain) == (code, reason, "domino.match"), said
    assert said.fields == ((field,) if field else ())
    assert svc.app.recorder.max_notification_id() == before
    return said.message


def attention(svc, match_id: str, version: int, metadata=NOTIFIER):
    return lambda: svc.stub.GetTurnAttention(pb.GetTurnAttentionRequest(match_id=match_id, version=version),
                                             metadata=metadata)


def test_without_a_token_it_is_unauthenticated(svc, match_id):
    refused(svc, attention(svc, match_id, 1, ()), C.UNAUTHENTICATED, "TOKEN_MISSING")


@pytest.mark.parametrize("metadata", [auth("ann"), auth("auditor-1", "auditor"), auth("matchmaking", "service"),
                                      auth("social", "service"), auth("accounts", "account"),
                                      auth("bot:greedy:1", "bot")],
                         ids=["player", "auditor", "matchmaking", "social", "account", "bot"])
def test_only_the_notifiers_token_asks_for_a_turns_attention(svc, match_id, metadata):
    refused(svc, attention(svc, match_id, 1, metadata), C.PERMISSION_DENIED, "WRONG_CALLER")


@pytest.mark.parametrize("bad", ["", "nope", "1234"], ids=["missing", "word", "digits"])
def test_a_match_id_that_is_not_one_is_invalid(svc, bad):
    refused(svc, attention(svc, bad, 1), C.INVALID_ARGUMENT, "INVALID_REQUEST", "match_id")


@pytest.mark.parametrize("version", [0, -1, bus.MAX_VERSION + 1, 2**62], ids=["zero", "negative", "past 32 bits",
                                                                               "huge"])
def test_a_version_out_of_range_is_invalid(svc, match_id, version):
    message = refused(svc, attention(svc, match_id, version), C.INVALID_ARGUMENT, "INVALID_REQUEST", "version")
    assert "version" in message


def test_a_version_beyond_the_matchs_is_invalid(svc, match_id):
    version = svc.app.get_match(uuid.UUID(match_id)).version
    message = refused(svc, attention(svc, match_id, version + 1), C.INVALID_ARGUMENT, "INVALID_REQUEST", "version")
    assert "beyond" in message


def test_an_unknown_match_is_not_found(svc):
    refused(svc, attention(svc, str(uuid.uuid4()), 1), C.NOT_FOUND, "MATCH_NOT_FOUND")


OTHER_CALLS = {
    "CreateMatch": lambda stub, match_id, md: stub.CreateMatch(pb.CreateMatchRequest(
        request_id="from-a-notice-service", rules="egyptian", variant="draw-2",
        seats=[pb.SeatSpec(player_id="ann"), pb.SeatSpec(player_id="bob")]), metadata=md),
    "GetMatch": lambda stub, match_id, md: stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=md),
    "WatchMatch": lambda stub, match_id, md: next(stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id),
                                                                  metadata=md)),
    "ExportMatch": lambda stub, match_id, md: stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=md),
    "ListMyMatches": lambda stub, match_id, md: stub.ListMyMatches(pb.ListMyMatchesRequest(), metadata=md),
}


@pytest.mark.parametrize("rpc", OTHER_CALLS)
@pytest.mark.parametrize("service", ["notifier", "social"])
def test_the_notice_services_tokens_are_refused_by_every_other_call(svc, match_id, rpc, service):
    message = refused(svc, lambda: OTHER_CALLS[rpc](svc.stub, match_id, auth(service, "service")),
                      C.PERMISSION_DENIED, "WRONG_CALLER")
    assert service in message


def test_the_social_services_token_may_not_ask_the_notifiers_calls(svc, match_id):
    refused(svc, lambda: svc.stub.DescribeMatchEnd(pb.DescribeMatchEndRequest(match_id=match_id),
                                                   metadata=auth("social", "service")),
            C.PERMISSION_DENIED, "WRONG_CALLER")
