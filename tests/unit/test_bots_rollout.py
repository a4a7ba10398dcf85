"""The strong bot's rollouts (services/bots/strong.py) are ``turns.step`` held in local
variables: fed the same random numbers, they end every round exactly where the same policy
played move by move with ``legal_moves`` and ``step`` does, in every family."""

from __future__ import annotations

import random

import pytest

from services.bots.arena import deal_key, first_round
from services.bots.knowledge import play_points_of
from services.bots.strong import rollout
from services.rules.autoplay import timeout_order
from services.rules.moves import legal_moves
from services.rules.turns import step
from tests.support.families import params, sample_tables
EPS = 0.3


def reference_rollout(rnd, rand, eps: float) -> None:
    """The rollout policy, move by move: with probability ``eps`` (when more than one tile
    fits) the k-th fitting tile for k = int(rand() * tiles) on the first end it fits; else
    the greedy play (All Fives: most points now, then §1.6's order; elsewhere §1.6's order)."""
    while rnd.outcome is None:
        moves = legal_moves(rnd)
        plays = [m for m in moves if m.kind == "play"]
        if not plays:
            step(rnd, moves[0])
            continue
        fitting = sorted({m.tile for m in plays})
        if len(fitting) > 1 and rand() < eps:
            tile = fitting[int(rand() * len(fitting))]
            move = min((m for m in plays if m.tile == tile), key=lambda m: m.end)
        elif rnd.four_ends:
            move = max(plays, key=lambda m: (play_points_of(rnd, m.tile, m.end), timeout_order(m)))
        else:
            move = max(plays, key=timeout_order)
        step(rnd, move)


def positions(rules, count: int):
    """Rounds in play at every few turns of ``count`` deals played by the reference policy."""
    for i in range(count):
        m = first_round(rules, 17, i)
        rnd = m.round.copy()
        rng = random.Random(i)
        turn = 0
        while rnd.outcome is None:
            if turn % 4 == 1:
                yield rnd.copy()
            moves = legal_moves(rnd)
            step(rnd, moves[rng.randrange(len(moves))])
            turn += 1


FIELDS = ("hands", "held", "drawn", "left", "right", "turn", "outcome", "last_seat")
SPINNER_FIELDS = ("up", "down", "spinner", "pending", "values", "total", "play_points", "made")


@pytest.mark.parametrize("table", params(sample_tables()))
def test_the_fast_rollout_ends_every_round_where_the_policy_played_with_step_does(table):
    rules = table.build()
    checked = 0
    for start in positions(rules, 6):
        for seed in range(3):
            fast, slow = start.copy(), start.copy()
            rollout(fast, random.Random(seed).random, EPS)
            reference_rollout(slow, random.Random(seed).random, EPS)
            names = FIELDS + (SPINNER_FIELDS if rules.four_ends else ())
            assert {n: getattr(fast, n) for n in names} == {n: getattr(slow, n) for n in names}
            checked += 1
    assert checked > 20
