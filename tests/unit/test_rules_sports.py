"""docs/rules.md §5: Sports domino (with §1.3's turn and §1.6's timeout, which it refers to)."""

import pytest

from services.rules.autoplay import timeout_move
from services.rules.errors import BadDeal, BadOptions, CannotDraw
from services.rules.fairness import fair_deal
from services.rules.families.sports import move_seconds
from services.rules.match import apply, new_match, start_round
from services.rules.moves import DRAW, LEFT, PASS, RIGHT, legal_moves, play
from services.rules.rulesets import rule_set
from services.rules.tiles import parse_tile as t
from services.rules.turns import take_turn

from .positions import deal, position

SPORTS = rule_set("sports")
SEED = bytes(range(32))

# A full deal; seat 2 holds 6-6 and seat 0 holds 0-0. The seat drawn by chance is set per test.
DEAL = deal(
    "0-0 0-1 0-2 0-3 0-4 0-5 0-6",
    "1-1 1-2 1-3 1-4 1-5 1-6 2-2",
    "6-6 2-3 2-4 2-5 2-6 3-3 3-4",
    "3-5 3-6 4-4 4-5 4-6 5-5 5-6",
)


def in_play(rnd, scores=(0, 0)):
    """A Sports match whose round in play is the hand-built ``rnd``."""
    return new_match(SPORTS)._replace(round=rnd, scores=scores)


def openings(seat_hand: str) -> set:
    return {play(t(x)) for x in seat_hand.split()}


# Ends 2 and 5: seat 1 goes out with 2-6 on the left. Left: 3 + 6 + 4 = 13 pips.
def seat1_goes_out():
    return position("1-2", "2-6", "3-3", "0-4", left=2, right=5, turn=1)


# Ends 2 and 5: 5-6 on the right leaves ends 2 and 6, which no held tile shows (no boneyard):
# the round is blocked by that play.
def seat0_blocks(*others: str):
    return position("5-6 " + others[0], *others[1:], left=2, right=5, turn=0)


def seat3_blocks(*others: str):
    return position(*others[:3], "5-6 " + others[3], left=2, right=5, turn=3)


# ---- players, deal, targets ---------------------------------------------------------------


def test_sports_is_played_by_four_players():
    assert SPORTS.seats == 4 and rule_set("sports", seats=4).seats == 4


@pytest.mark.parametrize("seats", [2, 3])
def test_sports_refuses_two_or_three_players(seats):
    with pytest.raises(BadOptions):
        rule_set("sports", seats=seats)


def test_sports_is_played_by_two_pairs_zero_two_against_one_three():
    assert SPORTS.teams and SPORTS.sides == 2
    assert SPORTS.seats_of(0) == (0, 2) and SPORTS.seats_of(1) == (1, 3)


def test_sports_refuses_solo_play():
    with pytest.raises(BadOptions):
        rule_set("sports", teams=False)


def test_sports_deals_seven_tiles_to_each_player():
    d = fair_deal(SPORTS, SEED, [], 0)
    assert SPORTS.hand_size == 7 and [h.bit_count() for h in d.hands] == [7, 7, 7, 7]


def test_sports_has_no_boneyard():
    d = fair_deal(SPORTS, SEED, [], 0)
    assert not SPORTS.draws and d.boneyard == ()
    assert start_round(new_match(SPORTS), d).round.boneyard_left == 0


def test_a_sports_deal_with_a_boneyard_is_refused():
    with pytest.raises(BadDeal):
        start_round(new_match(SPORTS), DEAL._replace(boneyard=(t("0-0"),), chance=0))


def test_a_sports_seat_that_cannot_play_passes_and_never_draws():
    rnd = position("0-0 1-1", "2-3", "4-5", "3-3", left=2, right=5, turn=0)
    assert legal_moves(rnd) == (PASS,)
    with pytest.raises(CannotDraw):
        take_turn(rnd, DRAW)


@pytest.mark.parametrize("target", [100, 150, 200, 250])
def test_sports_offers_targets_100_150_200_250(target):
    assert new_match(SPORTS, target).target == target


@pytest.mark.parametrize("target", [51, 101, 300, 500])
def test_sports_refuses_any_other_target(target):
    with pytest.raises(BadOptions):
        new_match(SPORTS, target)


def test_sports_default_target_is_200():
    assert new_match(SPORTS).target == 200


