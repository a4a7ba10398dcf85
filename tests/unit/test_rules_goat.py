"""docs/rules.md §3: the Goat family (gamezz and koza), where points are bad and 101 makes the goat."""

import pytest

from services.match.creation_checks import chosen
from services.match.errors import InvalidOptions
from services.rules.errors import BadOptions, MustPlay, RoundOver, WrongLead
from services.rules.families import goat
from services.rules.match import apply, new_match, start_round
from services.rules.moves import DRAW, LEFT, PASS, RIGHT, legal_moves, play
from services.rules.rulesets import rule_set
from services.rules.state import Accounts
from services.rules.tiles import parse_tile as t

from .positions import deal, hand, position

ALL_TILES = ("0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1 1-2 1-3 1-4 1-5 1-6 2-2 2-3 2-4 2-5 2-6 "
             "3-3 3-4 3-5 3-6 4-4 4-5 4-6 5-5 5-6 6-6")


def two_seat_deal(first: str, second: str):
    """Two hands; every other tile goes to the bazaar, in the set's order."""
    held = set(first.split()) | set(second.split())
    return deal(first, second, boneyard=" ".join(x for x in ALL_TILES.split() if x not in held))


# Four hands. gamezz: seat 2 holds 0-0 (seat 0 holds 6-6). koza: seat 1 holds 1-1.
# No hand holds five doubles or six tiles showing one number.
FOUR_SEATS = deal(
    "6-6 1-2 1-3 1-4 1-5 1-6 2-3",
    "1-1 0-1 0-2 0-3 0-4 0-5 2-4",
    "0-0 0-6 2-5 2-6 3-4 3-5 3-6",
    "2-2 3-3 4-4 5-5 4-5 4-6 5-6",
)
# The same hands with seats 1 and 2 swapped: koza's 1-1 is now with seat 2.
FOUR_SEATS_ONE_ONE_AT_SEAT_2 = deal(
    "6-6 1-2 1-3 1-4 1-5 1-6 2-3",
    "0-0 0-6 2-5 2-6 3-4 3-5 3-6",
    "1-1 0-1 0-2 0-3 0-4 0-5 2-4",
    "2-2 3-3 4-4 5-5 4-5 4-6 5-6",
)
# Seat 3 holds five doubles (2-2 3-3 4-4 5-5 6-6).
FIVE_DOUBLES = deal(
    "5-6 1-2 1-3 1-4 1-5 1-6 2-3",
    "1-1 0-1 0-2 0-3 0-4 0-5 2-4",
    "0-0 0-6 2-5 2-6 3-4 3-5 3-6",
    "2-2 3-3 4-4 5-5 6-6 4-5 4-6",
)
# Seat 1 holds six tiles showing 0 (0-1 ... 0-6).
SIX_ZEROS = deal(
    "6-6 1-2 1-3 1-4 1-5 1-6 2-3",
    "0-1 0-2 0-3 0-4 0-5 0-6 1-1",
    "0-0 2-4 2-5 2-6 3-4 3-5 3-6",
    "2-2 3-3 4-4 5-5 4-5 4-6 5-6",
)
# 0-0 and 6-6 are in the bazaar; seat 0 holds 1-1, seat 1 holds 5-5.
ONE_ONE_AND_FIVE_FIVE = two_seat_deal("1-1 0-1 0-2 0-3 1-2 1-3 2-3", "5-5 0-4 0-5 1-4 1-5 2-4 2-5")
# 1-1 is in the bazaar; seat 0 holds 2-2, seat 1 holds 0-0 and 6-6.
TWO_TWO_AGAINST_ZERO_ZERO_AND_SIX_SIX = two_seat_deal("2-2 0-1 0-2 0-3 1-2 1-3 2-3", "0-0 6-6 0-4 0-5 1-4 1-5 2-4")
# The only double in any hand is 0-0 (seat 0).
ONLY_ZERO_ZERO = two_seat_deal("0-0 0-1 0-2 0-3 1-2 1-3 2-3", "0-4 0-5 1-4 1-5 2-4 2-5 3-4")
# Every double is in the bazaar; 4-5 (seat 0) and 3-6 (seat 1) are the heaviest tiles dealt, both 9.
NO_DOUBLES = two_seat_deal("4-5 0-1 0-2 0-3 1-2 1-3 2-3", "3-6 0-4 0-5 1-4 1-5 2-4 2-5")

