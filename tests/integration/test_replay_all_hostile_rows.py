"""`domino audit replay-all` on a store someone wrote rows into with SQL (a real SQLite file,
a real PostgreSQL), as the red team did: a stored topic is resolved only among the Match
aggregate's own events, never imported (a topic `this:s` printed the Zen of Python into
`--json`), and a row it cannot read (an unknown topic, undecodable state, an id that is no
UUID) is one failed match with its reason, while the run goes on and exits 1."""

from __future__ import annotations

import json
import random
import sys
import uuid

import pytest
from click.testing import CliRunner
from eventsourcing.utils import get_topic

from services.cli.main import cli
from services.match.application import MatchApplication
from services.match.domainmodel import Match
from tests.integration.test_rewritten_result import played
from tests.integration.test_tampering import Rows, named
from tests.support.matches import Matches

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("thawed_matches")]


@pytest.fixture
def env(either_store_env):
    return either_store_env


def two_matches(env: dict, prefix: str = "m") -> list[str]:
    rng = random.Random(34)
    app = Matches(MatchApplication(env=env))
    try:
        return [str(played(app, f"{prefix}{n}", ["ann", "bob"], rng).id) for n in range(2)]
    finally:
        app.close()


def rewrite(env: dict, match_id: str, version: int, topic: str | None = None, state: bytes | None = None) -> None:
    """One stored row changed where it lives, its topic or its state as raw bytes."""
    rows = Rows(env, uuid.UUID(match_id))
    conn, p, key = rows._connect()
    with conn:
        if topic is not None:
            conn.execute(f"UPDATE {rows.table} SET topic = {p} WHERE originator_id = {p} AND originator_version = {p}",
                         (topic, key, version))
        if state is not None:
            conn.execute(f"UPDATE {rows.table} SET state = {p} WHERE originator_id = {p} AND originator_version = {p}",
                         (state, key, version))
    conn.close()


def replay_all(monkeypatch, env: dict):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, ["audit", "replay-all", "--json"])


def played_version(env: dict, match_id: str) -> int:
    return named(Rows(env, uuid.UUID(match_id)).read(), "TilePlayed")[2][0]


@pytest.mark.parametrize("topic", ["this:s", "services.match.domainmodel:Match",
                                   get_topic(Match).replace(":Match", ":Match.__class__"),
                                   "services.match.table_talk:TableTalk.PhraseSent", "os:system"])
def test_a_stored_topic_that_is_no_match_event_fails_its_match_without_importing_it(env, monkeypatch, topic):
    ids = two_matches(env)
    version = played_version(env, ids[0])
    rewrite(env, ids[0], version, topic=topic)
    sys.modules.pop("this", None)
    result = replay_all(monkeypatch, env)
    assert "this" not in sys.modules  # nothing named by the store was imported
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert summary["matches"] == 2 and summary["replayed"] == 1 and summary["differing"] == []
    [failed] = summary["failed"]
    assert failed["match"] == ids[0]
    assert f"version {version}" in failed["reason"] and repr(topic) in failed["reason"]
    assert "not an event of a match" in failed["reason"]


def test_a_stored_state_that_cannot_be_decoded_fails_its_match_and_the_run_goes_on(env, monkeypatch):
    ids = two_matches(env)
    version = played_version(env, ids[1])
    rewrite(env, ids[1], version, state=b"\xff not json")
    result = replay_all(monkeypatch, env)
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["matches"] == 2 and summary["replayed"] == 1
    [failed] = summary["failed"]
    assert failed["match"] == ids[1] and f"version {version}" in failed["reason"]
    assert "cannot be decoded" in failed["reason"]


def test_a_match_stored_under_an_id_that_is_no_uuid_is_one_failure_and_the_run_goes_on(fresh_sqlite_env, monkeypatch):
    """SQLite keeps ids as text; PostgreSQL's uuid column refuses such a row."""
    env = fresh_sqlite_env
    ids = two_matches(env)
    first, _, started = Rows(env, uuid.UUID(ids[0])).read()[0]
    rows = Rows(env, uuid.UUID(ids[0]))
    conn, p, _ = rows._connect()
    with conn:
        conn.execute(f"INSERT INTO {rows.table} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                     ("not-a-uuid", first, get_topic(Match.MatchStarted), json.dumps(started).encode()))
    conn.close()
    two_matches(env, "later")  # listed after the bad row: the run must reach them
    result = replay_all(monkeypatch, env)
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["matches"] == 5 and summary["replayed"] == 4 and summary["differing"] == []
    [failed] = summary["failed"]
    assert failed["match"] == "not-a-uuid" and "not a UUID" in failed["reason"]
    said = CliRunner().invoke(cli, ["audit", "replay-all"])
    assert said.exit_code == 1 and "FAILED not-a-uuid: " in said.stdout
    assert "5 matches: 4 replay the same, 0 differ, 1 could not be replayed" in said.stdout
