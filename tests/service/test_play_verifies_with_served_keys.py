"""`domino play` verifies a player's export with the head keys the server publishes
(issue 35, point 8): the keys come from MatchService.GetHeadKeys, not from a file on the
server's disk, and the heads the client kept while it played are checked too."""

from __future__ import annotations

import base64
import json

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.client import export_check
from services.client.api import MatchApi
from services.client.store import Exports, KeptHeads
from services.match.application import MatchApplication
from services.match.heads import key_id
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth, token

from .harness import running_service


@pytest.fixture(scope="module")
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


def test_a_finished_match_the_player_exports_is_verified_with_the_keys_the_api_serves(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=51, request_id="served-keys").match_id
    heads = KeptHeads(tmp_path, "ann")
    play_whole_match(svc, match_id, lambda view: heads.keep(
        svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view))
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    try:
        heads.keep(api.get(match_id))
        record = api.export(match_id)
        path = Exports(tmp_path, "ann").save(match_id, record)
        checked = export_check.check(api, record, path, heads.path(match_id))
    finally:
        api.close()
    assert checked.ok, checked.text
    assert checked.report["signature"]["status"] == "ok" and checked.report["heads"]["status"] == "ok"
    raw = svc.signer.public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    published = json.loads((path.parent / export_check.KEYS_FILE).read_text())
    assert [(k["id"], k["public_key"]) for k in published["keys"]] == \
        [(key_id(svc.signer.public_key), base64.b64encode(raw).decode())]  # the service's own key, from the API


def test_domino_audit_verify_authenticates_a_record_with_the_keys_a_server_serves(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=51, request_id="keys-from").match_id
    play_whole_match(svc, match_id)
    path = tmp_path / "record.json"
    path.write_text(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth("ann")).record_json)
    result = CliRunner().invoke(cli, ["audit", "verify", str(path), "--json", "--keys-from", f"127.0.0.1:{svc.port}"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["signature"]["status"] == "ok"
