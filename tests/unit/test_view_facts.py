"""What a view carries so that a client needs no engine (docs/design.md, "What a view
tells"): what each All Fives end counts (``spinner.end_counts``), what each legal play would
score (``spinner.points_of_play``) and who leads the round and why (``match.round_lead``),
each from the engine's own rules; the terminal client once imported the engine for them."""

from __future__ import annotations

import random

import pytest

from services.rules import fairness
from services.rules.match import (
    AFTER_A_TIE, BY_CHANCE, ROUND_ONE_RULE, TOOK_THE_LAST_ROUND, apply, new_match, round_lead, start_round,
)
from services.rules.moves import DOWN, LEFT, RIGHT, UP, legal_moves
from services.rules.spinner import end_counts, points_of_play
from services.rules.tiles import parse_tile as t

from tests.support.families import Table, params, sample_tables, usual_tables

from .test_rules_all_fives import SOLO2, line

TABLES = params(sample_tables())


def played(table: Table, seed: int, rounds: int = 4):
    """(state before each move, the move) of random legal play over ``rounds`` rounds."""
    rules = table.build()
    seats = rules.seats
    rng = random.Random(seed)
    server = rng.randbytes(32)
    state = new_match(rules, min(rules.targets))
    out = []
    for index in range(rounds * 3):
        if state.over or len([r for r in state.results if r.reason != "redeal"]) >= rounds:
            break
        state = start_round(state, fairness.fair_deal(rules, server, [f"s{i}" for i in range(seats)], index))
        while state.round.outcome is None:
            move = rng.choice(legal_moves(state.round))
            out.append((state, move))
            state = apply(state, move)
    return out


# ---- what each end counts, what each play would score ----------------------------------------


def test_the_lone_first_tile_counts_its_two_numbers_once_so_its_ends_add_up_to_the_total():
    rnd = line("5-5", hands=("1-2", "5-3"))
    assert end_counts(rnd) == ((LEFT, 5), (RIGHT, 5)) and rnd.total == 10
    assert end_counts(line("6-4", hands=("1-2", "6-3"))) == ((LEFT, 4), (RIGHT, 6))


def test_a_double_at_an_end_counts_both_halves_and_a_spinners_open_sides_count_nothing_until_laid_on():
    rnd = line("5-5", "5-3 left", "5-1 right", hands=("3-2", "0-1"))
    assert dict(end_counts(rnd)) == {LEFT: 3, RIGHT: 1, UP: 0, DOWN: 0}
    closed = line("3-3", "3-5 left", hands=("5-2", "0-1"))
    assert closed.up < 0 and dict(end_counts(closed)) == {LEFT: 5, RIGHT: 6}


@pytest.mark.parametrize("table", TABLES)
def test_the_ends_counts_add_up_to_the_ends_total_in_every_position(table):
    for state, _ in played(table, 11):
        counts = end_counts(state.round)
        assert sum(c for _, c in counts) == state.round.total
        assert bool(counts) == (state.rules.four_ends and state.round.left >= 0)


@pytest.mark.parametrize("table", TABLES)
def test_what_each_legal_play_would_score_is_what_playing_it_scores(table):
    for state, _ in played(table, 12):
        for move in legal_moves(state.round):
            after = apply(state, move)
            scored = sum(after.scores) - sum(state.scores) if after.round.outcome is None else \
                sum(p for _, _, p in after.round.play_points) - sum(p for _, _, p in state.round.play_points)
            assert points_of_play(state.round, move) == scored, (table.id, move)


def test_a_play_that_makes_the_ends_a_multiple_of_five_would_score_it_and_another_nothing():
    rnd = line("5-5", hands=("1-2", "5-0 5-1"))  # a lone 5-5 counts 10; a tile laid on it leaves it 10 on its side
    plays = {(m.tile, m.end): points_of_play(rnd, m) for m in legal_moves(rnd)}
    assert {points for (tile, _), points in plays.items() if tile == t("5-0")} == {10}
    assert {points for (tile, _), points in plays.items() if tile == t("5-1")} == {0}


@pytest.mark.parametrize("table", params(usual_tables(lambda rules: not rules.four_ends)))
def test_no_play_scores_in_a_family_that_counts_no_ends(table):
    state, _ = played(table, 3)[5]
    assert all(points_of_play(state.round, m) == 0 for m in legal_moves(state.round))
    assert end_counts(state.round) == ()


# ---- who leads and why --------------------------------------------------------------------------


@pytest.mark.parametrize("table", TABLES)
def test_round_one_is_led_by_its_rule_or_by_chance(table):
    state, _ = played(table, 21)[0]
    seat, why = round_lead(state)
    chance = state.rules.chance
    assert why == (BY_CHANCE if chance else ROUND_ONE_RULE)
    assert seat == state.round.leader == state.round.turn
    if not chance:
        assert seat == state.rules.kind.opening_leader(state.rules, state.round.dealt)[0]


@pytest.mark.parametrize("table", TABLES)
def test_a_later_round_is_led_by_the_last_rounds_taker_or_by_round_ones_rule_after_a_tie(table):
    seen = set()
    for seed in range(30):
        for state, _ in played(table, seed):
            if not state.round.actions() and any(r.reason != "redeal" for r in state.results):
                seat, why = round_lead(state)
                last = [r for r in state.results if r.reason != "redeal"][-1]
                assert why == (AFTER_A_TIE if last.winner is None else TOOK_THE_LAST_ROUND), table.id
                if why == TOOK_THE_LAST_ROUND:
                    assert state.rules.side_of(seat) == last.winner
                seen.add(why)
        if TOOK_THE_LAST_ROUND in seen:
            break
    assert TOOK_THE_LAST_ROUND in seen


def test_no_round_in_play_has_no_lead():
    assert round_lead(new_match(SOLO2, 100)) is None
