"""Commit–reveal deals (services/rules/fairness.py)."""

import hashlib
from collections import Counter

from services.rules.fairness import commitment, fair_deal, round_key, shuffled_tiles
from services.rules.match import check_deal
from services.rules.rulesets import egyptian

SEED = bytes(range(32))


def test_the_commitment_is_the_sha256_of_the_server_seed():
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_a_deal_is_a_pure_function_of_the_seeds_and_the_round():
    rules = egyptian("draw-2")
    assert fair_deal(rules, SEED, ["a", "b"], 3) == fair_deal(rules, SEED, ["a", "b"], 3)


def test_each_round_gets_its_own_deal():
    rules = egyptian("block-4")
    assert fair_deal(rules, SEED, ["a"], 0) != fair_deal(rules, SEED, ["a"], 1)


def test_any_players_seed_changes_the_deal():
    rules = egyptian("block-4")
    assert fair_deal(rules, SEED, ["a", "b", "c", "d"], 0) != fair_deal(rules, SEED, ["a", "b", "c", "e"], 0)


def test_every_variant_deals_its_shape_from_the_shuffle():
    for variant in ("draw-2", "block-3", "block-4"):
        rules = egyptian(variant)
        for r in range(20):
            check_deal(rules, fair_deal(rules, SEED, [], r))


def test_the_shuffle_is_a_permutation_of_the_28_tiles():
    assert sorted(shuffled_tiles(b"key")) == list(range(28))


def test_the_shuffle_puts_every_tile_first_about_equally_often():
    firsts = Counter(shuffled_tiles(round_key(SEED, [], r))[0] for r in range(5600))
    # 200 expected per tile; a fair shuffle stays well within these bounds.
    assert len(firsts) == 28 and min(firsts.values()) > 130 and max(firsts.values()) < 280


def test_the_documented_algorithm_is_what_runs():
    """A second, literal reading of the module docstring must give the same order."""
    import hmac
    import json

    message = b"domino-deal/1\x00" + json.dumps([2, ["x"]], separators=(",", ":")).encode()
    key = hmac.new(SEED, message, "sha256").digest()
    attempt = 0
    while True:
        stream = b"".join(hashlib.sha256(key + k.to_bytes(4, "big")).digest() for k in (2 * attempt, 2 * attempt + 1))
        sort_keys = [int.from_bytes(stream[2 * t : 2 * t + 2], "big") for t in range(28)]
        if len(set(sort_keys)) == 28:
            break
        attempt += 1
    assert shuffled_tiles(round_key(SEED, ["x"], 2)) == sorted(range(28), key=lambda t: sort_keys[t])


def test_a_deal_whose_sort_keys_collide_moves_on_to_the_next_attempt():
    collided = next(r for r in range(2000) if _collides(round_key(SEED, [], r)))
    assert sorted(shuffled_tiles(round_key(SEED, [], collided))) == list(range(28))


def _collides(key: bytes) -> bool:
    stream = hashlib.sha256(key + (0).to_bytes(4, "big")).digest() + hashlib.sha256(key + (1).to_bytes(4, "big")).digest()
    return len({stream[2 * t : 2 * t + 2] for t in range(28)}) < 28


# --- the seat drawn by chance (All Fives and Sports) -----------------------------------------

from services.rules.fairness import chance_leader, deal as deal_of_key  # noqa: E402
from services.rules.rulesets import rule_set  # noqa: E402
from tests.support.families import every_table, usual_tables  # noqa: E402


def test_families_that_draw_a_leader_deal_one_with_every_round():
    drawn = [rules for rules in (t.build() for t in every_table()) if rules.chance]
    assert drawn
    for rules in drawn:
        assert all(0 <= fair_deal(rules, SEED, ["a"], r).chance < rules.seats for r in range(50))


def test_families_whose_leader_the_rules_name_draw_no_leader():
    named = [rules for rules in (t.build() for t in usual_tables()) if not rules.chance]
    assert named
    for rules in named:
        assert fair_deal(rules, SEED, ["a"], 0).chance == -1


def test_the_chance_leader_is_re_derived_from_the_same_seeds():
    rules = rule_set("sports")
    assert fair_deal(rules, SEED, ["a", "b", "c", "d"], 4).chance == chance_leader(round_key(SEED, ["a", "b", "c", "d"], 4), 4)


