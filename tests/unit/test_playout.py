"""The fast random playout ends every round exactly where legal_moves + step do."""

import random

from hypothesis import given, settings, strategies as st

from services.match.rules.fairness import deal
from services.match.rules.match import new_match, start_round
from services.match.rules.moves import legal_moves
from services.match.rules.playout import random_playout
from services.match.rules.rulesets import egyptian
from services.match.rules.turns import step

VARIANTS = [("draw-2", None), ("block-3", None), ("block-4", True), ("block-4", False)]


def state(rnd):
    return (list(rnd.hands), rnd.held, rnd.drawn, rnd.left, rnd.right, rnd.turn, rnd.outcome, rnd.actions())


@settings(max_examples=300, derandomize=True, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), moves_first=st.integers(0, 12))
def test_random_playout_matches_legal_moves_and_step(variant, seed, moves_first):
    rules = egyptian(*variant)
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


def test_a_compiled_playout_is_built_from_the_current_source():
    """mypyc's extension shadows playout.py; an edit without `make install` must not go unnoticed."""
    from pathlib import Path

    import services.match.rules.playout as playout

    compiled = Path(playout.__file__)
    if compiled.suffix == ".so":
        source = compiled.with_name("playout.py")
        assert compiled.stat().st_mtime >= source.stat().st_mtime, "playout.py changed: run `make install`"
