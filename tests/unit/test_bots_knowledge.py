"""What a seat infers about hidden tiles in every family (services/bots/knowledge.py): All
Fives' four ends, each family's forced round-1 lead and none for leaders drawn by chance,
the spinner round rebuilt exactly, and uniform sampling."""

from __future__ import annotations

import collections
import itertools
import random

import pytest

from services.bots.arena import first_round
from services.bots.knowledge import (
    Group, Knowledge, led_by_rule, not_dealt_by_lead, round_from_view,
)
from services.bots.strategies import STRATEGIES
from services.rules.match import apply, new_match, start_round
from services.rules.moves import LEFT, RIGHT, legal_moves, play
from services.rules.rulesets import rule_set
from services.rules.spinner import SpinnerRound
from services.rules.state import Round
from services.rules.tiles import ALL_TILES, MATCHES, mask_of
from services.rules.view import player_view
from tests.support.families import params, sample_tables

from .positions import deal, tiles

GREEDY = STRATEGIES["greedy"]
SET = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]


def two_seats(first: str, second: str):
    """Two hands; every other tile is the boneyard, in the set's order."""
    held = set(tiles(first)) | set(tiles(second))
    return deal(first, second, boneyard=" ".join(x for x in SET if tiles(x)[0] not in held))


def after_forced_lead(rules, dealt, viewer: int):
    """The view of ``viewer`` right after round 1's (forced) lead of ``dealt``."""
    m = start_round(new_match(rules), dealt)
    (lead,) = legal_moves(m.round)
    return player_view(apply(m, lead), viewer)


def mask(text: str) -> int:
    return mask_of(tiles(text))


# --- forced round-1 leads ----------------------------------------------------------------------


def test_an_egyptian_lead_of_4_4_shows_that_no_hand_was_dealt_5_5_or_6_6():
    view = after_forced_lead(rule_set("egyptian", "draw-2"), two_seats("4-4 0-1 0-2 0-3 1-2 1-3 2-3",
                                                                      "0-4 0-5 1-4 1-5 2-4 2-5 3-4"), 1)
    assert not_dealt_by_lead(view) == mask("5-5 6-6")
    know = Knowledge.from_view(view)
    rng = random.Random(0)
    assert not any(know.sample_deal(rng)[0][0] & mask("5-5 6-6") for _ in range(200))


def test_a_gamezz_lead_of_5_5_shows_that_0_0_and_6_6_were_not_dealt():
    dealt = two_seats("1-1 0-1 0-2 0-3 1-2 1-3 2-3", "5-5 0-4 0-5 1-4 1-5 2-4 2-5")
    assert not_dealt_by_lead(after_forced_lead(rule_set("goat", "gamezz", None, 2), dealt, 0)) == mask("0-0 6-6")


def test_a_koza_lead_of_2_2_shows_that_1_1_was_not_dealt():
    dealt = two_seats("2-2 0-1 0-2 0-3 1-2 1-3 2-3", "0-0 6-6 0-4 0-5 1-4 1-5 2-4")
    assert not_dealt_by_lead(after_forced_lead(rule_set("goat", "koza", None, 2), dealt, 1)) == mask("1-1")


def test_a_classic_lead_of_the_heaviest_tile_shows_no_double_but_0_0_was_dealt():
    # Only 0-0 is dealt among the doubles, and it never leads: 2-5 (7, higher pip 5) does.
    dealt = two_seats("0-0 0-1 0-2 0-3 1-2 1-3 2-3", "0-4 0-5 1-4 1-5 2-4 2-5 3-4")
    not_dealt = not_dealt_by_lead(after_forced_lead(rule_set("classic", None, None, 2), dealt, 0))
    assert not_dealt & mask("1-1 2-2 3-3 4-4 5-5 6-6 1-6 5-6") == mask("1-1 2-2 3-3 4-4 5-5 6-6 1-6 5-6")
    assert not not_dealt & mask("0-0 2-5 3-4")


@pytest.mark.parametrize("table", params(t for t in sample_tables() if t.build().chance))
def test_a_lead_by_the_seat_drawn_by_chance_shows_nothing(table):
    rules = table.build()
    m = first_round(rules, 3, 0)
    m = apply(m, GREEDY(player_view(m, m.round.turn), random.Random(0)))
    view = player_view(m, m.round.turn)
    assert not led_by_rule(view) and not_dealt_by_lead(view) == 0


