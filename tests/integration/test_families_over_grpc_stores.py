"""Whole matches of every rule family over real gRPC, stored on SQLite and on PostgreSQL,
exported and re-verified by `domino audit verify` (the store and the wire together)."""

from __future__ import annotations

import pytest

from services.match.application import MatchApplication
from tests.service.harness import running_service
from tests.support.families import option_tables, params, usual_tables
from tests.support.grpc_matches import create_fields, play_whole_match, verified
from tests.support.clock import Clock

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "postgres"])
def svc(request):
    env = request.getfixturevalue("fresh_sqlite_env" if request.param == "sqlite" else "fresh_postgres_env")
    app = MatchApplication(env=env, clock=Clock())
    try:
        with running_service(app) as service:
            yield service
    finally:
        app.close()


@pytest.mark.parametrize("table", params(usual_tables() + option_tables()))
def test_a_whole_match_of_every_family_on_each_store_exports_a_record_that_verifies(svc, tmp_path, table):
    created = svc.create(request_id=table.id, **create_fields(table))
    final = play_whole_match(svc, created.match_id)
    record, verdict = verified(svc, created.match_id, tmp_path)
    assert verdict["valid"] and verdict["complete"] and verdict["scores"] == list(final.scores)
    assert record["rules"] == table.family