# ---- who leads ----------------------------------------------------------------------------


def test_sports_round_one_is_led_by_the_seat_drawn_by_chance_with_any_tile():
    # Seat 2 holds 6-6, yet seat 1, drawn by chance, leads with any of its tiles.
    rnd = start_round(new_match(SPORTS), DEAL._replace(chance=1)).round
    assert rnd.turn == 1 and set(legal_moves(rnd)) == openings("1-1 1-2 1-3 1-4 1-5 1-6 2-2")


def test_sports_round_one_leader_may_lead_zero_zero():
    rnd = start_round(new_match(SPORTS), DEAL._replace(chance=0)).round
    assert play(t("0-0")) in legal_moves(rnd)


def test_sports_round_one_leader_is_drawn_from_the_deals_seed():
    drawn = [fair_deal(SPORTS, SEED, [], r).chance for r in range(40)]
    assert set(drawn) == {0, 1, 2, 3}
    assert start_round(new_match(SPORTS), fair_deal(SPORTS, SEED, [], 0)).round.turn == drawn[0]


def test_a_sports_round_led_by_chance_needs_the_drawn_seat():
    with pytest.raises(BadDeal):
        start_round(new_match(SPORTS), DEAL)


def test_sports_later_rounds_are_led_by_the_player_who_went_out_with_any_tile():
    m = apply(in_play(seat1_goes_out()), play(t("2-6"), LEFT))
    m = start_round(m, DEAL._replace(chance=0))
    assert m.round.turn == 1 and set(legal_moves(m.round)) == openings("1-1 1-2 1-3 1-4 1-5 1-6 2-2")


def test_after_a_blocked_round_the_winning_pairs_partner_with_fewer_pips_leads():
    # Pair 0 wins (seat 0: 1-3 = 4, seat 2: 0-1 = 1) against pair 1 (3-4, 4-5): seat 2 leads.
    m = apply(in_play(seat0_blocks("1-3", "3-4", "0-1", "4-5")), play(t("5-6"), RIGHT))
    m = start_round(m, DEAL._replace(chance=1))
    assert m.results[-1].winner == 0 and m.round.turn == 2


def test_after_a_blocked_round_partners_with_equal_pips_the_lower_seat_leads():
    # Seat 3 blocks; pair 1 wins with seat 1 (1-3) and seat 3 (0-4) at 4 pips each: seat 1 leads.
    m = apply(in_play(seat3_blocks("3-4", "1-3", "4-5", "0-4")), play(t("5-6"), RIGHT))
    m = start_round(m, DEAL._replace(chance=2))
    assert m.results[-1].winner == 1 and m.round.turn == 1


def test_sports_after_a_tied_round_the_leader_is_drawn_by_chance_again():
    # Pair 0: 1-3 + 0-1 = 5; pair 1: 0-3 + 1-1 = 5.
    m = apply(in_play(seat0_blocks("1-3", "0-3", "0-1", "1-1")), play(t("5-6"), RIGHT))
    m = start_round(m, DEAL._replace(chance=3))
    assert m.results[-1].winner is None and m.round.turn == 3
    assert set(legal_moves(m.round)) == openings("3-5 3-6 4-4 4-5 4-6 5-5 5-6")


# ---- round end and points -----------------------------------------------------------------


