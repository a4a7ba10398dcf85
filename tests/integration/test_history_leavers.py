"""Leaving a match for good is a loss in the history and the ratings, whatever the server's
play for the leaver scores (docs/design.md, "History, ratings, spectators and table talk"):
in every family and team setting the registry offers, on a real SQLite file and a real
PostgreSQL, with matches played through the match application until the stand-in wins."""

from __future__ import annotations

import random

import pytest

from services.match.history_projection import HistoryProjection, rebuild
from services.history.summary import fresh, rating_key, side_of
from services.history.view import View
from services.match.application import MatchApplication, SeatSpec
from services.rules.registry import families
from tests.support.matches import Matches, random_move

pytestmark = pytest.mark.integration


def team_settings() -> list[tuple[str, str, int, bool]]:
    """One (family, variant, seats, teams) per family and team setting: the first two-sided
    shape the registry lists (two seats, or four in teams), so the side that stayed won."""
    chosen: dict[tuple[str, bool], tuple[str, str, int, bool]] = {}
    for f in families():
        for variant in f.variants or ("",):
            for shape in f.shapes(variant):
                if shape.seats == (4 if shape.teams else 2):
                    chosen.setdefault((f.name, shape.teams), (f.name, variant, shape.seats, shape.teams))
    return list(chosen.values())


def won_by_the_leavers_stand_in(app: Matches, rules: str, variant: str, seats: int, teams: bool):
    """A match in which seat 0 (``ann``) leaves before anything is played and the server's
    play for her seat ends on the winning side; the other seats play legal moves at random."""
    named = next(f for f in families() if f.name == rules)
    target = min(named.targets) if named.targets else None
    players = ["ann", "bob", "cat", "dan"][:seats]
    for attempt in range(40):
        request = f"{rules}-{variant}-{seats}-{teams}-{attempt}"
        match = app.create_match(request, rules, variant, teams, target, 0,
                                 [SeatSpec(p, f"{p}-{attempt}") for p in players])
        match = app.leave_match(match.id, "ann")
        rng, n = random.Random(attempt), 0
        while not match.finished:
            n += 1
            match = random_move(app, match, rng, f"{request}-{n}")
        if match.state.winner == side_of(0, teams):
            return match, players
    raise AssertionError(f"no match of {rules} {variant} in 40 where the stand-in won")


@pytest.mark.parametrize("setting", team_settings(), ids=lambda s: f"{s[0]}-{'teams' if s[3] else 'solo'}")
def test_a_player_who_leaves_loses_the_history_and_the_rating_even_when_the_stand_in_wins(either_store_env, setting):
    rules, variant, seats, teams = setting
    app = Matches(MatchApplication(env=either_store_env, seed_source=lambda: bytes(32)))
    view = View.for_env(either_store_env)
    try:
        projection = HistoryProjection(app.app, view)
        projection.start()
        match, players = won_by_the_leavers_stand_in(app, rules, variant, seats, teams)
        projection.catch_up()
        live = view.dump()
        rows = {p: view.matches_of(p, 1)[0] for p in players}
        ratings = {p: view.rating(rules, teams, p)[0] for p in players}
        rebuild(app.app, view)
        rebuilt = view.dump()
    finally:
        app.close()
    assert match.state.winner == 0  # the engine's result, and the record, stay what was played
    forfeits = {p for seat, p in enumerate(players) if side_of(seat, teams) == 0}  # ann, and her partner in teams
    stayed = [p for p in players if p not in forfeits]
    assert {rows[p].result for p in forfeits} == {"lost"}
    assert {rows[p].result for p in stayed} == {"won"}  # two sides: the side that stayed won
    assert rows["ann"].left and rows["ann"].left_seats == (0,) and not any(rows[p].left for p in players[1:])
    start = fresh().mu
    for player in players:
        r = ratings[player]
        assert r is not None and r.rating.matches == ratings["ann"].rating.matches  # every try is a match she left
        assert (r.rating.mu < start) if player in forfeits else (r.rating.mu > start), (player, r)
    assert ratings["ann"].rank == len(stayed) + 1  # below every side that stayed
    assert rebuilt == live  # a rebuild decides the same from the events alone
    assert {row[0] for row in live["ratings"]} == {rating_key(rules, teams)}
