"""Staff (operator tokens) on MatchService, over real gRPC on loopback: any staff role watches
a match exactly as a spectator does (one turn behind, no hands), also one that takes no
spectators; an `auditor` exports the whole record of a finished match as an auditor token
does, and it verifies; no staff exports a match in play; every other RPC refuses them."""

from __future__ import annotations

import json

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.audit.verify import verify
from services.match.application import MatchApplication
from services.match.heads import PublishedKey, PublishedKeys, key_id
from services.match.record import from_json
from tests.support.errors import refusal
from tests.support.grpc_matches import act, play_whole_match
from tests.support.keys import auth
from tests.support.spectating import Spectator, public_view

from .harness import running_service
from .staff_harness import staff

OBSERVER = auth("observer", "service")


@pytest.fixture(scope="module")
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


@pytest.fixture(scope="module")
def finished(svc) -> str:
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id="finished").match_id
    play_whole_match(svc, match_id)
    return match_id


@pytest.fixture
def live(svc, request) -> str:
    return svc.create(variant="draw-2", players=("ann", "bob"), request_id=f"live {request.node.name}").match_id


def played_some(svc, match_id: str, moves: int) -> pb.MatchView:
    view = public_view(svc, match_id)
    for n in range(moves):
        view = act(svc, match_id, view, 1000 + n)  # request ids play_whole_match never uses
    return public_view(svc, match_id)


def bare(view: pb.MatchView) -> pb.MatchView:
    copy = pb.MatchView()
    copy.CopyFrom(view)
    copy.ClearField("server_time")  # each view says when it was sent
    return copy


def refused(call) -> tuple:
    with pytest.raises(grpc.RpcError) as error:
        call()
    r = refusal(error.value)
    return r.code, r.reason


# ---- WatchMatch --------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "support", "operator", "auditor"])
def test_staff_watch_a_match_exactly_as_a_spectator_does(svc, role):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id=f"watched {role}",
                          spectators=True).match_id
    now = played_some(svc, match_id, 5)
    watching, spectating = Spectator(svc, match_id, metadata=staff(role)), Spectator(svc, match_id, "zed")
    play_whole_match(svc, match_id)
    seen, spectator_saw = watching.updates(), spectating.updates()
    assert [bare(u.view) for u in seen] == [bare(u.view) for u in spectator_saw]
    assert [u.event.version for u in seen] == [u.event.version for u in spectator_saw]
    assert seen[0].view.version < now.version  # the newest turn held back, as from a spectator
    assert all(not u.view.hand and not u.view.HasField("your_seat") for u in seen)
    assert seen[-1].event.kind == pb.EVENT_KIND_MATCH_ENDED


def test_staff_watch_a_match_that_takes_no_spectators_as_a_spectator_would(svc, live):
    now = played_some(svc, live, 5)
    assert refused(lambda: next(iter(svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=live),
                                                         metadata=auth("zed"))))) == \
        (grpc.StatusCode.PERMISSION_DENIED, "NOT_WATCHABLE")
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=live), metadata=staff("viewer"), timeout=10)
    first = next(iter(stream))
    stream.cancel()
    assert first.view.version < now.version and not first.view.hand and not first.view.HasField("your_seat")


def test_a_staff_watch_of_a_malformed_match_id_is_refused(svc):
    assert refused(lambda: next(iter(svc.stub.WatchMatch(pb.WatchMatchRequest(match_id="nope"),
                                                         metadata=staff("viewer"))))) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


# ---- ExportMatch -------------------------------------------------------------------------


def exported(svc, match_id: str, metadata, **fields) -> dict:
    return json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id, **fields),
                                           metadata=metadata).record_json)


def test_a_staff_auditors_export_of_a_finished_match_verifies(svc, finished):
    record = exported(svc, finished, staff("auditor"))
    public = svc.signer.public_key
    verdict = verify(from_json(record), keys=PublishedKeys([PublishedKey(key_id(public), public)]))
    assert verdict.valid and verdict.complete
    assert all(r["hands"] for r in record["rounds"])  # the whole record: every hand


def test_a_staff_auditor_gets_the_record_an_auditor_token_gets(svc, finished):
    mine, theirs = exported(svc, finished, staff("auditor", "viewer")), exported(svc, finished, auth("a-1", "auditor"))
    for record in (mine, theirs):
        del record["chain"]["head"]  # each signed at its own moment
    assert mine == theirs


@pytest.mark.parametrize("role", ["viewer", "support", "operator"])
def test_staff_without_the_auditor_role_may_not_export(svc, finished, role):
    assert refused(lambda: exported(svc, finished, staff(role))) == \
        (grpc.StatusCode.PERMISSION_DENIED, "STAFF_ROLE_TOO_LOW")


def test_a_staff_auditors_export_of_a_match_in_play_is_refused(svc, live):
    assert refused(lambda: exported(svc, live, staff("auditor"))) == \
        (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_NOT_ENDED")


def test_a_staff_auditor_may_not_ask_for_an_unfinished_export(svc, live):
    assert refused(lambda: exported(svc, live, staff("auditor"), unfinished=True)) == \
        (grpc.StatusCode.PERMISSION_DENIED, "WRONG_CALLER")


def test_a_staff_export_of_a_malformed_match_id_is_refused(svc):
    assert refused(lambda: exported(svc, "nope", staff("auditor"))) == \
        (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


# ---- every other RPC -----------------------------------------------------------------------


OTHER_CALLS = {
    "GetMatch": lambda stub, m, md: stub.GetMatch(pb.GetMatchRequest(match_id=m), metadata=md),
    "DrawTile": lambda stub, m, md: stub.DrawTile(pb.DrawTileRequest(match_id=m, request_id="r"), metadata=md),
    "LeaveMatch": lambda stub, m, md: stub.LeaveMatch(pb.LeaveMatchRequest(match_id=m), metadata=md),
    "SendChat": lambda stub, m, md: stub.SendChat(pb.SendChatRequest(match_id=m), metadata=md),
    "ListMyMatches": lambda stub, m, md: stub.ListMyMatches(pb.ListMyMatchesRequest(), metadata=md),
    "GetRating": lambda stub, m, md: stub.GetRating(pb.GetRatingRequest(rules="egyptian"), metadata=md),
    "DescribeRules": lambda stub, m, md: stub.DescribeRules(pb.DescribeRulesRequest(), metadata=md),
    "CreateMatch": lambda stub, m, md: stub.CreateMatch(pb.CreateMatchRequest(request_id="x"), metadata=md),
}


@pytest.mark.parametrize("rpc", OTHER_CALLS)
def test_every_other_match_service_rpc_refuses_staff(svc, live, rpc):
    before = public_view(svc, live).version
    assert refused(lambda: OTHER_CALLS[rpc](svc.stub, live, staff(*("viewer", "support", "operator", "auditor")))) \
        == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_CALLER")
    assert public_view(svc, live).version == before
