"""The model of play that weighs sampled deals (services/bots/play_model.py): a probability
over the plays a hand could make, read from the plays a view shows."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.bots import arena as A
from services.bots.play_model import (
    FEATURES, OTHERS, PARTNER, Seen, candidates, choice_probability, likelihood, seen_choices, seen_plays,
)
from services.bots.strategies import STRATEGIES
from services.rules.match import apply
from services.rules.moves import LEFT, RIGHT
from services.rules.tiles import mask_of, tile
from services.rules.view import player_view

weights = st.tuples(*[st.floats(-3, 3) for _ in FEATURES])


def _position(rng: random.Random) -> tuple[int, Seen]:
    """A hand and the public facts of a play from it (its tile and end chosen later)."""
    tiles = rng.sample(range(28), 10)
    hand = sum(1 << t for t in tiles[:6])
    on_line = sum(1 << t for t in tiles[6:])
    left = right = -1
    if rng.random() > 0.1:
        left = rng.randrange(7)
        right = left if rng.random() < 0.2 else rng.randrange(7)
    return hand, Seen(1, -1, -1, left, right, on_line, rng.randrange(128), rng.randrange(128))


@settings(max_examples=200)
@given(st.integers(0, 2**32), weights)
def test_the_probabilities_of_a_hands_plays_add_up_to_one(seed, w):
    hand, s = _position(random.Random(seed))
    options = candidates(hand, s.left, s.right)
    total = sum(choice_probability(hand, s._replace(tile=t, covered=c), w) for t, c, _ in options)
    assert not options or abs(total - 1.0) < 1e-9


@settings(max_examples=200)
@given(st.integers(0, 2**32), weights, st.floats(0, 1))
def test_the_fast_likelihood_is_the_models_probability_mixed_with_random_play(seed, w, eps):
    hand, s = _position(random.Random(seed))
    options = candidates(hand, s.left, s.right)
    if not options:
        return
    t, c, _ = random.Random(seed).choice(options)
    s = s._replace(tile=t, covered=c)
    expected = (1 - eps) * choice_probability(hand, s, w) + eps / len(options)
    assert abs(likelihood(hand, s, w, eps) - expected) < 1e-9


def test_a_tile_fitting_two_equal_ends_is_one_play():
    hand = mask_of([tile(1, 3), tile(3, 5), tile(3, 3), tile(2, 4)])
    assert sorted(t for t, _, _ in candidates(hand, 3, 3)) == sorted([tile(1, 3), tile(3, 5), tile(3, 3)])
    assert len(candidates(hand, 3, 5)) == 4  # 3-5 fits either end, each a play of its own


def test_a_hand_that_could_not_have_made_the_play_has_only_the_random_share():
    six_six, blank = tile(6, 6), tile(0, 0)
    s = Seen(1, blank, 0, 0, 0, 0, 0, 0)
    assert likelihood(1 << six_six, s, OTHERS, 0.3) == 0.0
    assert choice_probability((1 << six_six) | (1 << blank), s, PARTNER) == 1.0


def test_a_pass_shows_the_passers_void_to_the_seat_before_it_until_it_draws():
    rules = A.arena_rules("egyptian", "draw-2", False, None)
    Act = type("Act", (), {})

    def act(seat, kind, t=None, end=None):
        a = Act()
        a.seat, a.kind, a.tile, a.end = seat, kind, t, end
        return a

    actions = [act(0, "play", tile(2, 5)), act(1, "pass"), act(0, "play", tile(5, 6), RIGHT),
               act(1, "draw"), act(0, "play", tile(1, 2), LEFT)]
    plays = seen_plays(actions, rules.seats, lambda s: -1)
    assert [p.tile for p, _ in plays] == [tile(2, 5), tile(5, 6), tile(1, 2)]
    assert plays[1][0].next_voids == (1 << 2) | (1 << 5) and plays[1][0].covered == 5
    assert plays[2][0].next_voids == 0, "seat 1 drew since its pass"
    assert plays[0][1] == mask_of([tile(2, 5), tile(5, 6), tile(1, 2)])


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
    by_tile = {t: (s, -1 if left is None else left, -1 if right is None else right) for s, t, left, right in faced}
    for seen, later in choices:
        assert seen.seat != 0
        assert by_tile[seen.tile] == (seen.seat, seen.left, seen.right)
        assert later >> seen.tile & 1, "a seat's later plays include this one"
        assert not seen.on_line >> seen.tile & 1
        assert seen.covered in (seen.left, seen.right)
    assert faced[0][1] not in {seen.tile for seen, _ in choices}, "round 1's lead is forced, so it says nothing"

