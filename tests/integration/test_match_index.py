"""The history view's index of every match (services/history/match_index.py), on a real
SQLite file and a real PostgreSQL: one row per match, kept by the projection's facts, listed
newest first by start and filtered as staff ask; a view made before the index gets it filled
from the history rows it holds; a rebuild reproduces it."""

from __future__ import annotations

import pytest

from services.history import match_index
from services.history.match_index import MatchFilter
from services.history.summary import Ended, Started
from services.history.view import View

pytestmark = pytest.mark.integration

A, B, C = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b", \
    "00000000-0000-4000-8000-00000000000c"
FACTS = [Started(A, "egyptian", "draw-2", False, ("ann", "bob"), 100.0),
         Started(B, "all-fives", "", False, ("bob", "bot:greedy:1"), 200.0, rated=False),
         Started(C, "egyptian", "block-4", True, ("ann", "bob", "cat", "dan"), 300.0),
         Ended(A, 0, (101, 40), False, 150.0)]


@pytest.fixture
def view(either_store_env):
    view = View.for_env(either_store_env)
    view.create()
    view.apply(FACTS, 4)
    yield view
    view.close()


def ids(view: View, **which) -> list[str]:
    return [m.match_id for m in view.matches(MatchFilter(**which), 10)]


def test_every_match_is_listed_once_newest_first_by_start(view):
    assert ids(view) == [C, B, A]


def test_a_listed_match_holds_what_its_start_and_end_said(view):
    done, = view.matches(MatchFilter(match_id=A), 10)
    live, = view.matches(MatchFilter(match_id=B), 10)
    assert (done.rules, done.variant, done.seats, done.scores, done.started_at, done.ended_at, done.rated) == \
        ("egyptian", "draw-2", ["ann", "bob"], [101, 40], 100.0, 150.0, True)
    assert (live.seats, live.scores, live.ended_at, live.rated) == (["bob", "bot:greedy:1"], [], None, False)


@pytest.mark.parametrize("which, expected", [
    (dict(finished=True), [A]), (dict(finished=False), [C, B]), (dict(rules="egyptian"), [C, A]),
    (dict(rules="egyptian", variant="block-4"), [C]), (dict(player_id="ann"), [C, A]),
    (dict(player_id="bot:greedy:1"), [B]), (dict(player_id="ann", finished=False), [C]),
    (dict(started_after=200.0), [C, B]), (dict(started_before=200.0), [A]),
    (dict(started_after=100.0, started_before=300.0), [B, A]), (dict(after=(300.0, C)), [B, A]),
    (dict(player_id="bob", after=(200.0, B)), [A]), (dict(match_id=B, finished=True), []),
], ids=lambda v: "-".join(f"{k}={w}" for k, w in v.items()) if isinstance(v, dict) else None)
def test_a_listing_keeps_what_its_filter_names(view, which, expected):
    assert ids(view, **which) == expected


def test_a_limit_keeps_the_newest(view):
    assert [m.match_id for m in view.matches(MatchFilter(), 2)] == [C, B]


def test_a_view_made_before_the_index_gets_it_filled_from_its_history_rows(view):
    before = view.dump()["matches"]
    with view.db.transaction() as execute:
        execute(f"DROP TABLE {match_index.TABLE}")
    view.create()
    assert view.dump()["matches"] == before and ids(view) == [C, B, A]


def test_a_forgotten_players_matches_stay_listed_but_are_not_found_by_their_id(view):
    view.forget("ann", 400.0)
    assert ids(view) == [C, B, A] and ids(view, player_id="ann") == []


def test_a_match_whose_every_seat_was_forgotten_still_ends_in_the_index(view):
    for player in ("bob", "bot:greedy:1"):  # B's seats: no history row of it is left
        view.forget(player, 400.0)
    view.apply([Ended(B, 0, (120, 3), False, 250.0)], 5)
    assert ids(view, finished=True) == [B, A]


def test_creating_the_view_again_changes_nothing(view):
    before = view.dump()
    view.create()
    assert view.dump() == before
