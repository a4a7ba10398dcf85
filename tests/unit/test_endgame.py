"""The endgame solver (services/rules/solve.py) finds the value a plain minimax over
``legal_moves`` and ``turns.step`` finds, in every family, and the strong bot uses it."""

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from services.rules.moves import legal_moves
from services.rules.solve import Solver
from services.rules.tiles import PIPS, tiles_in
from services.rules.turns import step
from tests.support.families import Table, params, sample_tables, usual_tables


def outcome_value(t) -> float:
    """Any function of how the round ended that tells positions apart: who ended it, how,
    every seat's pips left and the points scored in play. (A Goat deal thrown in before any
    move has no last seat: it counts as seat 0's.)"""
    pips = [sum(PIPS[x] for x in tiles_in(h)) for h in t.hands]
    v = float(sum((s + 1) * p for s, p in enumerate(pips)) % 23) - 11.0
    v += 3.0 * (t.history[1] if t.history else 0) + (7.0 if t.outcome == "domino" else 0.0)
    for _, side, points in t.play_points:
        v += points * (1 if side == 0 else -1) / 5
    return v


def minimax(rnd, value, ours: int) -> float:
    if rnd.outcome is not None:
        return value(rnd)
    vals = []
    for m in legal_moves(rnd):
        r = rnd.copy()
        step(r, m)
        vals.append(minimax(r, value, ours))
    return max(vals) if ours >> rnd.turn & 1 else min(vals)


def endgame(table: Table, seed: int, left: int):
    """A round at ``table`` played at random until at most ``left`` tiles are in hands and boneyard."""
    rules = table.build()
    rnd = start_round(new_match(rules), deal(rules, seed.to_bytes(8, "big"))).round
    rand = random.Random(seed).random
    while rnd.outcome is None and sum(h.bit_count() for h in rnd.hands) + len(rnd.boneyard) - rnd.drawn > left:
        moves = legal_moves(rnd)
        step(rnd, moves[int(rand() * len(moves))])
    return rules, rnd


@settings(max_examples=300, derandomize=True, deadline=None)
@given(table=st.sampled_from(sample_tables()), seed=st.integers(0, 2**32), left=st.integers(2, 9),
       ours=st.integers(0, 15))
def test_the_solver_finds_the_minimax_value_of_every_small_position(table, seed, left, ours):
    _, rnd = endgame(table, seed, left)
    before = (list(rnd.hands), rnd.left, rnd.right, rnd.turn, rnd.outcome, rnd.actions())
    assert Solver(outcome_value, ours).solve(rnd) == minimax(rnd, outcome_value, ours)
    assert (list(rnd.hands), rnd.left, rnd.right, rnd.turn, rnd.outcome, rnd.actions()) == before


@settings(max_examples=100, derandomize=True, deadline=None)
@given(table=st.sampled_from(sample_tables()), seed=st.integers(0, 2**32), left=st.integers(2, 8),
       lo=st.integers(-12, 12), width=st.integers(1, 12))
def test_a_window_bounds_the_value_on_the_side_it_falls(table, seed, left, lo, width):
    _, rnd = endgame(table, seed, left)
    exact = minimax(rnd, outcome_value, 5)
    got = Solver(outcome_value, 5).solve(rnd, lo, lo + width)
    if exact <= lo:
        assert got <= lo
    elif exact >= lo + width:
        assert got >= lo + width
    else:
        assert got == exact


def test_the_compiled_solver_is_built_from_the_current_source():
    """mypyc's extension shadows solve.py; an edit without `make install` must not go unnoticed."""
    import services.rules.solve as solve

    compiled = Path(solve.__file__)
    if compiled.suffix == ".so":
        source = compiled.with_name(compiled.name.split(".")[0] + ".py")
        assert compiled.stat().st_mtime >= source.stat().st_mtime, "solve.py changed: run `make install`"


def test_a_solver_past_its_limit_stops_and_says_so():
    _, rnd = endgame(Table("egyptian", "block-4", 4, True), 3, 16)
    free = Solver(outcome_value, 5)
    free.solve(rnd)
    assert not free.stopped and free.nodes > 10
    capped = Solver(outcome_value, 5, free.nodes // 2)
    capped.solve(rnd)
    assert capped.stopped


@pytest.mark.parametrize("table", params(usual_tables(lambda rules: rules.sides == 2)))  # the only games it solves
def test_strong_shown_the_true_deal_in_the_endgame_plays_a_move_perfect_play_values_most(table, monkeypatch):
    """With every sampled deal the true one, the endgame search is a minimax of the truth."""
    from services.bots.strong import StrongBot, round_value
    from services.rules.view import player_view

    rules = table.build()
    bot = StrongBot(exact_tiles=10, exact_samples=2, deadline=None)
    cfg = bot.config_for(rules)
    checked = 0
    for seed in range(100):
        m = start_round(new_match(rules), deal(rules, seed.to_bytes(8, "big")))
        rnd = m.round
        rand = random.Random(seed).random
        while rnd.outcome is None and sum(h.bit_count() for h in rnd.hands) + len(rnd.boneyard) - rnd.drawn > 10:
            moves = legal_moves(rnd)
            step(rnd, moves[int(rand() * len(moves))])
        if rnd.outcome is not None or len(legal_moves(rnd)) < 2:
            continue
        view = player_view(m._replace(round=rnd), rnd.turn)
        truth = (list(rnd.hands), list(rnd.boneyard[rnd.drawn:]), rnd.set_aside)
        monkeypatch.setattr(StrongBot, "determinizations", lambda self, *a, **k: [truth, truth])
        value = round_value(view, cfg)
        ours = sum(1 << s for s in range(rules.seats) if rules.side_of(s) == rules.side_of(view.seat))
        worth = {}
        for mv in view.legal_moves:
            r = rnd.copy()
            step(r, mv)
            worth[mv] = minimax(r, value, ours)
        assert worth[bot(view, random.Random(0))] == max(worth.values())
        checked += 1
    assert checked >= 5
