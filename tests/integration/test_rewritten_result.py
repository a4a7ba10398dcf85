"""A finished match's stored result rewritten in the database itself (a real SQLite file, a
real PostgreSQL), as an attacker with write access to the store would: the winner and the
totals of its MatchEnded swapped, fields outside the hash chain, so every link still holds.
Neither a rebuild of the history (`domino projections rebuild`) nor the live projection
believes it: the result comes from replaying the match, the replay refuses the rewritten end,
the match is left out of the history and the ratings, the refusal is logged and counted, and
the match service answers DATA_LOSS for it."""

from __future__ import annotations

import json
import logging
import random
from uuid import UUID

import grpc
import pytest
from click.testing import CliRunner
from prometheus_client import CollectorRegistry, Counter

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.match.history_projection import HistoryProjection
from services.history.view import View
from services.match import store
from services.match.application import MatchApplication, SeatSpec
from tests.integration.test_tampering import Rows, named
from tests.service.harness import running_service
from tests.support.errors import refusal
from tests.support.keys import auth
from tests.support.matches import Matches, random_move

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("thawed_matches")]


@pytest.fixture
def env(either_store_env):
    return either_store_env


def played(app: Matches, request_id: str, players: list[str], rng: random.Random):
    """A draw-2 match played to its end with a winner."""
    match = app.create_match(request_id, "egyptian", "draw-2", None, 51, 0, [SeatSpec(p, p) for p in players])
    n = 0
    while not match.finished:
        n += 1
        match = random_move(app, match, rng, f"{request_id}-{n}")
    assert match.state.winner is not None
    return match


def swap_the_result(env: dict, match_id: UUID) -> None:
    """The attack: the stored MatchEnded names the other side as winner, with the totals swapped."""
    rows = Rows(env, match_id)
    stored = rows.read()
    ended = named(stored, "MatchEnded")[0][2]
    ended["winner"] = 1 - ended["winner"]
    ended["scores"] = ended["scores"][::-1]
    rows.write(stored)


def results_of(view: View, player: str) -> dict[str, str]:
    return {m.match_id: m.result for m in view.matches_of(player, 50)}


def test_a_rebuild_after_the_winner_was_swapped_in_the_store_leaves_the_match_out_and_it_answers_data_loss(
        env, monkeypatch, caplog):
    rng = random.Random(11)
    app = Matches(MatchApplication(env=env))
    view = View.for_env(env)
    try:
        projection = HistoryProjection(app.app, view)
        projection.start()
        target = played(app, "target", ["ann", "bob"], rng)
        other = played(app, "other", ["ann", "cat"], rng)
        projection.catch_up()
        winner, loser = target.seats[target.state.winner], target.seats[1 - target.state.winner]
        assert results_of(view, winner)[str(target.id)] == "won"
        other_result = results_of(view, "ann")[str(other.id)]
    finally:
        app.close()
        view.close()

    swap_the_result(env, target.id)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with caplog.at_level(logging.ERROR, logger="domino.history"):
        result = CliRunner().invoke(cli, ["projections", "rebuild"])
    assert result.exit_code == 1, result.output
    built = json.loads(result.stdout)
    assert built["results_refused"] == [str(target.id)]
    assert str(target.id) in result.stderr and "repair-report" in result.stderr
    logged = [r for r in caplog.records if "not recorded" in r.getMessage()]
    assert len(logged) == 1 and logged[0].match == str(target.id) and "MatchEnded" in logged[0].reason

    report = json.loads(CliRunner().invoke(cli, ["audit", "repair-report", str(target.id), "--json"]).stdout)
    assert report["refused"]["type"] == "Match.MatchEnded" and report["chain"]["status"] == "ok"
    assert any("not in the chain" in line for line in report["decide"])

    store.FROZEN.clear()  # the rebuild ran in its own process: the service has frozen nothing yet
    app2 = MatchApplication(env=env)
    view = View.for_env(env)
    try:
        with running_service(app2, history=view) as svc:
            listed = {p: {m.match_id: m for m in svc.stub.ListMyMatches(pb.ListMyMatchesRequest(),
                                                                         metadata=auth(p)).matches}
                      for p in (winner, loser, "ann")}
            # neither the swapped result nor any: the match is left as it was before its end
            assert listed[winner][str(target.id)].result == listed[loser][str(target.id)].result == \
                pb.MATCH_RESULT_IN_PLAY
            assert not listed[winner][str(target.id)].HasField("ended_at")
            assert pb.MatchResult.Name(listed["ann"][str(other.id)].result) == f"MATCH_RESULT_{other_result.upper()}"
            ratings = {p: svc.stub.GetRating(pb.GetRatingRequest(rules="egyptian", player_id=p),
                                             metadata=auth(p)).rating for p in ("bob", "cat")}
            assert ratings["bob"].matches == 0 and ratings["cat"].matches == 1  # only "other" moved a rating
            with pytest.raises(grpc.RpcError) as refused:
                svc.stub.GetMatch(pb.GetMatchRequest(match_id=str(target.id)), metadata=auth(winner))
            assert refused.value.code() == grpc.StatusCode.DATA_LOSS
            assert refusal(refused.value).reason == "MATCH_FROZEN"
            assert "MatchEnded" in refused.value.details()
    finally:
        app2.close()
        view.close()


def test_the_live_projection_takes_the_result_from_the_replay_and_counts_a_rewritten_one(env, caplog):
    rng = random.Random(12)
    registry = CollectorRegistry()
    counted = Counter("domino_history_result_mismatch_total", "as the relay's", registry=registry)
    app = Matches(MatchApplication(env=env))
    view = View.for_env(env)
    try:
        projection = HistoryProjection(app.app, view, on_refused=counted.inc)
        projection.start()
        honest = played(app, "honest", ["ann", "bob"], rng)
        target = played(app, "target", ["cat", "dan"], rng)
        swap_the_result(env, target.id)  # rewritten before the projection reached its end
        with caplog.at_level(logging.ERROR, logger="domino.history"):
            projection.catch_up()
        assert registry.get_sample_value("domino_history_result_mismatch_total") == 1
        assert projection.refused == [str(target.id)]
        assert any(getattr(r, "match", None) == str(target.id) for r in caplog.records)
        honest_winner = honest.seats[honest.state.winner]
        assert results_of(view, honest_winner)[str(honest.id)] == "won"
        assert {results_of(view, p)[str(target.id)] for p in ("cat", "dan")} == {"in_play"}
        assert view.rating("egyptian", False, "cat")[0] is None  # no rating moved by it
        assert view.rating("egyptian", False, honest_winner)[0] is not None
    finally:
        app.close()
        view.close()