GAMEZZ3 = rule_set("goat", "gamezz", seats=3)
GAMEZZ3_FISH_ONE = rule_set("goat", "gamezz", seats=3, options={"fish": "one"})
GAMEZZ4 = rule_set("goat", "gamezz", seats=4)
GAMEZZ_TEAMS = rule_set("goat", "gamezz", teams=True, seats=4)
KOZA3 = rule_set("goat", "koza", seats=3)
KOZA3_FISH_ONE = rule_set("goat", "koza", seats=3, options={"fish": "one"})
KOZA4 = rule_set("goat", "koza", seats=4)
KOZA_TEAMS = rule_set("goat", "koza", teams=True, seats=4)
KOZA_TEAMS_FISH_ONE = rule_set("goat", "koza", teams=True, seats=4, options={"fish": "one"})


def accounts(remembered=(0, 0, 0), opened=None, pot=0) -> Accounts:
    return Accounts(tuple(remembered), tuple(opened or (False,) * len(remembered)), pot)


OPEN3 = accounts(opened=(True, True, True))


def tally(rules, reason, last_seat, *hands, before=None):
    """(written, accounts after) for a round that ended with ``hands`` left in the seats."""
    before = before or accounts((0,) * rules.sides)
    return goat.tally(rules, reason, last_seat, tuple(hand(h) for h in hands), before)


def in_play(rules, rnd, scores=None, before=None):
    """A match whose round in play is the hand-built ``rnd``."""
    m = new_match(rules)._replace(round=rnd)
    if scores is not None:
        m = m._replace(scores=tuple(scores))
    if before is not None:
        m = m._replace(accounts=before)
    return m


def leader(rules, dealt):
    return rules.kind.opening_leader(rules, dealt)


# --- Players, the bazaar, teams ---------------------------------------------------------


@pytest.mark.parametrize("seats,bazaar", [(2, 14), (3, 7), (4, 0)])
def test_goat_deals_seven_tiles_each_and_the_rest_is_the_bazaar(seats, bazaar):
    rules = rule_set("goat", "gamezz", seats=seats)
    assert (rules.hand_size, rules.draws, rules.undealt) == (7, True, bazaar)


@pytest.mark.parametrize("seats", [1, 5])
def test_goat_is_played_only_by_two_three_or_four_players(seats):
    with pytest.raises(BadOptions, match="2 or 3 or 4 players"):
        rule_set("goat", "gamezz", seats=seats)


def test_with_four_players_teams_0_2_against_1_3_are_a_host_option():
    assert GAMEZZ_TEAMS.sides == 2 and GAMEZZ_TEAMS.seats_of(0) == (0, 2) and GAMEZZ_TEAMS.seats_of(1) == (1, 3)


def test_four_players_play_solo_unless_the_host_chooses_teams():
    assert not GAMEZZ4.teams and GAMEZZ4.sides == 4


@pytest.mark.parametrize("seats", [2, 3])
def test_teams_with_two_or_three_seats_are_refused(seats):
    with pytest.raises(BadOptions, match="teams only by 4 players"):
        rule_set("goat", "koza", teams=True, seats=seats)


# --- The 101 limit, the goat and the ranking ---------------------------------------------


def test_the_match_is_played_to_101():
    assert new_match(KOZA3).target == 101


@pytest.mark.parametrize("target", [51, 100, 151])
def test_a_target_other_than_101_is_refused(target):
    with pytest.raises(InvalidOptions, match="101"):
        chosen("goat", "koza", None, target, None, 3, None)


def test_a_side_reaching_exactly_101_is_the_goat_and_ends_the_match():
    assert GAMEZZ3.kind.match_end(GAMEZZ3, (101, 40, 60), 101) == (1, True, (0,))


def test_no_side_at_101_lets_the_match_go_on():
    assert GAMEZZ3.kind.match_end(GAMEZZ3, (100, 40, 60), 101) == (None, False, ())


def test_sides_are_ranked_by_ascending_total_so_the_lowest_wins():
    winner, _, _ = GAMEZZ4.kind.match_end(GAMEZZ4, (120, 70, 15, 40), 101)
    assert winner == 2


def test_several_sides_past_101_make_the_highest_the_goat():
    assert GAMEZZ3.kind.match_end(GAMEZZ3, (105, 120, 30), 101) == (2, True, (1,))


def test_equal_highest_past_101_are_all_goats():
    assert GAMEZZ3.kind.match_end(GAMEZZ3, (110, 110, 30), 101) == (2, True, (0, 1))


def test_equal_lowest_totals_leave_no_single_winner():
    assert GAMEZZ3.kind.match_end(GAMEZZ3, (101, 20, 20), 101) == (None, True, (0,))


