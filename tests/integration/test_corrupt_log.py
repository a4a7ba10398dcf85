"""A stored event the engine refuses (an illegal tile written into the store) makes its match
loudly frozen, on a real SQLite file and a real PostgreSQL: reads answer DATA_LOSS with a
message for operators, an error log names the match and the event, nothing is rewritten,
an auditor can still export it, and `domino audit repair-report` says what happened."""

from __future__ import annotations

import json
import logging
import os

import grpc
import pytest
from click.testing import CliRunner

from domino.match.v1 import match_service_pb2 as pb
from services.audit.verify import verify
from services.cli.main import cli
from services.match.application import MatchApplication
from services.match.record import loads
from tests.integration.test_tampering import Rows, named
from tests.service.harness import running_service
from tests.support.grpc_matches import act
from tests.support.errors import refusal
from tests.support.keys import auth

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("thawed_matches")]


@pytest.fixture
def env(either_store_env):
    return either_store_env


def corrupted(env) -> tuple[str, int, list]:
    """A block-4 match six plays in, whose fourth play is rewritten to a tile already on the
    line: (match id, the edited event's version, the rows as edited)."""
    app = MatchApplication(env=env)
    try:
        with running_service(app) as svc:
            match_id = svc.create().match_id
            view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("x", "service")).view
            for n in range(6):
                view = act(svc, match_id, view, n)
    finally:
        app.close()
    from uuid import UUID
    rows = Rows(env, UUID(match_id))
    stored = rows.read()
    plays = named(stored, "TilePlayed")
    plays[3][2]["tile"] = plays[0][2]["tile"]  # a tile that is no longer in anyone's hand
    rows.write(stored)
    return match_id, plays[3][0], stored


def test_a_refused_stored_event_freezes_the_match_with_data_loss_and_an_error_log(env, caplog):
    match_id, version, edited = corrupted(env)
    app = MatchApplication(env=env)
    try:
        with running_service(app) as svc, caplog.at_level(logging.ERROR, logger="domino.match.store"):
            for call in (lambda: svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")),
                         lambda: svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="d1"),
                                                   metadata=auth("ann")),
                         lambda: svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth("ann"))):
                with pytest.raises(grpc.RpcError) as refused:
                    call()
                assert refused.value.code() == grpc.StatusCode.DATA_LOSS
                assert refusal(refused.value).reason == "MATCH_FROZEN"
                assert f"event {version}" in refused.value.details()
                assert f"domino audit repair-report {match_id}" in refused.value.details()
            logged = [r for r in caplog.records if "refused on replay" in r.getMessage()]
            assert len(logged) == 1  # once, however many reads follow
            assert logged[0].match == match_id and logged[0].version == version
            assert "TilePlayed" in logged[0].topic
            exported = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id, unfinished=True),
                                            metadata=auth("auditor-1", "auditor")).record_json
    finally:
        app.close()
    from uuid import UUID
    assert Rows(env, UUID(match_id)).read() == edited  # nothing rewritten
    fault = verify(loads(exported)).to_json()
    assert fault["valid"] is False and fault["error"]["action"] is not None


def test_repair_report_names_the_refused_event_and_its_broken_link(env, monkeypatch):
    match_id, version, _ = corrupted(env)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(cli, ["audit", "repair-report", match_id, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["refused"]["version"] == version and report["refused"]["type"] == "Match.TilePlayed"
    assert report["replays_up_to_version"] == version - 1
    assert report["chain"]["first_bad_version"] == version
    assert report["seats"] == ["ann", "bob", "cat", "dan"]
    started = report["stored_events"][0]["fields"]
    assert started["server_seed"] == "(secret until the match ends)"
    assert any("row was changed" in line for line in report["decide"])
    assert "PERSISTENCE_MODULE" in os.environ
