"""docs/rules.md §4: the classic draw game (with §1.3's turn and §2's match end, which it refers to)."""

import pytest

from services.rules.errors import BadDeal, BadOptions, MustPlay, WrongLead
from services.rules.fairness import fair_deal
from services.rules.match import apply, new_match, start_round
from services.rules.moves import DRAW, LEFT, PASS, RIGHT, legal_moves, play
from services.rules.rulesets import rule_set
from services.rules.state import Deal
from services.rules.tiles import parse_tile as t
from services.rules.turns import take_turn

from .positions import hand, position, tiles

CLASSIC2 = rule_set("classic", seats=2)
CLASSIC3 = rule_set("classic", seats=3)
CLASSIC4 = rule_set("classic", seats=4)
SEED = bytes(range(32))


def dealt(*hands: str) -> Deal:
    """The hands as written; every other tile goes to the boneyard, in tile order."""
    masks = tuple(hand(h) for h in hands)
    held = 0
    for mask in masks:
        held |= mask
    return Deal(masks, tuple(x for x in range(28) if not held >> x & 1))


def in_play(rules, rnd, scores=None):
    """A match of ``rules`` whose round in play is the hand-built ``rnd``."""
    m = new_match(rules)
    return m._replace(round=rnd, scores=m.scores if scores is None else scores)


# Two players, ends 2 and 5: seat 0 goes out with 2-6 on the left; seat 1 keeps 1-2.
def seat0_goes_out_against_1_2():
    return position("2-6", "1-2", left=2, right=5, turn=0)


# Three players, ends 2 and 5: seat 0 plays 5-6 on the right, leaving ends 2 and 6, which no
# held tile shows, with the boneyard empty: blocked. Seat 1 has the lowest hand (1-3 = 4).
def seat0_blocks_seat1_lowest():
    return position("5-6 4-5", "1-3", "3-3 0-1", left=2, right=5, turn=0)


# As above, but seats 1 and 2 share the lowest hand (4 each).
def seat0_blocks_seats1_and_2_share_lowest():
    return position("5-6 4-5", "1-3", "0-4", left=2, right=5, turn=0)


# Three players; seat 2 holds 6-6, so a round led as round 1 is led by seat 2.
SEAT2_HOLDS_6_6 = dealt(
    "0-1 0-2 0-3 0-4 0-5",
    "0-6 1-2 1-3 1-4 1-5",
    "6-6 1-6 2-3 2-4 2-5",
)


# ---- players, hands, boneyard, targets --------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_classic_is_played_by_two_three_or_four_players(seats):
    assert rule_set("classic", seats=seats).seats == seats


@pytest.mark.parametrize("seats", [1, 5])
def test_classic_refuses_fewer_than_two_or_more_than_four_players(seats):
    with pytest.raises(BadOptions):
        rule_set("classic", seats=seats)


def test_classic_is_solo_only_teams_are_refused():
    with pytest.raises(BadOptions):
        rule_set("classic", seats=4, teams=True)


def test_classic_four_players_each_play_for_themselves():
    assert not CLASSIC4.teams and CLASSIC4.sides == 4
    assert new_match(CLASSIC4).scores == (0, 0, 0, 0)


@pytest.mark.parametrize("seats,size", [(2, 7), (3, 5), (4, 5)])
def test_classic_deals_seven_tiles_to_two_players_and_five_to_three_or_four(seats, size):
    rules = rule_set("classic", seats=seats)
    d = fair_deal(rules, SEED, [], 0)
    assert rules.hand_size == size
    assert [h.bit_count() for h in d.hands] == [size] * seats


@pytest.mark.parametrize("seats,rest", [(2, 14), (3, 13), (4, 8)])
def test_classic_the_rest_of_the_set_is_the_boneyard(seats, rest):
    rules = rule_set("classic", seats=seats)
    m = start_round(new_match(rules), fair_deal(rules, SEED, [], 0))
    assert m.round.boneyard_left == rest


def test_a_classic_deal_without_its_boneyard_is_refused():
    with pytest.raises(BadDeal):
        start_round(new_match(CLASSIC3), Deal(SEAT2_HOLDS_6_6.hands))


def test_classic_draws_come_from_the_boneyard_in_its_fixed_order():
    d = Deal(
        (hand("6-6 0-6 1-6 2-6 3-6 4-6 5-6"), hand("0-0 0-1 0-2 0-3 0-4 0-5 1-1")),
        tuple(tiles("4-5 1-2 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-4 3-5 4-4 5-5")),
    )
    m = apply(start_round(new_match(CLASSIC2), d), play(t("6-6")))
    m = apply(apply(m, DRAW), DRAW)
    assert m.round.hands[1] == hand("0-0 0-1 0-2 0-3 0-4 0-5 1-1 4-5 1-2")


