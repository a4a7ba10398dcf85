"""docs/rules.md §1.4: who leads each round."""

from services.rules.leading import egyptian_next_leader, highest_double_or_tile
from services.rules.match import apply, new_match, start_round
from services.rules.moves import legal_moves, play
from services.rules.rulesets import egyptian
from services.rules.tiles import parse_tile as t

from .positions import deal, hand

BLOCK4_SEAT2_HOLDS_66 = deal(
    "0-0 0-1 0-2 0-3 0-4 0-5 0-6",
    "1-1 1-2 1-3 1-4 1-5 1-6 2-2",
    "6-6 2-3 2-4 2-5 2-6 3-3 3-4",
    "3-5 3-6 4-4 4-5 4-6 5-5 5-6",
)
# draw-2 with every double in the boneyard; 4-5 and 3-6 both sum 9.
DRAW2_NO_DOUBLES = deal(
    "0-1 0-2 0-3 0-4 0-5 0-6 4-5",
    "1-2 1-3 1-4 1-5 1-6 2-3 3-6",
    boneyard="0-0 1-1 2-2 3-3 4-4 5-5 6-6 2-4 2-5 2-6 3-4 3-5 4-6 5-6",
)


def test_round1_is_led_by_the_holder_of_the_highest_double_with_that_double():
    m = start_round(new_match(egyptian("block-4")), BLOCK4_SEAT2_HOLDS_66)
    assert m.round.turn == 2
    assert legal_moves(m.round) == (play(t("6-6")),)


def test_round1_highest_double_need_not_be_6_6():
    hands = (hand("5-5 0-1"), hand("1-1 4-4"), hand("0-0"))
    assert highest_double_or_tile(hands) == (0, t("5-5"))


def test_round1_without_any_double_in_hand_the_highest_pip_sum_leads_with_that_tile():
    m = start_round(new_match(egyptian("draw-2")), DRAW2_NO_DOUBLES)
    assert m.round.turn == 1 and legal_moves(m.round) == (play(t("3-6")),)


def test_equal_pip_sums_are_broken_by_the_higher_pip():
    hands = (hand("4-5 0-1"), hand("3-6 0-2"))
    assert highest_double_or_tile(hands) == (1, t("3-6"))


def test_after_a_solo_round_with_a_winner_the_winner_leads_with_any_tile():
    rules = egyptian("block-3")
    assert egyptian_next_leader(rules, "blocked", 2, 0, (0, 0, 0)) == 2


def test_teams_after_a_domino_the_player_who_went_out_leads():
    rules = egyptian("block-4")
    assert egyptian_next_leader(rules, "domino", 1, 3, (hand("0-1"), 0, hand("0-2"), 0)) == 3


def test_teams_after_a_blocked_win_the_partner_with_fewer_pips_leads():
    rules = egyptian("block-4")
    hands = (hand("5-6"), hand("6-6"), hand("0-1"), hand("4-6"))
    assert egyptian_next_leader(rules, "blocked", 0, 1, hands) == 2


def test_teams_after_a_blocked_win_equal_pips_the_lower_seat_leads():
    rules = egyptian("block-4")
    hands = (hand("2-3"), hand("6-6"), hand("1-4"), hand("4-6"))
    assert egyptian_next_leader(rules, "blocked", 0, 3, hands) == 0


def test_after_a_tied_round_the_next_round_is_led_as_round_1():
    rules = egyptian("block-3")
    assert egyptian_next_leader(rules, "blocked", None, 1, (0, 0, 0)) is None


def test_the_winner_of_round_1_leads_round_2_with_any_tile():
    rules = egyptian("block-4", teams=False)
    m = start_round(new_match(rules), BLOCK4_SEAT2_HOLDS_66)
    while m.round.outcome is None:
        m = apply(m, legal_moves(m.round)[0])
    winner = m.results[-1].winner
    assert winner is not None
    m = start_round(m, BLOCK4_SEAT2_HOLDS_66)
    assert m.round.turn == winner
    assert len(legal_moves(m.round)) == 7