def test_teams_a_team_past_101_is_the_goat_and_the_other_team_wins():
    assert GAMEZZ_TEAMS.kind.match_end(GAMEZZ_TEAMS, (64, 103), 101) == (0, True, (1,))


def test_the_match_ends_after_the_round_in_which_a_side_reaches_101():
    # Seat 1 goes out; seat 0 writes 3-4 (7): 95 + 7 = 102.
    m = in_play(GAMEZZ3, position("3-4", "1-2", "0-1", left=1, right=5, turn=1), scores=(95, 0, 0))
    m = apply(m, play(t("1-2"), LEFT))
    assert m.over and m.scores == (102, 0, 1) and m.goats == (0,) and m.winner == 1


def test_remembered_points_never_count_toward_101():
    # Side 0 has remembered 95 and writes nothing; 5-6 (11) is remembered too: 106 remembered.
    before = accounts((95, 0, 0), (False, True, True))
    m = in_play(KOZA3, position("5-6", "1-2", "0-1", left=1, right=5, turn=1), scores=(0, 20, 30), before=before)
    m = apply(m, play(t("1-2"), LEFT))
    assert not m.over and m.scores == (0, 20, 31) and m.accounts.remembered[0] == 106


def test_the_ranking_uses_written_totals_only():
    # Side 1 wrote 0 but remembers 40; side 2 wrote 20. Side 0 reaches 101: side 1 wins.
    before = accounts((0, 40, 0), (True, False, True))
    m = in_play(KOZA3, position("2-3", "0-1", "1-2", left=1, right=5, turn=2), scores=(96, 0, 20), before=before)
    m = apply(m, play(t("1-2"), LEFT))
    assert m.over and m.scores == (101, 0, 20) and m.winner == 1 and m.goats == (0,)


# --- Presets and options -----------------------------------------------------------------


def test_gamezz_preset_is_zero_zero_0_no_redeal_no_remembered_fish_all():
    assert rule_set("goat", "gamezz").options._asdict() == {
        "zero_zero": 0, "redeal": False, "remembered": False, "fish": "all"}


def test_koza_preset_is_zero_zero_10_redeal_remembered_fish_all():
    assert rule_set("goat", "koza").options._asdict() == {
        "zero_zero": 10, "redeal": True, "remembered": True, "fish": "all"}


@pytest.mark.parametrize("variant", ["gamezz", "koza"])
@pytest.mark.parametrize("name,value", [
    ("zero_zero", 0), ("zero_zero", 10), ("zero_zero", 25),
    ("redeal", True), ("redeal", False),
    ("remembered", True), ("remembered", False),
    ("fish", "all"), ("fish", "one"),
])
def test_any_option_may_take_any_of_its_values_in_either_variant(variant, name, value):
    assert getattr(rule_set("goat", variant, options={name: value}).options, name) == value


def test_a_changed_option_leaves_the_other_preset_values_alone():
    assert rule_set("goat", "koza", options={"fish": "one"}).options._asdict() == {
        "zero_zero": 10, "redeal": True, "remembered": True, "fish": "one"}


def test_an_unknown_goat_option_is_refused_by_name():
    with pytest.raises(BadOptions, match="no option 'spinner'"):
        rule_set("goat", "koza", options={"spinner": True})


def test_an_unknown_goat_variant_is_refused():
    with pytest.raises(BadOptions, match="gamezz, koza"):
        rule_set("goat", "billy")


@pytest.mark.parametrize("value", [5, 12, -10, True, "10", None])
def test_zero_zero_other_than_0_10_or_25_is_refused(value):
    with pytest.raises(BadOptions, match="zero_zero must be one of 0, 10, 25"):
        rule_set("goat", "koza", options={"zero_zero": value})


@pytest.mark.parametrize("name", ["redeal", "remembered"])
@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_redeal_and_remembered_must_be_true_or_false(name, value):
    with pytest.raises(BadOptions, match=f"{name} must be true or false"):
        rule_set("goat", "gamezz", options={name: value})


@pytest.mark.parametrize("value", ["none", "ONE", "", 1, None])
def test_fish_must_be_all_or_one(value):
    with pytest.raises(BadOptions, match="fish must be one of all, one"):
        rule_set("goat", "gamezz", options={"fish": value})


# --- Round-1 leader ----------------------------------------------------------------------


def test_gamezz_round_one_is_led_by_the_holder_of_zero_zero_with_it():
    m = start_round(new_match(GAMEZZ4), FOUR_SEATS)
    assert m.round.turn == 2 and legal_moves(m.round) == (play(t("0-0")),)


