"""`domino audit repair-report` on a store someone wrote rows into with SQL (a real SQLite
file, a real PostgreSQL), as replay-all is tested (test_replay_all_hostile_rows.py): a
stored topic is resolved only among the Match aggregate's own events, never imported (a
topic `this:s` ran the Zen of Python's module), and a row it cannot read is reported as the
refused event of that one match, while the other matches report as before. A match stored
under an id that is no UUID, as replay-all names it, is reported too."""

from __future__ import annotations

import json
import sys
import uuid

import pytest
from click.testing import CliRunner
from eventsourcing.utils import get_topic

from services.cli.main import cli
from services.match.domainmodel import Match
from tests.integration.test_replay_all_hostile_rows import played_version, rewrite, two_matches
from tests.integration.test_tampering import Rows

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("thawed_matches")]


def repair_report(monkeypatch, env: dict, match_id: str, *options: str):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, ["audit", "repair-report", match_id, *options])


@pytest.mark.parametrize("topic", ["this:s", "os:system", "services.match.table_talk:TableTalk.PhraseSent"])
def test_a_stored_topic_that_is_no_match_event_is_the_refused_event_and_is_never_imported(
        either_store_env, monkeypatch, topic):
    env = either_store_env
    ids = two_matches(env)
    version = played_version(env, ids[0])
    rewrite(env, ids[0], version, topic=topic)
    sys.modules.pop("this", None)
    result = repair_report(monkeypatch, env, ids[0], "--json")
    assert "this" not in sys.modules  # nothing named by the store was imported
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert report["found"] and report["match"] == ids[0]
    refused = report["refused"]
    assert refused["version"] == version and refused["type"] == "(not a match event)"
    assert repr(topic) in refused["reason"] and "not an event of a match" in refused["reason"]
    assert report["replays_up_to_version"] == version - 1
    [bad] = [e for e in report["stored_events"] if e["version"] == version]
    assert "fields" not in bad and repr(topic) in bad["unreadable"]
    others = [e for e in report["stored_events"] if e["version"] != version]
    assert others and all("fields" in e and "unreadable" not in e for e in others)
    assert report["seats"] == ["ann", "bob"]
    assert any(f"Replay refuses event {version}" in line for line in report["decide"])

    said = repair_report(monkeypatch, env, ids[0])  # the operator's screen names the row too
    assert said.exit_code == 0 and "this" not in sys.modules
    assert "(not a match event)" in said.stdout and "<- REFUSED" in said.stdout

    other = json.loads(repair_report(monkeypatch, env, ids[1], "--json").stdout)  # the other match: untouched
    assert other["found"] and other["refused"] is None and other["chain"]["status"] == "ok"
    assert all("fields" in e for e in other["stored_events"])


def test_a_stored_state_that_cannot_be_decoded_is_the_refused_event(either_store_env, monkeypatch):
    env = either_store_env
    ids = two_matches(env)
    version = played_version(env, ids[1])
    rewrite(env, ids[1], version, state=b"\xff not json")
    report = json.loads(repair_report(monkeypatch, env, ids[1], "--json").stdout)
    assert report["refused"]["version"] == version and report["refused"]["type"] == "Match.TilePlayed"
    assert "cannot be decoded" in report["refused"]["reason"]


def test_a_match_stored_under_an_id_that_is_no_uuid_is_reported_without_reading_its_rows(
        fresh_sqlite_env, monkeypatch):
    """SQLite keeps ids as text; PostgreSQL's uuid column refuses such a row. The row copies a
    real MatchStarted, with a topic that names no match event after it: neither is decoded."""
    env = fresh_sqlite_env
    ids = two_matches(env)
    rows = Rows(env, uuid.UUID(ids[0]))
    first, _, started = rows.read()[0]
    conn, p, _ = rows._connect()
    with conn:
        conn.executemany(f"INSERT INTO {rows.table} (originator_id, originator_version, topic, state) "
                         "VALUES (?, ?, ?, ?)",
                         [("not-a-uuid", first, get_topic(Match.MatchStarted), json.dumps(started).encode()),
                          ("not-a-uuid", first + 1, "this:s", b"{}")])
    conn.close()
    sys.modules.pop("this", None)
    result = repair_report(monkeypatch, env, "not-a-uuid", "--json")
    assert "this" not in sys.modules
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["found"] and report["match"] == "not-a-uuid" and report["events"] == 2
    assert "not a UUID" in report["unreadable"]
    assert report["refused"]["version"] == first and "not a UUID" in report["refused"]["reason"]
    assert [(e["version"], e["type"]) for e in report["stored_events"]] == [
        (first, "Match.MatchStarted"), (first + 1, "(not a match event)")]
    assert all("fields" not in e for e in report["stored_events"])
    assert any("written into the store by hand" in line for line in report["decide"])

    said = repair_report(monkeypatch, env, "not-a-uuid")
    assert said.exit_code == 0 and "match not-a-uuid: " in said.stdout and "2 stored rows" in said.stdout
    assert json.loads(repair_report(monkeypatch, env, ids[0], "--json").stdout)["refused"] is None  # its source: untouched

    nowhere = repair_report(monkeypatch, env, "nothing-here")
    assert nowhere.exit_code == 2 and "'nothing-here' is not a match id" in nowhere.stderr
