"""How the history ranks a finished match (services/history/summary.py): a side a player
left forfeits, a match that is not rated moves no rating, and a match stored before it said
whether it is rated counts as practice with one person among bots."""

from __future__ import annotations

import pytest

from services.history.summary import (Ended, Started, counts_for_ratings, fresh, ranks, rated_id, rerated, result_of,
                                      side_of)
from services.rules.registry import families


def every_shape() -> list[tuple[str, str, int, bool]]:
    return [(f.name, variant, shape.seats, shape.teams)
            for f in families() for variant in f.variants or ("",) for shape in f.shapes(variant)]


def played(rules: str, seats: int, teams: bool, rated: bool = True) -> Started:
    players = ("ann", "bob", "cat", "dan")[:seats]
    return Started("m", rules, "", teams, players, 1.0, rated)


def best_for_seat_0(rules: str, sides: int) -> tuple[int, ...]:
    """Totals in which side 0 did best (lowest where the family's points are bad)."""
    low = next(f for f in families() if f.name == rules).lower_is_better
    return tuple((10 if low else 90) if side == 0 else (50 + side) for side in range(sides))


@pytest.mark.parametrize("shape", every_shape(), ids=lambda s: "-".join(str(x) for x in s if x != ""))
def test_a_player_who_leaves_is_ranked_below_every_side_that_stayed_whatever_the_stand_in_scored(shape):
    rules, _, seats, teams = shape
    started = played(rules, seats, teams)
    sides = seats // 2 if teams else seats
    ended = Ended("m", 0, best_for_seat_0(rules, sides), False, 2.0, left=(0,))
    places = ranks(started, ended)
    assert places[0] == sides and all(place < sides for place in places[1:])
    after = rerated(started, ended, {})
    for seat, player in enumerate(started.seats):
        if side_of(seat, teams) == 0:  # ann, and in teams her partner
            assert result_of(seat, started, ended) == "lost" and after[player].mu < fresh().mu
    assert [result_of(seat, started, ended) for seat in range(seats)].count("won") == (2 if teams else 1)


def test_without_a_leaver_the_sides_are_ranked_by_their_totals_as_before():
    started = played("egyptian", 3, False)
    ended = Ended("m", 1, (20, 90, 50), False, 2.0)
    assert ranks(started, ended) == [3, 1, 2]
    assert [result_of(s, started, ended) for s in range(3)] == ["lost", "won", "lost"]


def test_players_who_all_left_share_the_last_place_and_each_lost():
    started = played("egyptian", 2, False)
    ended = Ended("m", 0, (90, 20), False, 2.0, left=(0, 1))
    assert ranks(started, ended) == [1, 1]
    assert [result_of(s, started, ended) for s in range(2)] == ["lost", "lost"]


def test_an_unrated_match_moves_no_rating_and_keeps_its_results():
    started = played("all-fives", 2, False, rated=False)
    ended = Ended("m", 0, (88, 0), False, 2.0)
    assert rerated(started, ended, {}) == {}
    assert result_of(0, started, ended) == "won"


@pytest.mark.parametrize("request_id,seats,rated", [
    ("practice:5f0c", ("ann", "bot:greedy:1"), False),  # practice, before matches said so
    ("room:77ab", ("ann", "bot:random:1", "bot:random:2"), False),  # one person among bots is practice too
    ("practice:5f0c", ("ann", "bob"), False),
    ("table:1234", ("ann", "bob"), True),
    ("room:77ab", ("ann", "bob", "bot:strong:2", "bot:strong:3"), True),
    ("any", ("bot:greedy:0", "bot:strong:1"), False),  # bots alone: their ratings are the ladder's
])
def test_a_match_that_does_not_say_whether_it_is_rated_counts_unless_it_is_practice(request_id, seats, rated):
    assert counts_for_ratings(None, request_id, seats) is rated


def test_what_the_match_says_of_its_rating_is_believed():
    assert counts_for_ratings(True, "practice:5f0c", ("ann", "bot:greedy:1")) is True
    assert counts_for_ratings(False, "table:1234", ("ann", "bob")) is False


def test_bots_are_rated_by_strength_as_the_opponents_people_are_rated_against():
    started = Started("m", "egyptian", "draw-2", False, ("ann", "bot:strong:1"), 1.0)
    after = rerated(started, Ended("m", 1, (0, 60), False, 2.0), {})
    assert set(after) == {"ann", rated_id("bot:strong:1")} and after["ann"].mu < fresh().mu