def test_gamezz_without_zero_zero_the_highest_double_leads():
    assert leader(rule_set("goat", "gamezz", seats=2), ONE_ONE_AND_FIVE_FIVE) == (1, t("5-5"))


def test_gamezz_without_any_double_the_heaviest_tile_leads_6_3_before_5_4():
    assert leader(rule_set("goat", "gamezz", seats=2), NO_DOUBLES) == (1, t("3-6"))


def test_koza_round_one_is_led_by_the_holder_of_one_one_with_it():
    m = start_round(new_match(KOZA4), FOUR_SEATS)
    assert m.round.turn == 1 and legal_moves(m.round) == (play(t("1-1")),)


def test_koza_without_one_one_the_next_lowest_double_leads_before_zero_zero_and_six_six():
    assert leader(rule_set("goat", "koza", seats=2), TWO_TWO_AGAINST_ZERO_ZERO_AND_SIX_SIX) == (0, t("2-2"))


def test_koza_zero_zero_leads_only_when_no_other_double_is_dealt():
    assert leader(rule_set("goat", "koza", seats=2), ONLY_ZERO_ZERO) == (0, t("0-0"))


def test_koza_without_any_double_the_heaviest_tile_leads_6_3_before_5_4():
    assert leader(rule_set("goat", "koza", seats=2), NO_DOUBLES) == (1, t("3-6"))


def test_round_one_must_be_led_with_the_tile_the_rule_set_names():
    m = start_round(new_match(GAMEZZ4), FOUR_SEATS)
    with pytest.raises(WrongLead):
        apply(m, play(t("0-6")))


def test_the_variant_fixes_the_round_one_leader_whatever_its_options():
    gamezz_options = {"zero_zero": 0, "redeal": False, "remembered": False, "fish": "all"}
    rules = rule_set("goat", "koza", seats=4, options=gamezz_options)
    assert leader(rules, FOUR_SEATS) == (1, t("1-1"))


# --- Later leaders -----------------------------------------------------------------------


def test_the_player_who_went_out_leads_the_next_round_with_any_tile():
    m = apply(in_play(GAMEZZ4, position("1-2", "3-4", "5-5", "0-4", left=1, right=5, turn=0)), play(t("1-2"), LEFT))
    m = start_round(m, FOUR_SEATS)
    assert m.round.turn == 0 and len(legal_moves(m.round)) == 7


def test_the_fisherman_leads_the_next_round_with_any_tile():
    # 1-6 on the right leaves ends 6 and 6, and nobody holds a 6.
    rnd = position("2-3", "4-5", "2-4", "1-6 0-0", left=6, right=1, turn=3)
    m = apply(in_play(GAMEZZ4, rnd), play(t("1-6"), RIGHT))
    assert m.results[-1].reason == "blocked"
    m = start_round(m, FOUR_SEATS)
    assert m.round.turn == 3 and len(legal_moves(m.round)) == 7


def test_teams_the_fisherman_leads_the_next_round_not_the_partner_with_fewer_pips():
    # Seat 1 fishes holding 6-6; its partner, seat 3, holds less.
    rnd = position("2-3", "1-4 6-6", "2-2", "0-0", left=5, right=1, turn=1)
    m = apply(in_play(GAMEZZ_TEAMS, rnd), play(t("1-4"), RIGHT))
    assert m.results[-1].reason == "blocked" and m.next_leader == 1


def test_the_fisherman_is_the_seat_whose_draw_of_the_last_bazaar_tile_left_the_block():
    m = apply(in_play(rule_set("goat", "gamezz", seats=2), position("0-0", "1-1", left=2, right=5, turn=0,
                                                                     boneyard="3-3")), DRAW)
    result = m.results[-1]
    assert (result.reason, result.last_seat, result.extras.written, m.next_leader) == ("blocked", 0, (0, 2), 0)


def test_a_redealt_round_is_led_by_the_seat_that_would_have_led():
    m = apply(in_play(KOZA4, position("0-1", "3-4", "5-5", "1-2", left=1, right=5, turn=3)), play(t("1-2"), LEFT))
    m = start_round(m, FIVE_DOUBLES)
    assert m.round.outcome == "redeal"
    m = start_round(m, FOUR_SEATS)
    assert m.round.turn == 3 and len(legal_moves(m.round)) == 7


def test_a_redealt_round_one_is_led_by_the_round_one_rule_applied_to_the_new_deal():
    m = start_round(new_match(KOZA4), FIVE_DOUBLES)
    m = start_round(m, FOUR_SEATS_ONE_ONE_AT_SEAT_2)
    assert m.round.turn == 2 and legal_moves(m.round) == (play(t("1-1")),)


