"""Over real gRPC: every view and every WatchMatch update carries the signed chain head at its
version, an auditor's export carries the chain and a signed final head, and the heads a
player received settle that export (docs/record.md, "Signed heads")."""

from __future__ import annotations

import json

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.audit.verify import verify
from services.client.store import KeptHeads
from services.match.application import MatchApplication
from services.match.heads import Head, PublishedKey, PublishedKeys, key_id, read_heads
from services.match.messages import head_of
from services.match.record import loads
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


def published(svc) -> PublishedKeys:
    public = svc.signer.public_key
    return PublishedKeys([PublishedKey(key_id(public), public)])


def test_every_view_carries_a_head_signed_at_its_version(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view
    head = head_of(view.head)
    assert (head.match, head.version) == (match_id, view.version)
    assert published(svc).problem(head) is None


def test_watch_updates_carry_a_head_per_version_and_they_settle_the_export(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    kept = KeptHeads(tmp_path, "ann")
    final = play_whole_match(svc, match_id)
    assert final.status == pb.MATCH_STATUS_ENDED
    for update in svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=1), metadata=auth("ann")):
        assert update.view.head.version == update.view.version
        kept.keep(update.view)
    heads = read_heads(json.loads(kept.path(match_id).read_text()))
    assert [h.version for h in heads] == list(range(2, final.version + 1))
    exported = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                    metadata=auth("auditor-1", "auditor")).record_json
    record = loads(exported)
    assert len(record.chain["links"]) == heads[-1].entries
    assert Head.from_json(record.chain["head"]).hash == heads[-1].hash
    verdict = verify(record, published(svc), heads)
    assert verdict.valid, verdict.to_json()
    assert verdict.to_json()["signature"]["status"] == "ok"


def test_a_players_export_carries_the_signed_head_but_no_links(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    data = json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth("ann")).record_json)
    assert set(data["chain"]) == {"head"}


def test_only_an_auditor_may_export_an_unfinished_match(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    with pytest.raises(grpc.RpcError) as refused:
        svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id, unfinished=True), metadata=auth("ann"))
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as unasked:
        svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth("auditor-1", "auditor"))
    assert unasked.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    data = json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id, unfinished=True),
                                           metadata=auth("auditor-1", "auditor")).record_json)
    assert "server_seed" not in data["fairness"] and len(data["chain"]["links"]) == data["chain"]["head"]["entries"]