def test_the_winning_pair_scores_every_hands_pips_including_its_partners():
    # Left: seat 0 1-2 (3), seat 2 3-3 (6), seat 3 (seat 1's partner) 0-4 (4).
    m = apply(in_play(seat1_goes_out()), play(t("2-6"), LEFT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("domino", 1, 13, (0, 13))


def test_blocked_the_pair_with_fewer_pips_scores_the_pips_left_in_all_hands():
    # Pair 0: 4 + 1 = 5; pair 1: 7 + 9 = 16. Pair 0 scores 21.
    m = apply(in_play(seat0_blocks("1-3", "3-4", "0-1", "4-5")), play(t("5-6"), RIGHT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("blocked", 0, 21, (21, 0))


def test_blocked_pairs_with_equal_pips_tie_and_nobody_scores():
    m = apply(in_play(seat0_blocks("1-3", "0-3", "0-1", "1-1")), play(t("5-6"), RIGHT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("blocked", None, 0, (0, 0))


# ---- match end ----------------------------------------------------------------------------


def test_a_pair_reaching_the_target_with_more_points_than_the_other_wins_the_match():
    m = apply(in_play(seat1_goes_out(), scores=(150, 187)), play(t("2-6"), LEFT))
    assert m.scores == (150, 200) and m.over and m.winner == 1


def test_sports_match_goes_on_while_neither_pair_reaches_the_target():
    m = apply(in_play(seat1_goes_out(), scores=(150, 186)), play(t("2-6"), LEFT))
    assert m.scores == (150, 199) and not m.over and m.winner is None


def test_sports_with_both_pairs_past_the_target_the_one_with_more_points_wins():
    assert SPORTS.kind.match_end(SPORTS, (230, 210), 200) == (0, True, ())


def test_sports_has_no_tied_match_level_pairs_play_another_round():
    assert SPORTS.kind.match_end(SPORTS, (210, 210), 200) == (None, False, ())


# ---- the per-move timer -------------------------------------------------------------------


def test_the_sports_rule_set_times_each_move_itself():
    rnd = position("2-6 0-0", "3-5", "4-6", "0-3", left=2, right=5, turn=0)
    assert SPORTS.move_timer(rnd) == move_seconds(rnd) == 5


def test_a_single_legal_play_gets_five_seconds():
    rnd = position("2-6 0-0", "3-5", "4-6", "0-3", left=2, right=5, turn=0)
    assert len(legal_moves(rnd)) == 1 and move_seconds(rnd) == 5


def test_a_tile_fitting_two_ends_that_show_the_same_number_is_one_play():
    rnd = position("3-5 0-0", "3-4", "4-6", "0-5", left=3, right=3, turn=0)
    assert len(legal_moves(rnd)) == 2 and move_seconds(rnd) == 5


def test_a_tile_fitting_two_ends_that_show_different_numbers_is_two_plays():
    rnd = position("2-5 0-0", "1-2", "4-5", "0-3", left=2, right=5, turn=0)
    assert move_seconds(rnd) == 20


def test_several_plays_get_twenty_seconds():
    rnd = position("2-6 1-5 0-0", "2-3", "4-5", "3-6", left=2, right=5, turn=0)
    assert move_seconds(rnd) == 20


def test_a_play_that_would_block_the_round_gets_sixty_seconds():
    # 5-6 on the right leaves ends 2 and 6, which no held tile shows; 1-5 would not block.
    rnd = position("5-6 1-5", "0-1", "3-3", "3-4", left=2, right=5, turn=0)
    assert take_turn(rnd, play(t("5-6"), RIGHT)).outcome == "blocked"
    assert move_seconds(rnd) == 60


def test_going_out_with_a_play_that_leaves_no_play_is_a_domino_not_sixty_seconds():
    rnd = position("5-6", "0-1", "3-3", "3-4", left=2, right=5, turn=0)
    assert take_turn(rnd, play(t("5-6"), RIGHT)).outcome == "domino"
    assert move_seconds(rnd) == 5


def test_a_seat_with_no_play_does_not_wait():
    rnd = position("0-0 1-1", "2-3", "4-5", "3-3", left=2, right=5, turn=0)
    assert move_seconds(rnd) == 0 and legal_moves(rnd) == (PASS,)


def test_a_sports_timeout_plays_the_fitting_tile_of_highest_pip_sum():
    rnd = position("2-3 5-6 1-5 6-6", "1-2", "4-5", "0-3", left=2, right=5, turn=0)
    assert timeout_move(rnd) == play(t("5-6"), RIGHT)


def test_a_sports_timeout_breaks_equal_sums_by_the_higher_pip():
    rnd = position("4-5 3-6 0-0", "1-4", "2-4", "0-3", left=4, right=6, turn=0)
    assert timeout_move(rnd) == play(t("3-6"), RIGHT)


def test_a_sports_timeout_puts_a_tile_fitting_both_ends_on_the_left():
    rnd = position("2-5 0-0", "1-2", "4-5", "0-3", left=2, right=5, turn=0)
    assert timeout_move(rnd) == play(t("2-5"), LEFT)


def test_a_sports_timeout_with_no_play_passes():
    rnd = position("0-0 1-1", "2-3", "4-5", "3-3", left=2, right=5, turn=0)
    assert timeout_move(rnd) == PASS
