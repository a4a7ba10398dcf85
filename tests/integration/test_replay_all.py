"""`domino audit replay-all` against a real SQLite file and a real PostgreSQL, opened from
the environment as the match service opens its store: matches played through the
application replay the same (exit 0), a result rewritten in the database is named (exit 1),
and a store that cannot be read is one line and exit 2, so a deploy can be gated on it."""

from __future__ import annotations

import json
import random
import uuid

import pytest
from click.testing import CliRunner

from services.cli.main import cli
from services.match.application import MatchApplication, SeatSpec
from tests.integration.test_rewritten_result import played, swap_the_result
from tests.integration.test_tampering import Rows, named
from tests.support.matches import Matches, random_move

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("thawed_matches")]


@pytest.fixture
def env(either_store_env):
    return either_store_env


def stored_matches(env: dict) -> dict[str, str]:
    """Three finished matches of three families and one still in play: name -> match id."""
    rng = random.Random(21)
    app = Matches(MatchApplication(env=env))
    try:
        ids = {"draw-2": played(app, "draw-2", ["ann", "bob"], rng).id}
        for name, rules, variant, seats in (("all-fives", "all-fives", "", 3), ("goat", "goat", "koza", 2)):
            players = [f"{name}-{s}" for s in range(seats)]
            match = app.create_match(name, rules, variant, None, None, 0, [SeatSpec(p, p) for p in players],
                                     options={"fish": "one"} if rules == "goat" else None)
            n = 0
            while not match.finished:
                n += 1
                match = random_move(app, match, rng, f"{name}-{n}")
            ids[name] = match.id
        in_play = app.create_match("in-play", "egyptian", "block-4", True, 51, 0,
                                   [SeatSpec(p, p) for p in ("cat", "dan", "eve", "fay")])
        for n in range(5):
            in_play = random_move(app, in_play, rng, f"in-play-{n}")
        ids["in-play"] = in_play.id
        return {name: str(match_id) for name, match_id in ids.items()}
    finally:
        app.close()


def replay_all(monkeypatch, env: dict, *args: str):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, ["audit", "replay-all", *args])


def test_every_match_played_through_the_application_replays_the_same(env, monkeypatch):
    ids = stored_matches(env)
    result = replay_all(monkeypatch, env, "--json", "--batch", "2")  # several reads of the log
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["matches"] == summary["replayed"] == len(ids)
    assert summary["differing"] == summary["failed"] == []
    assert summary["seconds"] >= 0
    assert result.stderr == ""  # no progress bar when stderr is not a terminal

    said = replay_all(monkeypatch, env)
    assert said.exit_code == 0, said.output
    assert "4 matches: 4 replay the same, 0 differ, 0 could not be replayed" in said.stdout


def test_a_result_rewritten_in_the_store_is_named_and_exits_1(env, monkeypatch):
    ids = stored_matches(env)
    swap_the_result(env, uuid.UUID(ids["draw-2"]))
    result = replay_all(monkeypatch, env, "--json")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["matches"] == 4 and summary["replayed"] == 3 and summary["failed"] == []
    [differing] = summary["differing"]
    assert differing["match"] == ids["draw-2"]
    [difference] = differing["differences"]
    assert difference["kind"] == "result" and "MatchEnded" in difference["reason"]

    said = replay_all(monkeypatch, env)
    assert said.exit_code == 1
    assert f"DIFFERS {ids['draw-2']} at version {difference['version']} (result)" in said.stdout


def test_an_edited_link_and_a_log_cut_before_its_end_are_named_though_a_replica_loads_both(env, monkeypatch):
    ids = stored_matches(env)
    rows = Rows(env, uuid.UUID(ids["all-fives"]))
    stored = rows.read()
    edited = named(stored, "TilePlayed")[3]
    edited[2]["link"] = "0" * 64
    rows.write(stored)
    rows = Rows(env, uuid.UUID(ids["goat"]))
    stored = rows.read()
    ends = [r[0] for r in named(stored, "RoundEnded")[-1:] + named(stored, "MatchEnded")]
    rows.write([], deleted=ends)
    app = MatchApplication(env=env)
    try:
        for name in ("all-fives", "goat"):
            app.store.get(uuid.UUID(ids[name]))  # neither is refused on load
    finally:
        app.close()

    result = replay_all(monkeypatch, env, "--json")
    assert result.exit_code == 1, result.output
    found = {d["match"]: d["differences"] for d in json.loads(result.stdout)["differing"]}
    assert set(found) == {ids["all-fives"], ids["goat"]}
    assert [(d["kind"], d["version"]) for d in found[ids["all-fives"]]] == [("chain", edited[0])]
    [cut] = found[ids["goat"]]
    assert cut["kind"] == "state" and "RoundEnded" in cut["reason"] and cut["version"] == min(ends) - 1


def test_a_store_that_cannot_be_read_is_one_line_and_exits_2(env, monkeypatch, tmp_path):
    if "SQLITE_DBNAME" in env:
        bad = {**env, "SQLITE_DBNAME": str(tmp_path / "nowhere" / "match.sqlite")}
    else:
        bad = {**env, "POSTGRES_DBNAME": "no_such_database"}
    result = replay_all(monkeypatch, bad, "--json")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("domino audit replay-all: ")
    assert "Traceback" not in result.output
    assert not (tmp_path / "nowhere").exists()  # a wrong address makes no store