@pytest.mark.parametrize("target", [100, 200, 300, 400, 500])
def test_classic_offers_targets_100_to_500_in_hundreds(target):
    assert new_match(CLASSIC3, target).target == target


@pytest.mark.parametrize("target", [51, 101, 150, 250, 600])
def test_classic_refuses_any_other_target(target):
    with pytest.raises(BadOptions):
        new_match(CLASSIC3, target)


def test_classic_default_target_is_100():
    assert new_match(CLASSIC3).target == 100


# ---- who leads ----------------------------------------------------------------------------


def test_classic_round_one_is_led_by_the_highest_double_with_it():
    # 6-6 is in the boneyard, so 5-5 is the highest double dealt; seat 0's 5-6 is heavier.
    d = dealt("4-4 5-6 0-1 0-2 0-3 0-4 0-5", "5-5 0-6 1-2 1-3 1-4 1-5 1-6")
    rnd = start_round(new_match(CLASSIC2), d).round
    assert rnd.turn == 1 and legal_moves(rnd) == (play(t("5-5")),)


def test_classic_round_one_leader_may_not_lead_another_tile():
    d = dealt("4-4 5-6 0-1 0-2 0-3 0-4 0-5", "5-5 0-6 1-2 1-3 1-4 1-5 1-6")
    rnd = start_round(new_match(CLASSIC2), d).round
    with pytest.raises(WrongLead):
        take_turn(rnd, play(t("1-6")))


def test_zero_zero_never_leads_even_as_the_only_double():
    # Every other double is in the boneyard; the heaviest tile dealt is seat 2's 5-6.
    d = dealt("0-0 0-1 0-2 0-3 0-4", "0-5 0-6 1-2 1-3 1-4", "5-6 1-5 1-6 2-3 2-4", "2-5 2-6 3-4 3-5 3-6")
    rnd = start_round(new_match(CLASSIC4), d).round
    assert rnd.turn == 2 and legal_moves(rnd) == (play(t("5-6")),)


def test_with_no_double_the_heaviest_tile_leads_six_three_before_five_four():
    # No double is dealt, nor 5-6 or 4-6: seat 0's 4-5 and seat 1's 3-6 both sum 9.
    d = dealt("4-5 0-1 0-2 0-3 0-4", "3-6 0-5 0-6 1-2 1-3", "1-4 1-5 1-6 2-3 2-4")
    rnd = start_round(new_match(CLASSIC3), d).round
    assert rnd.turn == 1 and legal_moves(rnd) == (play(t("3-6")),)


def test_the_previous_rounds_winner_leads_the_next_round_with_any_tile_but_zero_zero():
    m = apply(in_play(CLASSIC2, seat0_goes_out_against_1_2()), play(t("2-6"), LEFT))
    # Seat 1 holds 6-6, which would lead round 1; the winner, seat 0, leads instead.
    m = start_round(m, dealt("0-0 0-1 0-2 0-3 0-4 0-5 0-6", "6-6 1-1 1-2 1-3 1-4 1-5 1-6"))
    assert m.round.turn == 0
    assert set(legal_moves(m.round)) == {play(t(x)) for x in "0-1 0-2 0-3 0-4 0-5 0-6".split()}


def test_a_later_round_may_not_be_opened_with_zero_zero():
    m = apply(in_play(CLASSIC2, seat0_goes_out_against_1_2()), play(t("2-6"), LEFT))
    m = start_round(m, dealt("0-0 0-1 0-2 0-3 0-4 0-5 0-6", "6-6 1-1 1-2 1-3 1-4 1-5 1-6"))
    with pytest.raises(WrongLead):
        apply(m, play(t("0-0")))


def test_classic_after_a_blocked_round_its_winner_the_lowest_hand_leads():
    m = apply(in_play(CLASSIC3, seat0_blocks_seat1_lowest()), play(t("5-6"), RIGHT))
    m = start_round(m, SEAT2_HOLDS_6_6)
    assert m.round.turn == 1 and len(legal_moves(m.round)) == 5


def test_classic_after_a_tied_round_the_next_round_is_led_as_round_one():
    m = apply(in_play(CLASSIC3, seat0_blocks_seats1_and_2_share_lowest()), play(t("5-6"), RIGHT))
    m = start_round(m, SEAT2_HOLDS_6_6)
    assert m.round.turn == 2 and legal_moves(m.round) == (play(t("6-6")),)


# ---- a turn (as §1.3) ---------------------------------------------------------------------


def test_classic_a_seat_holding_a_fitting_tile_must_play_and_may_not_draw():
    rnd = position("2-6 0-0", "1-1", "3-3", left=2, right=5, turn=0, boneyard="4-4")
    assert legal_moves(rnd) == (play(t("2-6"), LEFT),)
    with pytest.raises(MustPlay):
        take_turn(rnd, DRAW)