# --- A turn ------------------------------------------------------------------------------


def test_a_seat_without_a_fitting_tile_draws_the_next_bazaar_tile():
    # gamezz: seat 1 leads 5-5; seat 0 holds no 5; the bazaar starts with 0-0.
    m = start_round(new_match(rule_set("goat", "gamezz", seats=2)), ONE_ONE_AND_FIVE_FIVE)
    m = apply(m, play(t("5-5")))
    assert legal_moves(m.round) == (DRAW,)
    assert apply(m, DRAW).round.hands[0] == hand("1-1 0-1 0-2 0-3 1-2 1-3 2-3 0-0")


def test_a_seat_holding_a_fitting_tile_must_play_it_and_may_not_draw():
    # koza: seat 0 leads 1-1; seat 1 holds 1-4 and 1-5.
    m = apply(start_round(new_match(rule_set("goat", "koza", seats=2)), ONE_ONE_AND_FIVE_FIVE), play(t("1-1")))
    with pytest.raises(MustPlay):
        apply(m, DRAW)


def test_with_four_players_there_is_no_bazaar_and_a_seat_that_cannot_play_passes():
    m = apply(start_round(new_match(GAMEZZ4), FOUR_SEATS), play(t("0-0")))
    assert m.round.turn == 3 and legal_moves(m.round) == (PASS,)


def test_the_round_ends_blocked_at_once_when_no_seat_can_play_and_the_bazaar_is_empty():
    rnd = position("1-6 0-0", "2-3", "4-5", left=6, right=1, turn=0)
    m = apply(in_play(GAMEZZ3, rnd), play(t("1-6"), RIGHT))
    assert m.round.outcome == "blocked" and len(m.round.actions()) == 1


# --- Round scores ------------------------------------------------------------------------


def test_every_seat_writes_the_pips_of_its_own_hand():
    written, _ = tally(GAMEZZ3, "domino", 0, "", "6-6", "2-3 0-1")
    assert written == (0, 12, 6)


def test_the_fisherman_writes_zero_though_tiles_remain_in_its_hand():
    written, _ = tally(GAMEZZ3, "blocked", 1, "2-3", "6-6 5-5", "0-1")
    assert written == (5, 0, 1)


def test_teams_a_teams_round_score_is_the_sum_of_its_two_seats():
    written, _ = tally(GAMEZZ_TEAMS, "domino", 1, "2-3", "", "6-6", "0-1")
    assert written == (17, 1)


def test_teams_the_fishermans_partner_writes_its_own_pips():
    written, _ = tally(GAMEZZ_TEAMS, "blocked", 0, "5-5", "2-3", "6-6", "0-1")
    assert written == (12, 6)


def test_the_match_adds_each_sides_written_score_to_its_total():
    m = in_play(GAMEZZ3, position("3-4", "1-2", "0-1", left=1, right=5, turn=1), scores=(10, 20, 30))
    m = apply(m, play(t("1-2"), LEFT))
    assert m.results[-1].extras.written == (7, 0, 1) and m.scores == (17, 20, 31)


# --- zero_zero ---------------------------------------------------------------------------


def test_gamezz_a_hand_holding_only_zero_zero_counts_zero():
    written, _ = tally(GAMEZZ3, "domino", 0, "", "0-0", "1-2")
    assert written == (0, 0, 3)


def test_koza_a_hand_holding_only_zero_zero_counts_ten():
    written, _ = tally(KOZA3, "domino", 0, "", "0-0", "1-2", before=OPEN3)
    assert written == (0, 10, 3)


def test_zero_zero_option_25_makes_a_hand_of_only_zero_zero_count_25():
    rules = rule_set("goat", "koza", seats=3, options={"zero_zero": 25})
    written, _ = tally(rules, "domino", 0, "", "0-0", "1-2", before=OPEN3)
    assert written == (0, 25, 3)


def test_zero_zero_option_10_in_gamezz_makes_a_hand_of_only_zero_zero_count_10():
    rules = rule_set("goat", "gamezz", seats=3, options={"zero_zero": 10})
    written, _ = tally(rules, "domino", 0, "", "0-0", "1-2")
    assert written == (0, 10, 3)


def test_zero_zero_beside_other_tiles_counts_only_its_pips():
    written, _ = tally(KOZA3, "domino", 0, "", "0-0 1-2", "", before=OPEN3)
    assert written == (0, 3, 0)