def test_a_lead_in_a_later_round_shows_nothing():
    rules = rule_set("egyptian", "block-3")
    m = first_round(rules, 1, 0)
    while m.round.outcome is None:
        m = apply(m, GREEDY(player_view(m, m.round.turn), random.Random(0)))
    m = start_round(m, first_round(rules, 1, 1).round.dealt)
    view = player_view(apply(m, GREEDY(player_view(m, m.round.turn), random.Random(0))), (m.round.turn + 1) % 3)
    assert view.round_number == 2 and not led_by_rule(view) and not_dealt_by_lead(view) == 0


FOUR_SEATS = deal("6-6 1-2 1-3 1-4 1-5 1-6 2-3", "1-1 0-1 0-2 0-3 0-4 0-5 2-4",
                  "0-0 0-6 2-5 2-6 3-4 3-5 3-6", "2-2 3-3 4-4 5-5 4-5 4-6 5-6")
FIVE_DOUBLES = deal("5-6 1-2 1-3 1-4 1-5 1-6 2-3", "1-1 0-1 0-2 0-3 0-4 0-5 2-4",
                    "0-0 0-6 2-5 2-6 3-4 3-5 3-6", "2-2 3-3 4-4 5-5 6-6 4-5 4-6")


def test_a_goat_round_after_a_redeal_is_still_led_by_the_round_one_rule():
    m = start_round(new_match(rule_set("goat", "koza", None, 4)), FIVE_DOUBLES)
    assert m.round.outcome == "redeal"
    m = start_round(m, FOUR_SEATS)
    view = player_view(apply(m, legal_moves(m.round)[0]), 0)
    assert view.round_number == 2 and led_by_rule(view)


# --- All Fives: four ends --------------------------------------------------------------------


def spinner_events(rules, key_seed: int, deals: int):
    """(match, events) at each turn of greedy rounds: events are (seat, kind, tiles fitting an
    open end then, action index, the tiles that fitted only up or down) for every pass and
    draw so far, from the engine's round."""
    for i in range(deals):
        m = first_round(rules, key_seed, i)
        events = []
        rng = random.Random(i)
        while m.round.outcome is None:
            rnd = m.round
            move = GREEDY(player_view(m, rnd.turn), rng)
            if move.kind != "play":
                two_ends = MATCHES[rnd.left] | MATCHES[rnd.right]
                events.append((rnd.turn, move.kind, rnd.fitting(), rnd.made, rnd.fitting() & ~two_ends))
            m = apply(m, move)
            if m.round.outcome is None:
                yield m, list(events)


def test_a_pass_in_all_fives_shows_the_passer_lacked_every_open_end_up_and_down_included():
    rules = rule_set("all-fives", None, False, 4)
    for m, events in spinner_events(rules, 5, 40):
        view = player_view(m, m.round.turn)
        unseen = ALL_TILES & ~mask_of(view.hand) & ~mask_of(a.tile for a in view.actions if a.kind == "play")
        passes = [e for e in events if e[1] == "pass" and e[4] & unseen and e[0] != view.seat]
        if passes and len(view.legal_moves) > 1:
            know = Knowledge.from_view(view)
            rng = random.Random(0)
            for _ in range(100):
                hands = know.sample_deal(rng)[0]
                assert not any(hands[seat] & fitting for seat, _, fitting, _, _ in passes)
            return
    pytest.fail("no pass with an unseen tile fitting only up or down was found")


def test_a_draw_in_all_fives_shows_the_drawer_lacked_every_open_end_but_what_it_drew_since():
    rules = rule_set("all-fives", None, False, 2)
    for m, events in spinner_events(rules, 6, 40):
        view = player_view(m, m.round.turn)
        unseen = ALL_TILES & ~mask_of(view.hand) & ~mask_of(a.tile for a in view.actions if a.kind == "play")
        draws = [e for e in events if e[1] == "draw" and e[4] & unseen and e[0] != view.seat]
        if draws and len(view.legal_moves) > 1:
            know = Knowledge.from_view(view)
            rng = random.Random(0)
            for _ in range(100):
                hands = know.sample_deal(rng)[0]
                for seat, _, fitting, index, _ in draws:
                    since = sum(1 for a in view.actions[index:] if a.seat == seat and a.kind == "draw")
                    assert (hands[seat] & fitting).bit_count() <= since
            return
    pytest.fail("no draw with an unseen tile fitting only up or down was found")


# --- the spinner round, rebuilt ----------------------------------------------------------------

ROUND_FIELDS = [n for n in Round.__slots__ + SpinnerRound.__slots__ if n not in ("dealt", "boneyard", "drawn")]