def test_classic_a_seat_without_a_fitting_tile_draws_until_one_fits_then_must_play_it():
    rnd = position("0-0 0-1", "1-1", "3-3", left=2, right=5, turn=0, boneyard="4-4 2-4 1-3")
    assert legal_moves(rnd) == (DRAW,)
    rnd = take_turn(take_turn(rnd, DRAW), DRAW)
    assert rnd.turn == 0 and legal_moves(rnd) == (play(t("2-4"), LEFT),)


def test_classic_a_seat_that_can_neither_play_nor_draw_passes():
    rnd = position("0-0 0-1", "2-3", "3-3", left=2, right=5, turn=0)
    assert legal_moves(rnd) == (PASS,)
    assert take_turn(rnd, PASS).turn == 1


def test_classic_drawing_the_last_tile_with_no_seat_able_to_play_blocks_the_round_at_once():
    rnd = position("0-0", "1-1", "3-3", left=2, right=5, turn=0, boneyard="4-4")
    assert take_turn(rnd, DRAW).outcome == "blocked"


# ---- round end and points -----------------------------------------------------------------


def test_classic_domino_scores_the_pips_of_all_other_hands():
    rnd = position("2-6", "6-6", "1-2", left=2, right=5, turn=0)
    m = apply(in_play(CLASSIC3, rnd), play(t("2-6"), LEFT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("domino", 0, 15, (15, 0, 0))


def test_a_hand_of_only_zero_zero_counts_twenty_five():
    hands = (0, hand("0-0"), hand("1-2"))
    assert CLASSIC3.kind.score_round(CLASSIC3, "domino", 0, hands) == (0, 28)


def test_zero_zero_among_other_tiles_counts_only_its_pips():
    hands = (0, hand("0-0 1-2"), hand("1-1"))
    assert CLASSIC3.kind.score_round(CLASSIC3, "domino", 0, hands) == (0, 5)


def test_a_lone_zero_zero_counts_twenty_five_when_finding_the_lowest_hand():
    # 0-0 alone is 25, so seat 1's 1-2 (3) is the lowest hand, not seat 0's 0 pips.
    hands = (hand("0-0"), hand("1-2"), hand("6-6 5-5"))
    assert CLASSIC3.kind.score_round(CLASSIC3, "blocked", 2, hands) == (1, 25 + 22 - 3)


def test_a_lone_zero_zero_counts_twenty_five_in_the_winners_own_blocked_total():
    hands = (hand("0-0"), hand("6-6 5-6 4-6"), hand("5-5 4-5 3-6"))
    assert CLASSIC3.kind.score_round(CLASSIC3, "blocked", 2, hands) == (0, 33 + 28 - 25)


def test_blocked_round_scores_the_others_total_minus_the_winners_own_once():
    # Seat 1 (1-3 = 4) is lowest; the others hold 9 and 7: 16 - 4 = 12.
    m = apply(in_play(CLASSIC3, seat0_blocks_seat1_lowest()), play(t("5-6"), RIGHT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("blocked", 1, 12, (0, 12, 0))


def test_classic_blocked_round_with_equal_lowest_hands_is_a_tie_and_nobody_scores():
    m = apply(in_play(CLASSIC3, seat0_blocks_seats1_and_2_share_lowest()), play(t("5-6"), RIGHT))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points, m.scores) == ("blocked", None, 0, (0, 0, 0))


# ---- match end (as §2) --------------------------------------------------------------------


def test_classic_match_is_won_when_a_round_takes_the_highest_total_to_the_target():
    rnd = position("2-6", "6-6", "1-2", left=2, right=5, turn=0)
    m = apply(in_play(CLASSIC3, rnd, scores=(85, 60, 0)), play(t("2-6"), LEFT))
    assert m.scores == (100, 60, 0) and m.over and m.winner == 0


def test_classic_match_goes_on_while_no_total_reaches_the_target():
    rnd = position("2-6", "6-6", "1-2", left=2, right=5, turn=0)
    m = apply(in_play(CLASSIC3, rnd, scores=(84, 60, 0)), play(t("2-6"), LEFT))
    assert m.scores == (99, 60, 0) and not m.over and m.winner is None


def test_classic_match_with_several_totals_past_the_target_is_won_by_the_highest():
    assert CLASSIC3.kind.match_end(CLASSIC3, (110, 130, 40), 100) == (1, True, ())


def test_classic_match_end_with_a_tie_at_the_top_plays_on():
    assert CLASSIC3.kind.match_end(CLASSIC3, (120, 120, 40), 100) == (None, False, ())