def test_teams_a_seat_holding_only_zero_zero_adds_its_value_to_its_team():
    rules = rule_set("goat", "koza", teams=True, seats=4, options={"remembered": False})
    written, _ = tally(rules, "domino", 0, "", "0-0", "1-2", "2-3")
    assert written == (3, 15)


# --- redeal ------------------------------------------------------------------------------


def test_a_hand_of_five_doubles_calls_for_a_redeal():
    assert goat.calls_for_redeal((hand("2-2 3-3 4-4 5-5 6-6 4-5 4-6"), hand("0-1")))


def test_a_hand_of_four_doubles_does_not_call_for_a_redeal():
    assert not goat.calls_for_redeal((hand("2-2 3-3 4-4 5-5 0-6 4-5 4-6"), hand("0-1")))


def test_a_hand_with_six_tiles_showing_one_number_calls_for_a_redeal():
    assert goat.calls_for_redeal((hand("0-1"), hand("0-3 1-3 2-3 3-4 3-5 3-6 0-0")))


def test_a_double_counts_once_toward_six_tiles_showing_one_number():
    # 3 shows six times (3-3 twice) but on five tiles only.
    assert not goat.calls_for_redeal((hand("3-3 0-3 1-3 2-3 3-4 1-2 0-1"),))


def test_six_tiles_showing_one_number_with_its_double_call_for_a_redeal():
    assert goat.calls_for_redeal((hand("3-3 0-3 1-3 2-3 3-4 3-5 1-2"),))


def test_a_hand_of_five_doubles_is_redealt_with_the_redeal_option():
    assert start_round(new_match(KOZA4), FIVE_DOUBLES).round.outcome == "redeal"


def test_a_hand_with_six_tiles_showing_one_number_is_redealt_with_the_redeal_option():
    assert start_round(new_match(KOZA4), SIX_ZEROS).round.outcome == "redeal"


def test_gamezz_plays_a_hand_of_five_doubles_since_redeal_is_off():
    assert start_round(new_match(GAMEZZ4), FIVE_DOUBLES).round.outcome is None


def test_gamezz_with_the_redeal_option_redeals_a_hand_of_five_doubles():
    rules = rule_set("goat", "gamezz", seats=4, options={"redeal": True})
    assert start_round(new_match(rules), FIVE_DOUBLES).round.outcome == "redeal"


def test_koza_with_redeal_off_plays_a_hand_of_five_doubles():
    rules = rule_set("goat", "koza", seats=4, options={"redeal": False})
    assert start_round(new_match(rules), FIVE_DOUBLES).round.outcome is None


def test_doubles_in_the_bazaar_do_not_call_for_a_redeal():
    m = start_round(new_match(rule_set("goat", "koza", seats=2)), NO_DOUBLES)
    assert m.round.outcome is None


def test_a_redealt_round_is_recorded_with_its_deal_and_no_actions():
    m = start_round(new_match(KOZA4), FIVE_DOUBLES)
    assert m.results[-1].reason == "redeal" and m.round.dealt == FIVE_DOUBLES and m.round.actions() == []


def test_no_action_may_be_made_in_a_redealt_round():
    m = start_round(new_match(KOZA4), FIVE_DOUBLES)
    with pytest.raises(RoundOver):
        apply(m, play(t("1-1")))


def test_a_redealt_round_writes_nothing_and_changes_no_account():
    before = accounts((4, 0, 7, 0), (False, True, False, True))
    m = start_round(in_play(KOZA4, None, scores=(0, 30, 0, 44), before=before), FIVE_DOUBLES)
    assert m.results[-1].extras.written == (0, 0, 0, 0) and m.scores == (0, 30, 0, 44) and m.accounts == before


# --- remembered --------------------------------------------------------------------------


def test_gamezz_writes_every_round_score_since_remembered_is_off():
    written, _ = tally(GAMEZZ3, "domino", 0, "", "0-1", "1-2")
    assert written == (0, 1, 3)


def test_koza_score_of_twelve_is_remembered_not_written():
    written, after = tally(KOZA3, "domino", 0, "", "6-6", "1-2")
    assert written == (0, 0, 0) and after.remembered == (0, 12, 3)


def test_koza_score_of_thirteen_opens_the_account_and_writes_itself_plus_the_remembered_points():
    written, after = tally(KOZA3, "domino", 0, "", "6-6 0-1", "", before=accounts((0, 7, 0)))
    assert written == (0, 20, 0) and after.remembered == (0, 0, 0) and after.opened == (False, True, False)


def test_remembered_points_add_up_even_past_twelve():
    written, after = tally(KOZA3, "domino", 0, "", "6-6", "0-1", before=accounts((0, 12, 0)))
    assert written == (0, 0, 0) and after.remembered == (0, 24, 1)


