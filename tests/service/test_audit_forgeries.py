"""`domino audit verify --key` authenticates a record, or says it cannot (docs/record.md,
"Signed heads"; docs/security.md).

The red team's forgery: take a finished match's export, keep its revealed seeds and so
its deals, play the deals again with other legal moves until the other side wins, recompute
the chain's links (the seed is revealed, so anyone can), and delete the signed head, which
nobody can forge. The verifier used to print "valid", exit 0, with the signature "absent";
removing the chain, or the chain and the fairness fields, passed too. With --key, a record
that carries no head the service signed over its recomputed content is not authenticated:
exit 1, with that finding in the report. Without --key nothing changes: such a record is
only checked against the rules, and they allow it.
"""

from __future__ import annotations

import json
import os
import random
import tempfile

import pytest
from click.testing import CliRunner

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.match import chain
from services.match.application import MatchApplication
from services.match.heads import PublishedKey, PublishedKeys, key_id
from services.match.record import MatchRecord, RecordedAction, RecordedRound, from_json, to_json
from services.rules.fairness import fair_deal
from services.rules.match import apply, current_round, new_match, start_round
from services.rules.moves import legal_moves
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .harness import running_service


@pytest.fixture(scope="module")
def svc():
    # A fixed server seed: the forgeries below search replays of its deals for one the other
    # side wins with the same number of chain entries, which some random deals do not allow.
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"},
                           seed_source=lambda: b"audit-forgeries".ljust(32, b"\0"))
    with running_service(app) as service:
        yield service
    app.close()


@pytest.fixture(scope="module")
def finished(svc) -> dict:
    """A real finished match's export, as an auditor (or anyone it was handed to) has it."""
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id="forged").match_id
    play_whole_match(svc, match_id)
    return json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                           metadata=auth("auditor-1", "auditor")).record_json)


@pytest.fixture(scope="module")
def keys_file(svc, tmp_path_factory) -> str:
    public = svc.signer.public_key
    path = tmp_path_factory.mktemp("keys") / "heads-keys.json"
    path.write_text(json.dumps(PublishedKeys([PublishedKey(key_id(public), public)]).to_json()))
    return str(path)


def replayed_for_the_other_side(real: dict, entries: int | None = None) -> dict:
    """The real deals (from the revealed seeds) played again with other legal moves until the
    match's winner is the other side (and, given ``entries``, the chain has that many
    entries without the end), with every link recomputed; the signed head is gone."""
    record = from_json(real)
    rules, fairness = record.rule_set(), record.fairness
    assert fairness is not None and fairness.server_seed is not None
    seed = bytes.fromhex(fairness.server_seed)
    real_winner = verify_json_of(real)["winner"]
    for attempt in range(3000):
        rng = random.Random(attempt)
        match = new_match(rules, record.target)
        rounds: list[RecordedRound] = []
        while not match.over:
            deal = fair_deal(rules, seed, fairness.client_seeds, len(rounds))
            match = start_round(match, deal)
            rounds.append(RecordedRound(deal._replace(chance=-1)))
            while current_round(match).outcome is None:
                rnd = current_round(match)
                move = rng.choice(legal_moves(rnd))
                rounds[-1].actions.append(RecordedAction(rnd.turn, move, rnd.boneyard[rnd.drawn]
                                                         if move.kind == "draw" else -1))
                match = apply(match, move)
        forged = MatchRecord(record.rules, record.variant, record.teams, record.target, record.seats, rounds,
                             fairness)
        if match.winner != real_winner and (entries is None or len(chain.entries(forged)) - 1 == entries):
            forged.chain = {"links": chain.links(forged)}
            return to_json(forged)
    raise AssertionError("no replay of these deals lets the other side win")


def verify_json_of(data: dict, *args: str) -> dict:
    return json.loads(verify(data, "--json", *args).stdout)


def verify(data: dict, *args: str):
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "record.json")
        with open(path, "w") as fh:
            json.dump(data, fh)
        result = CliRunner().invoke(cli, ["audit", "verify", path, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def without(data: dict, *fields: str) -> dict:
    return {k: v for k, v in data.items() if k not in fields}


FORGERIES = {  # what the forger removed besides the head: the forgery as it is handed over
    "links recomputed, no head": lambda forged: forged,
    "no chain": lambda forged: without(forged, "chain"),
    "no chain and no fairness": lambda forged: without(forged, "chain", "fairness"),
}


def test_the_real_export_is_authenticated_with_the_published_key(finished, keys_file):
    result = verify(finished, "--key", keys_file)
    assert result.exit_code == 0, result.output
    assert "signed head: ok" in result.stdout


@pytest.mark.parametrize("name", FORGERIES)
def test_a_replay_of_the_seeds_with_another_winner_is_not_authenticated_with_key(finished, keys_file, name):
    forged = FORGERIES[name](replayed_for_the_other_side(finished))
    unkeyed = verify_json_of(forged)
    assert unkeyed["valid"] and unkeyed["winner"] != verify_json_of(finished)["winner"]  # legal, and flipped
    keyed = verify(forged, "--key", keys_file)
    assert keyed.exit_code == 1, keyed.output
    assert "signed head: absent" in keyed.stdout and "not authenticated" in keyed.stdout
    report = verify_json_of(forged, "--key", keys_file)
    assert report["valid"] is False and report["signature"]["status"] == "absent"
    assert report["error"]["message"].startswith("signature: absent, so the record is not authenticated")


def test_the_real_head_and_links_over_other_moves_without_the_fairness_fields_are_not_authenticated(finished,
                                                                                                     keys_file):
    """The real signed head and stored links kept, over a replay as many entries long with
    the other side winning, and the seeds removed so no link can be recomputed: the head
    matched the stored links and its signature verified, so this passed as "ok". The head
    vouches for links the verifier cannot tie to the content."""
    links = finished["chain"]["links"]
    forged = replayed_for_the_other_side(finished, entries=len(links))
    forged = {**without(forged, "fairness"), "chain": finished["chain"]}
    result = verify(forged, "--key", keys_file, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["valid"] is False, report
    assert report["signature"]["status"] == "unchecked"
    assert "not authenticated" in report["error"]["message"] and "no 'fairness'" in report["error"]["message"]
