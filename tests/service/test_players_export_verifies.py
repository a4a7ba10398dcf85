"""A player's own export verifies (docs/record.md, "Who sees what in an export").

What `domino play`'s "Your matches" writes is ExportMatch called with the seat's own token:
the boneyard a count in every round, and in the round in play the other hands counts and
their draws null. `domino audit verify` used to refuse it as malformed in every family
with a boneyard ("round 0: 'boneyard' must be a list, not 14"). Here a real match service
plays a whole match of every family and variant over gRPC, each seat's export is verified
by the CLI, and it must say what the auditor's whole export says; with the service's
published key it is authenticated too, as the revealed seeds give every hidden tile and so
the chain the service signed. An export taken mid-match verifies as far as it can be
checked and lists what it could not.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.match.application import MatchApplication
from services.match.heads import PublishedKey, PublishedKeys, key_id
from tests.support.families import params, variant_tables
from tests.support.grpc_matches import create_fields, play_whole_match
from tests.support.keys import auth

from .harness import running_service

MID_MATCH_MOVES = 5  # a round in play, with other hands hidden from the exporting seat


@pytest.fixture(scope="module")
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


@pytest.fixture(scope="module")
def keys_file(svc, tmp_path_factory):
    public = svc.signer.public_key
    path = tmp_path_factory.mktemp("keys") / "heads-keys.json"
    path.write_text(json.dumps(PublishedKeys([PublishedKey(key_id(public), public)]).to_json()))
    return str(path)


def export(svc, match_id: str, player: str) -> str:
    return svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth(player)).record_json


def audit_verify(tmp_path, record_json: str, *args: str) -> tuple[int, dict]:
    path = tmp_path / "export.json"
    path.write_text(record_json)
    result = CliRunner().invoke(cli, ["audit", "verify", str(path), "--json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("table", params(variant_tables()))  # every family and variant
def test_every_seats_own_export_of_a_finished_match_verifies_as_the_auditors_does(svc, keys_file, tmp_path, table):
    match_id = svc.create(request_id=f"whole {table.id}", **create_fields(table)).match_id
    mid_match: list[tuple[str, str]] = []

    def export_once(view: pb.MatchView) -> None:
        if view.version >= MID_MATCH_MOVES + 2 and not mid_match:  # created, dealt, a few moves (passes may add more)
            player = view.seats[(view.turn + 1) % len(view.seats)].player_id
            mid_match.append((player, export(svc, match_id, player)))

    final = play_whole_match(svc, match_id, export_once)
    auditor = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                   metadata=auth("auditor-1", "auditor")).record_json
    status, whole = audit_verify(tmp_path, auditor)
    assert status == 0 and whole["complete"], whole
    for seat in final.seats:
        own = export(svc, match_id, seat.player_id)
        data = json.loads(own)
        counted = [rnd["boneyard"] for rnd in data["rounds"] if "boneyard" in rnd]
        assert all(type(n) is int for n in counted), "the export shows the boneyard as a count"
        status, report = audit_verify(tmp_path, own)
        assert status == 0, report
        assert {k: report[k] for k in ("valid", "complete", "rounds", "scores", "winner")} == \
               {k: whole[k] for k in ("valid", "complete", "rounds", "scores", "winner")}
        assert "unchecked" not in report  # the revealed seeds give every tile it hides
        status, authenticated = audit_verify(tmp_path, own, "--key", keys_file)
        assert status == 0 and authenticated["signature"]["status"] == "ok", authenticated

    (player, early), = mid_match
    status, report = audit_verify(tmp_path, early)
    assert status == 0 and report["valid"] and not report["complete"], report
    assert any("not replayed" in line for line in report["unchecked"]), report
    assert any("server seed is revealed when the match ends" in line for line in report["unchecked"])
    status, unauthenticated = audit_verify(tmp_path, early, "--key", keys_file)
    assert status == 1 and "not authenticated" in unauthenticated["error"]["message"], unauthenticated
