"""The history projection over a real SQLite file and a real PostgreSQL: it follows the match
store as matches are played, and a rebuild from the events alone gives the same tables."""

from __future__ import annotations

import random

import pytest

from services.match.history_projection import HistoryProjection, rebuild
from services.history.view import View
from services.match.application import MatchApplication, SeatSpec
from tests.support.matches import Matches, random_move

pytestmark = pytest.mark.integration


@pytest.fixture
def env(either_store_env):
    return either_store_env


def play(app, request_id: str, rules: str, variant: str, players: list[str], rng: random.Random, moves=None):
    match = app.create_match(request_id, rules, variant, None, None, 0, [SeatSpec(p, p) for p in players])
    n = 0
    while not match.finished and (moves is None or n < moves):
        n += 1
        match = random_move(app, match, rng, f"{request_id}-{n}")
    return match


def test_a_rebuild_from_the_events_alone_gives_the_tables_the_live_projection_kept(env):
    rng = random.Random(3)
    app = Matches(MatchApplication(env=env))
    view = View.for_env(env)
    try:
        projection = HistoryProjection(app.app, view, batch=17)
        projection.start()
        people = ["ann", "bob", "cat", "dan", "eve"]
        for i in range(6):  # the projection follows as the matches are played
            players = rng.sample(people, 2) if i % 2 else rng.sample(people, 3) + ["bot:greedy:3"]
            rules, variant = ("egyptian", "draw-2") if i % 2 else ("egyptian", "block-4")
            play(app, f"m{i}", rules, variant, players, rng)
            projection.pump()
        play(app, "live", "all-fives", "", ["ann", "bob"], rng, moves=3)  # one still in play
        projection.catch_up()
        live = view.dump()
        assert rebuild(app.app, view)["history_rows"] == len(live["history"])
        assert view.dump() == live
    finally:
        app.close()
    assert any(row[7] == "in_play" for row in live["history"])
    assert {row[0] for row in live["ratings"]} == {"egyptian/solo", "egyptian/teams"}
    assert any(row[1] == "bot:greedy" for row in live["ratings"])


def test_a_players_matches_are_listed_newest_first_a_page_at_a_time(env):
    rng = random.Random(5)
    app = Matches(MatchApplication(env=env))
    view = View.for_env(env)
    try:
        projection = HistoryProjection(app.app, view)
        projection.start()
        ids = [str(play(app, f"p{i}", "egyptian", "draw-2", ["ann", "bob"], rng).id) for i in range(5)]
        projection.catch_up()
        first = view.matches_of("ann", 3)
        rest = view.matches_of("ann", 3, (first[-1].started_at, first[-1].match_id))
    finally:
        app.close()
    assert [s.match_id for s in first + rest] == ids[::-1]
    assert all(s.result in ("won", "lost", "tied") for s in first + rest)


def test_a_forgotten_player_loses_every_history_row_and_rating_and_a_rebuild_keeps_them_out(env):
    rng = random.Random(7)
    app = Matches(MatchApplication(env=env))
    view = View.for_env(env)
    try:
        projection = HistoryProjection(app.app, view)
        projection.start()
        for i in range(3):
            play(app, f"f{i}", "egyptian", "draw-2", ["gone", "stays"], rng)
        projection.catch_up()
        rows, ratings = view.forget("gone", 1.0)
        after_forget = view.dump()
        play(app, "later", "egyptian", "draw-2", ["gone", "stays"], rng)  # a match already under way
        projection.catch_up()
        later = view.dump()
        rebuild(app.app, view)
        rebuilt = view.dump()
        counted = view.rating("egyptian", False, "stays")[1]
    finally:
        app.close()
    assert (rows, ratings) == (3, 1)
    for dump in (after_forget, later, rebuilt):
        assert not [r for r in dump["history"] if r[0] == "gone"]
        assert not [r for r in dump["ratings"] if r[1] == "gone"]
    assert len([r for r in rebuilt["history"] if r[0] == "stays"]) == 4
    assert counted == 1


def test_a_view_made_before_matches_said_whether_they_are_rated_or_who_left_gets_those_columns(env):
    view = View.for_env(env)
    try:
        with view.db.transaction() as execute:  # the table as it was made before them
            execute("CREATE TABLE domino_history (player_id TEXT NOT NULL, match_id TEXT NOT NULL, "
                    "seat INTEGER NOT NULL, rules TEXT NOT NULL, variant TEXT NOT NULL, teams INTEGER NOT NULL, "
                    "seats TEXT NOT NULL, result TEXT NOT NULL, scores TEXT NOT NULL, "
                    "started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, PRIMARY KEY (player_id, match_id))")
            execute("INSERT INTO domino_history VALUES ('ann', 'old', 0, 'egyptian', 'draw-2', 0, '[\"ann\", \"bob\"]', "
                    "'won', '[51, 3]', 1.0, 2.0)")
        view.create()
        view.create()  # and again, as every start does
        (old,) = view.matches_of("ann", 5)
    finally:
        view.drop()
        view.close()
    assert (old.result, old.rated, old.left_seats) == ("won", True, ())