def test_round_from_view_rebuilds_the_engines_spinner_round_mid_round_exactly():
    rules = rule_set("all-fives", None, False, 2)
    for m, _ in spinner_events(rules, 8, 40):
        rnd = m.round
        if rnd.up < 0 or not rnd.play_points or rnd.drawn == 0:
            continue
        view = player_view(m, rnd.turn)
        rebuilt = round_from_view(view, list(rnd.hands), list(rnd.boneyard[rnd.drawn:]), rnd.set_aside)
        assert type(rebuilt) is SpinnerRound
        assert {n: getattr(rebuilt, n) for n in ROUND_FIELDS} == {n: getattr(rnd, n) for n in ROUND_FIELDS}
        # ... and steps on exactly as the engine's round does, to the round's end
        truth = rnd.copy()
        while truth.outcome is None:
            (move, *_) = legal_moves(truth)
            assert legal_moves(rebuilt) == legal_moves(truth)
            truth.step(move)
            rebuilt.step(move)
        assert {n: getattr(rebuilt, n) for n in ROUND_FIELDS} == {n: getattr(truth, n) for n in ROUND_FIELDS}
        return
    pytest.fail("no round with an open spinner, play points and a draw was found")


# --- uniform sampling ------------------------------------------------------------------------------


def test_sampled_deals_are_uniform_among_every_assignment_the_constraints_allow():
    unknown = [0, 3, 5, 9, 14, 20, 27]
    own = ALL_TILES & ~mask_of(unknown)
    groups = [Group(1, 2, ALL_TILES & ~mask_of([0, 3])), Group(1, 1, ALL_TILES), Group(2, 2, ALL_TILES & ~(1 << 27)),
              Group(-1, 2, ALL_TILES)]
    know = Knowledge(3, 0, own, 0, groups, True)
    allowed = set()
    for order in itertools.permutations(unknown):
        parts = [order[0:2], order[2:3], order[3:5], order[5:7]]
        if all(all(g.allowed >> t & 1 for t in part) for g, part in zip(groups, parts)):
            allowed.add(tuple(mask_of(part) for part in parts))
    assert know.total == len(allowed) == 228
    rng = random.Random(1)
    n = 45600
    seen = collections.Counter(tuple(know.sample(rng)) for _ in range(n))
    assert set(seen) == allowed
    expected = n / len(allowed)
    chi2 = sum((seen[a] - expected) ** 2 / expected for a in allowed)
    assert chi2 < 300  # 227 degrees of freedom: above 300 about once in 1,000 runs


# --- the greedy model of the other seats' play --------------------------------------------------


def draw2_after(seat1_first: str):
    """draw-2: seat 0 leads 6-6; seat 1 plays ``seat1_first`` (6-1 or 6-5) on the left;
    seat 0 plays 0-1 or nothing; seat 1 then plays its other 6 on the right."""
    rules = rule_set("egyptian", "draw-2")
    dealt = two_seats("6-6 0-1 0-2 0-3 0-4 1-2 1-3", "6-5 6-1 2-3 2-4 3-4 2-2 3-3")
    m = start_round(new_match(rules), dealt)
    m = apply(m, play(tiles("6-6")[0]))
    first, second = ("6-1", "6-5") if seat1_first == "6-1" else ("6-5", "6-1")
    m = apply(m, play(tiles(first)[0], LEFT))
    return m, second


def test_the_greedy_model_takes_a_seat_to_lack_what_greedy_would_have_played_first():
    m, _ = draw2_after("6-5")  # the greedy play: seat 1 may still hold lighter 6s
    know = Knowledge.assuming_greedy(player_view(m, 0), (1,))
    rng = random.Random(0)
    assert any(know.sample_deal(rng)[0][1] & mask("6-1") for _ in range(200))
    m, _ = draw2_after("6-1")  # greedy would have played 6-5, 6-4, 6-3 or 6-2 first
    know = Knowledge.assuming_greedy(player_view(m, 0), (1,))
    assert not any(know.sample_deal(rng)[0][1] & mask("6-2 6-3 6-4") for _ in range(200))


def test_a_seat_that_played_a_tile_greedy_play_says_it_lacked_is_left_out_of_the_model():
    m, second = draw2_after("6-1")
    m = apply(m, play(tiles("0-1")[0], LEFT))
    m = apply(m, play(tiles(second)[0], RIGHT))  # 6-5, which it held when it played 6-1
    view = player_view(m, 0)
    assert Knowledge.assuming_greedy(view, (1,)) is None
    assert Knowledge.from_view(view).total > 0