def test_remembered_points_are_kept_per_side():
    written, after = tally(KOZA3, "domino", 0, "", "6-6 0-1", "1-2", before=accounts((0, 5, 5)))
    assert written == (0, 18, 0) and after.remembered == (0, 0, 8)


def test_once_a_sides_account_is_open_every_round_score_is_written():
    written, after = tally(KOZA3, "domino", 0, "", "0-1", "1-2", before=accounts((0, 0, 0), (False, True, False)))
    assert written == (0, 1, 0) and after.remembered == (0, 0, 3)


def test_the_side_that_went_out_loses_its_remembered_points():
    _, after = tally(KOZA3, "domino", 0, "", "0-1", "1-2", before=accounts((9, 4, 0)))
    assert after.remembered == (0, 5, 3)


def test_the_fisherman_side_loses_its_remembered_points():
    written, after = tally(KOZA3, "blocked", 0, "6-6", "0-1", "1-2", before=accounts((9, 4, 0)))
    assert written == (0, 0, 0) and after.remembered == (0, 5, 3)


def test_teams_the_side_that_went_out_treats_its_partners_pips_like_any_other_round_score():
    # Side 0 loses its 8 remembered, then its partner's 14 opens its account: it writes 14.
    written, after = tally(KOZA_TEAMS, "domino", 0, "", "0-1", "6-6 1-1", "0-2", before=accounts((8, 0)))
    assert written == (14, 0) and after.remembered == (0, 3) and after.opened == (True, False)


def test_teams_the_fishermans_side_remembers_its_partners_small_score_afresh():
    written, after = tally(KOZA_TEAMS, "blocked", 0, "6-6", "0-1", "2-3", "0-2", before=accounts((8, 0)))
    assert written == (0, 0) and after.remembered == (5, 3)


def test_gamezz_with_the_remembered_option_remembers_small_round_scores():
    rules = rule_set("goat", "gamezz", seats=3, options={"remembered": True})
    written, after = tally(rules, "domino", 0, "", "6-6", "1-2")
    assert written == (0, 0, 0) and after.remembered == (0, 12, 3)


def test_koza_with_remembered_off_writes_small_round_scores():
    rules = rule_set("goat", "koza", seats=3, options={"remembered": False})
    written, _ = tally(rules, "domino", 0, "", "6-6", "1-2")
    assert written == (0, 12, 3)


def test_koza_remembered_points_are_carried_by_the_match_from_round_to_round():
    m = in_play(KOZA3, position("3-4", "1-2", "0-1", left=1, right=5, turn=1))
    m = apply(m, play(t("1-2"), LEFT))
    assert m.scores == (0, 0, 0) and m.accounts.remembered == (7, 0, 1)
    m = apply(m._replace(round=position("6-6 0-2", "0-3", "2-3", left=2, right=5, turn=2)), play(t("2-3"), LEFT))
    assert m.scores == (21, 0, 0) and m.accounts.remembered == (0, 3, 0)


# --- fish ----------------------------------------------------------------------------------


def test_fish_all_every_side_writes_its_round_score_in_a_blocked_round():
    written, _ = tally(GAMEZZ3, "blocked", 0, "4-4", "6-6", "1-2")
    assert written == (0, 12, 3)


def test_fish_one_the_highest_round_score_writes_the_sum_of_all_round_scores():
    written, _ = tally(GAMEZZ3_FISH_ONE, "blocked", 0, "4-4", "6-6", "1-2")
    assert written == (0, 15, 0)


def test_fish_one_the_highest_side_adds_its_own_remembered_points_and_its_account_opens():
    written, after = tally(KOZA3_FISH_ONE, "blocked", 0, "4-4", "6-6", "1-2", before=accounts((0, 6, 0)))
    assert written == (0, 21, 0) and after.opened == (False, True, False)


def test_fish_one_every_other_side_writes_zero_and_loses_its_remembered_points():
    written, after = tally(KOZA3_FISH_ONE, "blocked", 0, "4-4", "6-6", "1-2", before=accounts((4, 6, 9)))
    assert written == (0, 21, 0) and after.remembered == (0, 0, 0)


def test_fish_one_does_not_change_the_scoring_of_a_domino_round():
    written, _ = tally(GAMEZZ3_FISH_ONE, "domino", 0, "", "6-6", "1-2")
    assert written == (0, 12, 3)


def test_teams_fish_one_the_team_with_the_highest_round_score_writes_the_sum():
    written, after = tally(KOZA_TEAMS_FISH_ONE, "blocked", 1, "6-6", "5-5", "0-1", "2-3")
    assert written == (18, 0) and after.opened == (True, False)


