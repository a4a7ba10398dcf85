"""The model of play that weighs sampled deals (services/bots/play_model.py): a probability
over the plays a hand could make, read from the plays a view shows."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.bots import arena as A
from services.bots.play_model import (
    FEATURES, OTHERS, PARTNER, candidates, choice_probability, likelihood, seen_choices,
)
from services.bots.strategies import STRATEGIES
from services.match.rules.match import apply
from services.match.rules.tiles import mask_of, tile
from services.match.rules.view import player_view

weights = st.tuples(*[st.floats(-3, 3) for _ in FEATURES])


def _position(rng: random.Random):
    tiles = rng.sample(range(28), 10)
    hand = sum(1 << t for t in tiles[:6])
    seen = sum(1 << t for t in tiles[6:])
    if rng.random() < 0.1:
        return hand, seen, -1, -1
    left = rng.randrange(7)
    right = left if rng.random() < 0.2 else rng.randrange(7)
    return hand, seen, left, right


@settings(max_examples=200)
@given(st.integers(0, 2**32), weights)
def test_the_probabilities_of_a_hands_plays_add_up_to_one(seed, w):
    hand, seen, left, right = _position(random.Random(seed))
    options = candidates(hand, left, right)
    if not options:
        return
    total = sum(choice_probability(hand, seen, left, right, t, c, w) for t, c, _ in options)
    assert abs(total - 1.0) < 1e-9


@settings(max_examples=200)
@given(st.integers(0, 2**32), weights, st.floats(0, 1))
def test_the_fast_likelihood_is_the_models_probability_mixed_with_random_play(seed, w, eps):
    hand, seen, left, right = _position(random.Random(seed))
    options = candidates(hand, left, right)
    if not options:
        return
    t, c, _ = random.Random(seed).choice(options)
    expected = (1 - eps) * choice_probability(hand, seen, left, right, t, c, w) + eps / len(options)
    assert abs(likelihood(hand, seen, left, right, t, c, w, eps) - expected) < 1e-9


def test_a_tile_fitting_two_equal_ends_is_one_play():
    hand = mask_of([tile(1, 3), tile(3, 5), tile(3, 3), tile(2, 4)])
    assert sorted(t for t, _, _ in candidates(hand, 3, 3)) == sorted([tile(1, 3), tile(3, 5), tile(3, 3)])
    assert len(candidates(hand, 3, 5)) == 4  # 3-5 fits either end, each a play of its own


def test_a_hand_that_could_not_have_made_the_play_has_only_the_random_share():
    six_six, blank = tile(6, 6), tile(0, 0)
    assert likelihood(1 << six_six, 0, 0, 0, blank, 0, OTHERS, 0.3) == 0.0
    assert choice_probability((1 << six_six) | (1 << blank), 0, 0, 0, blank, 0, PARTNER) == 1.0


def test_seen_choices_are_the_other_seats_free_plays_with_the_ends_they_faced():
    rules = A.arena_rules("egyptian", "block-4", True, None)
    m = A.first_round(rules, 3, 0)
    greedy = STRATEGIES["greedy"]
    rng = random.Random(0)
    faced = []
    while m.round is not None and m.round.outcome is None and len(faced) < 12:
        seat = m.round.turn
        view = player_view(m, seat)
        move = greedy(view, rng)
        if move.kind == "play":
            faced.append((seat, move.tile, view.left_end, view.right_end))
        m = apply(m, move, seat)
    view = player_view(m, 0)
    choices = seen_choices(view)
    assert choices, "some other seat made a free play"
    by_tile = {t: (s, left, right) for s, t, left, right in faced}
    for seat, t, covered, left, right, on_line, later in choices:
        assert seat != 0
        assert by_tile[t] == (seat, left, right)
        assert later >> t & 1, "a seat's later plays include this one"
        assert not on_line >> t & 1
        assert covered in (left, right) or covered == left == right == -1
    assert faced[0][1] not in {t for _, t, *_ in choices}, "round 1's lead is forced, so it says nothing"
