"""The fast random playout ends every round of every family exactly where legal_moves + step do."""

import random

from hypothesis import given, settings, strategies as st

from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from services.rules.moves import legal_moves
from services.rules.playout import random_playout
from services.rules.turns import step
from tests.support.families import every_table


def state(rnd):
    spinner = (rnd.up, rnd.down, rnd.spinner, rnd.pending, rnd.values, rnd.total, rnd.play_points, rnd.made) \
        if rnd.four_ends else ()
    return (list(rnd.hands), rnd.held, rnd.drawn, rnd.left, rnd.right, rnd.turn, rnd.outcome, rnd.actions(), spinner)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(table=st.sampled_from(every_table()), seed=st.integers(0, 2**32), moves_first=st.integers(0, 12))
def test_random_playout_matches_legal_moves_and_step(table, seed, moves_first):
    rules = table.build()
    rnd = start_round(new_match(rules), deal(rules, seed.to_bytes(8, "big"))).round
    warm = random.Random(seed)
    for _ in range(moves_first):  # start from the opening or from mid-round
        if rnd.outcome is None:
            step(rnd, legal_moves(rnd)[int(warm.random() * len(legal_moves(rnd)))])
    slow, fast = rnd.copy(), rnd.copy()
    a, b = random.Random(seed).random, random.Random(seed).random
    while slow.outcome is None:
        moves = legal_moves(slow)
        step(slow, moves[int(a() * len(moves))])
    random_playout(fast, b)
    assert state(fast) == state(slow)


def test_the_compiled_step_and_playout_are_built_from_the_current_source():
    """mypyc's extensions shadow step.py and playout.py; an edit without `make install` must not go unnoticed."""
    from pathlib import Path

    import services.rules.playout as playout
    import services.rules.step as one_step

    for module in (one_step, playout):
        compiled = Path(module.__file__)
        if compiled.suffix == ".so":
            source = compiled.with_name(compiled.name.split(".")[0] + ".py")
            assert compiled.stat().st_mtime >= source.stat().st_mtime, f"{source.name} changed: run `make install`"