def test_drawing_a_leader_does_not_change_the_deal_of_the_tiles():
    four_solo, sports = rule_set("all-fives", seats=4), rule_set("sports")
    for r in range(10):
        a, b = fair_deal(four_solo, SEED, ["x"], r), fair_deal(sports, SEED, ["x"], r)
        assert a.hands == b.hands and a.chance == b.chance


def test_the_chance_leader_is_each_seat_about_equally_often():
    for seats in (2, 3, 4):
        counts = Counter(chance_leader(n.to_bytes(4, "big"), seats) for n in range(6000))
        assert set(counts) == set(range(seats))
        assert all(abs(c - 6000 / seats) < 6 * (6000 / seats) ** 0.5 for c in counts.values()), counts


def test_a_refused_value_moves_on_to_the_leader_blocks():
    """With 3 seats a value of 2**32 - 1 is refused (it would favour seat 0); the next one is read."""
    stream = bytes(56) + (2**32 - 1).to_bytes(4, "big") + (7).to_bytes(4, "big")
    assert chance_leader(b"key", 3, stream) == 7 % 3
    both_refused = bytes(56) + (2**32 - 1).to_bytes(4, "big") * 2
    assert chance_leader(b"key", 3, both_refused) in (0, 1, 2)


def test_a_deal_from_a_raw_key_draws_its_leader_from_that_key():
    rules = rule_set("all-fives", seats=3)
    key = b"\x00" * 8
    assert deal_of_key(rules, key).chance == chance_leader(key, 3)


# --- the fast deal against a plain reading of the algorithm ---------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from services.rules.state import Deal  # noqa: E402

EVERY_SHAPE = [t.build() for t in every_table()]


def _reference_order(key: bytes) -> tuple[list[int], bytes]:
    """The shuffled order and the accepted attempt's stream, the module docstring read literally."""
    attempt = 0
    while True:
        stream = b"".join(hashlib.sha256(key + k.to_bytes(4, "big")).digest() for k in (2 * attempt, 2 * attempt + 1))
        sort_keys = [int.from_bytes(stream[2 * t : 2 * t + 2], "big") for t in range(28)]
        if len(set(sort_keys)) == 28:
            return sorted(range(28), key=lambda t: sort_keys[t]), stream
        attempt += 1


def _reference_deal(rules, key: bytes) -> Deal:
    """The deal of the module docstring's algorithm, with nothing made fast."""
    order, stream = _reference_order(key)
    size = rules.hand_size
    hands = tuple(sum(1 << t for t in order[s * size : (s + 1) * size]) for s in range(rules.seats))
    rest = order[rules.seats * size :]
    boneyard, set_aside = (tuple(rest), -1) if rules.draws else ((), rest[0] if rest else -1)
    chance = -1
    if rules.chance:
        limit = 2**32 - 2**32 % rules.seats
        values = [int.from_bytes(stream[56:60], "big"), int.from_bytes(stream[60:64], "big")]
        k = 0
        while not any(v < limit for v in values):
            block = hashlib.sha256(key + b"domino-leader/1" + k.to_bytes(4, "big")).digest()
            values += [int.from_bytes(block[4 * i : 4 * i + 4], "big") for i in range(8)]
            k += 1
        chance = next(v for v in values if v < limit) % rules.seats
    return Deal(hands, boneyard, set_aside, chance)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=0, max_size=64))
def test_the_fast_deal_is_the_documented_algorithm_for_any_key_and_seat_count(key):
    for rules in EVERY_SHAPE:
        dealt = deal_of_key(rules, key)
        assert dealt == _reference_deal(rules, key) and type(dealt) is Deal
    assert shuffled_tiles(key) == _reference_order(key)[0]


def test_the_fast_deal_is_the_documented_algorithm_where_sort_keys_collide():
    collided = [key for key in (n.to_bytes(4, "big") for n in range(3000)) if _collides(key)]
    assert len(collided) > 5
    for key in collided:
        assert shuffled_tiles(key) == _reference_order(key)[0]
        for rules in EVERY_SHAPE:
            assert deal_of_key(rules, key) == _reference_deal(rules, key)
