"""DescribeMatchEnd refuses bad input with its status code, ErrorInfo reason (domain
domino.match) and BadRequest field, and changes nothing."""

from __future__ import annotations

import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
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
    return svc.create(variant="draw-2", players=("ann", "bob"), request_id="end-bad").match_id


def refused(svc, match_id: str, code: grpc.StatusCode, reason: str, field: str | None = None, metadata=NOTIFIER):
    before = svc.app.recorder.max_notification_id()
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.DescribeMatchEnd(pb.DescribeMatchEndRequest(match_id=match_id), metadata=metadata)
    said = refusal(caught.value)
    assert (said.code, said.reason, said.domain) == (code, reason, "domino.match"), said
    assert said.fields == ((field,) if field else ())
    assert svc.app.recorder.max_notification_id() == before


def test_without_a_token_it_is_unauthenticated(svc, match_id):
    refused(svc, match_id, C.UNAUTHENTICATED, "TOKEN_MISSING", metadata=())


@pytest.mark.parametrize("metadata", [auth("ann"), auth("auditor-1", "auditor"), auth("matchmaking", "service"),
                                      auth("social", "service"), auth("accounts", "account")],
                         ids=["player", "auditor", "matchmaking", "social", "account"])
def test_only_the_notifiers_token_asks_how_a_match_ended(svc, match_id, metadata):
    refused(svc, match_id, C.PERMISSION_DENIED, "WRONG_CALLER", metadata=metadata)


@pytest.mark.parametrize("bad", ["", "nope", "5b0f7a52-6a43-4d3e-9f0e-2f4c3a1d9e1z"], ids=["missing", "word", "almost"])
def test_a_match_id_that_is_not_one_is_invalid(svc, bad):
    refused(svc, bad, C.INVALID_ARGUMENT, "INVALID_REQUEST", "match_id")


def test_an_unknown_match_is_not_found(svc):
    refused(svc, str(uuid.uuid4()), C.NOT_FOUND, "MATCH_NOT_FOUND")


def test_a_match_still_played_is_failed_precondition(svc, match_id):
    refused(svc, match_id, C.FAILED_PRECONDITION, "MATCH_NOT_ENDED")