def test_teams_fish_one_the_fishermans_side_writes_the_sum_without_the_remembered_points_it_lost():
    # Seat 0 fishes; its partner's 6-6 makes side 0 the highest (12 against 3).
    written, after = tally(KOZA_TEAMS_FISH_ONE, "blocked", 0, "1-2", "0-1", "6-6", "0-2", before=accounts((8, 4)))
    assert written == (15, 0) and after.remembered == (0, 0) and after.opened == (True, False)


def test_fish_for_one_tie_carries_the_pot_to_the_next_round():
    written, after = tally(GAMEZZ3_FISH_ONE, "blocked", 0, "4-4", "6-6", "5-6 0-1")
    assert written == (0, 0, 0) and after.pot == 24


def test_fish_one_tie_remembers_no_round_score_and_sides_keep_their_remembered_points():
    _, after = tally(KOZA3_FISH_ONE, "blocked", 0, "4-4", "1-2", "0-3", before=accounts((0, 4, 5)))
    assert after.remembered == (0, 4, 5) and after.opened == (False, False, False)


def test_fish_one_tie_the_fisherman_side_loses_its_remembered_points():
    _, after = tally(KOZA3_FISH_ONE, "blocked", 0, "4-4", "1-2", "0-3", before=accounts((7, 4, 5)))
    assert after.remembered == (0, 4, 5)


def test_fish_one_with_a_carried_pot_the_highest_writes_the_sum_plus_the_pot():
    written, after = tally(GAMEZZ3_FISH_ONE, "blocked", 0, "4-4", "6-6", "1-2", before=accounts(pot=24))
    assert written == (0, 39, 0) and after.pot == 0


def test_fish_one_the_pot_is_added_to_what_the_highest_round_score_writes_next_round():
    written, after = tally(GAMEZZ3_FISH_ONE, "domino", 0, "", "6-6", "1-2", before=accounts(pot=24))
    assert written == (0, 36, 3) and after.pot == 0


def test_fish_one_the_pot_is_added_to_a_remembered_score_without_opening_the_account():
    written, after = tally(KOZA3_FISH_ONE, "domino", 0, "", "5-6", "1-2", before=accounts((0, 4, 0), pot=24))
    assert written == (0, 24, 0) and after.remembered == (0, 15, 3) and after.opened == (False, False, False)


def test_fish_one_the_pot_is_added_to_a_score_that_opens_the_account_with_the_remembered_points():
    written, after = tally(KOZA3_FISH_ONE, "domino", 0, "", "6-6 0-1", "1-2", before=accounts((0, 4, 0), pot=24))
    assert written == (0, 41, 0) and after.remembered == (0, 0, 3) and after.opened == (False, True, False)


def test_fish_one_equal_highest_again_in_a_blocked_round_carries_the_pot_grown_by_its_sum():
    written, after = tally(GAMEZZ3_FISH_ONE, "blocked", 0, "4-4", "6-6", "5-6 0-1", before=accounts(pot=24))
    assert written == (0, 0, 0) and after.pot == 48


def test_fish_one_equal_highest_again_in_a_domino_round_carries_the_pot_unchanged():
    written, after = tally(GAMEZZ3_FISH_ONE, "domino", 0, "", "6-6", "5-6 0-1", before=accounts(pot=24))
    assert written == (0, 12, 12) and after.pot == 24


def test_fish_one_the_match_carries_the_pot_of_a_tie_to_the_next_rounds_highest_score():
    # Round 1: 1-6 leaves ends 6 and 6 and nobody holds a 6: blocked, seats 1 and 2 tie at 7.
    m = in_play(GAMEZZ3_FISH_ONE, position("1-6 0-0", "3-4", "2-5", left=6, right=1, turn=0))
    m = apply(m, play(t("1-6"), RIGHT))
    assert m.scores == (0, 0, 0) and m.results[-1].extras.pot == 14
    m = apply(m._replace(round=position("0-1", "5-5", "1-2", left=1, right=5, turn=0)), play(t("0-1"), LEFT))
    assert m.results[-1].extras.written == (0, 24, 3) and m.accounts.pot == 0


def test_zero_zero_must_be_a_whole_number_not_a_float():
    with pytest.raises(BadOptions):
        rule_set("goat", "koza", options={"zero_zero": 10.0})


def test_options_that_are_not_named_values_are_refused():
    with pytest.raises(BadOptions):
        rule_set("goat", "koza", options=[("fish", "one")])
