"""docs/rules.md §2: All Fives ("straight dominoes"), rules: "all-fives".

Positions are built by playing real moves: ``line`` deals each listed play to the seat
that makes it (seats take turns from seat 0), and ``hands`` are what the seats hold besides.
"""

import pytest

from services.rules.autoplay import timeout_move
from services.rules.errors import BadDeal, BadOptions, MustDraw, MustPlay, TileDoesNotFit
from services.rules.fairness import chance_leader, fair_deal, round_key
from services.rules.match import apply, check_deal, new_match, start_round
from services.rules.moves import DOWN, DRAW, END_OF_NAME, LEFT, PASS, RIGHT, UP, legal_moves, play
from services.rules.rulesets import rule_set
from services.rules.scoring import round_to
from services.rules.spinner import SpinnerRound
from services.rules.state import Deal
from services.rules.tiles import mask_of, parse_tile as t
from services.rules.turns import take_turn

from .positions import tiles

SOLO2 = rule_set("all-fives", None, False, 2)
SOLO3 = rule_set("all-fives", None, False, 3)
SOLO4 = rule_set("all-fives", None, False, 4)
TEAMS = rule_set("all-fives", None, True, 4)


def mv(text: str):
    """A move written as "5-5" (a lead) or "0-5 left" (a play on a named end)."""
    parts = text.split()
    return play(t(parts[0]), END_OF_NAME[parts[1]] if len(parts) > 1 else None)


def line(*plays: str, hands: tuple[str, ...], boneyard: str = "", teams: bool = False) -> SpinnerRound:
    """The round, still in play, after ``plays`` made in turn by seats 0, 1, ...; play i's
    tile is dealt to seat i % len(hands), on top of what ``hands`` gives each seat."""
    seats = len(hands)
    dealt = [tiles(h) for h in hands]
    for i, p in enumerate(plays):
        dealt[i % seats].append(t(p.split()[0]))
    sides = tuple(s % 2 for s in range(seats)) if teams else tuple(range(seats))
    rnd = SpinnerRound(Deal(tuple(map(mask_of, dealt)), tuple(tiles(boneyard))), 0, -1, 0, sides)
    for p in plays:
        rnd = take_turn(rnd, mv(p))
    assert rnd.outcome is None, f"the position after {plays} is not in play"
    return rnd


def at(rnd: SpinnerRound, rules, scores: tuple[int, ...] | None = None, target: int | None = None):
    """A match of ``rules`` whose round in play is ``rnd``."""
    m = new_match(rules, target)
    return m._replace(round=rnd, scores=scores if scores is not None else m.scores)


def full_deal(rules, chance: int, *given: str) -> Deal:
    """A complete deal: seat i holds ``given[i]`` topped up with the lowest tiles nobody was
    given; the tiles left over are the boneyard, in ascending order."""
    named = [tiles(g) for g in given] + [[] for _ in range(rules.seats - len(given))]
    spare = [x for x in range(28) if all(x not in n for n in named)]
    hands = []
    for n in named:
        need = rules.hand_size - len(n)
        hands.append(mask_of(n + spare[:need]))
        spare = spare[need:]
    return Deal(tuple(hands), tuple(spare), -1, chance)


def seat0_goes_out(opponent: str):
    """Two seats; seat 0's last tile, 0-4, leaves ends 4 and 3 (no points in play)."""
    return line("0-1", "1-3 right", hands=("0-4", opponent))


def openings_of(deal: Deal, seat: int):
    return {play(x) for x in range(28) if deal.hands[seat] >> x & 1}


# ---- players, teams, boneyard, targets ----------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_all_fives_is_played_by_two_three_or_four_players_with_seven_tiles_each(seats):
    rules = rule_set("all-fives", None, None, seats)
    assert (rules.seats, rules.hand_size) == (seats, 7)
    check_deal(rules, full_deal(rules, 0))


@pytest.mark.parametrize("seats", [1, 5])
def test_all_fives_refuses_other_numbers_of_players(seats):
    with pytest.raises(BadOptions):
        rule_set("all-fives", None, None, seats)


def test_a_hand_of_other_than_seven_tiles_is_refused():
    good = full_deal(SOLO2, 0)
    short = Deal((good.hands[0] & ~(1 << t("0-0")), good.hands[1]), good.boneyard + (t("0-0"),), -1, 0)
    with pytest.raises(BadDeal):
        check_deal(SOLO2, short)


@pytest.mark.parametrize("seats,boneyard", [(2, 14), (3, 7), (4, 0)])
def test_the_undealt_tiles_are_the_boneyard_and_four_players_have_none(seats, boneyard):
    rules = rule_set("all-fives", None, None, seats)
    assert rules.draws and rules.undealt == boneyard
    assert len(full_deal(rules, 0).boneyard) == boneyard


def test_the_boneyard_is_drawn_in_its_fixed_order():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1 5-5 1-2")
    assert take_turn(rnd, DRAW).hands[1] == mask_of(tiles("3-3 4-4 1-1"))
    assert take_turn(take_turn(rnd, DRAW), DRAW).hands[1] == mask_of(tiles("3-3 4-4 1-1 5-5"))


def test_four_players_may_play_as_teams_0_2_against_1_3():
    assert TEAMS.teams and TEAMS.sides == 2
    assert [TEAMS.side_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_teams_are_a_host_option_four_players_may_play_solo():
    assert not SOLO4.teams and SOLO4.sides == 4


@pytest.mark.parametrize("seats", [2, 3])
def test_teams_only_with_four_players(seats):
    with pytest.raises(BadOptions):
        rule_set("all-fives", None, True, seats)


@pytest.mark.parametrize("target", [100, 150, 200, 250])
def test_the_host_may_choose_a_target_of_100_150_200_or_250(target):
    assert new_match(SOLO2, target).target == target


@pytest.mark.parametrize("target", [51, 101, 300])
def test_other_targets_are_refused(target):
    with pytest.raises(BadOptions):
        new_match(SOLO2, target)


def test_the_default_target_is_250():
    assert new_match(SOLO2).target == 250 and new_match(TEAMS).target == 250


# ---- who leads ----------------------------------------------------------------------------


def test_round_one_is_led_by_the_seat_drawn_by_chance():
    # Seat 0 holds 6-6; the chance seat, 2, leads all the same.
    deal = full_deal(SOLO4, 2, "6-6")
    assert start_round(new_match(SOLO4), deal).round.turn == 2


def test_the_seat_drawn_by_chance_may_lead_any_tile():
    deal = full_deal(SOLO4, 2, "6-6")
    m = start_round(new_match(SOLO4), deal)
    assert set(legal_moves(m.round)) == openings_of(deal, 2) and len(openings_of(deal, 2)) == 7


def test_the_chance_seat_comes_from_the_deals_seed():
    seed, clients = b"server seed", ["alice", "bob", "carol"]
    deal = fair_deal(SOLO3, seed, clients, 0)
    assert deal.chance == chance_leader(round_key(seed, clients, 0), 3)
    assert start_round(new_match(SOLO3), deal).round.turn == deal.chance


def solo3_blocked(seat1: str = "0-3", seat2: str = "3-4"):
    """Seat 2's 0-2 leaves ends 2 and 2 and nobody holds a 2: blocked. Seat 0 keeps 6-6."""
    rnd = line("0-1", "1-2 right", hands=("6-6", seat1, "0-2 " + seat2))
    return apply(at(rnd, SOLO3), mv("0-2 left"))


def test_after_a_won_round_the_winner_leads_the_next_round():
    m = solo3_blocked()  # seat 1 (3 pips) wins; seat 2 made the last play
    assert m.results[-1].winner == 1
    assert start_round(m, full_deal(SOLO3, 2)).round.turn == 1


def test_after_a_won_round_the_winner_may_lead_any_tile():
    deal = full_deal(SOLO3, 2)
    m = start_round(solo3_blocked(), deal)
    assert set(legal_moves(m.round)) == openings_of(deal, 1)


def test_a_round_won_for_no_points_after_rounding_is_not_a_tie_and_its_winner_leads():
    # Seat 0 goes out; seat 1 holds 0-2: 2 pips round to 0, but seat 0 still won the round.
    m = apply(at(seat0_goes_out("0-2"), SOLO2), mv("0-4 left"))
    assert (m.results[-1].winner, m.results[-1].points) == (0, 0)
    assert start_round(m, full_deal(SOLO2, 1)).round.turn == 0


def teams_domino():
    """Seat 2 goes out with 2-3. Left: seat 0 6-6 (12), seat 1 4-4 (8), seat 3 5-6 (11)."""
    rnd = line("0-1", "1-2 right", hands=("6-6", "4-4", "2-3", "5-6"), teams=True)
    return apply(at(rnd, TEAMS), mv("2-3 right"))


def test_teams_after_a_domino_the_player_who_went_out_leads():
    m = teams_domino()
    assert m.results[-1].reason == "domino"
    assert start_round(m, full_deal(TEAMS, 1)).round.turn == 2


def teams_blocked(seat0: str, seat1: str, seat2: str, seat3: str):
    """Seat 2's 0-2 leaves ends 2 and 2 and nobody holds a 2: blocked."""
    rnd = line("0-1", "1-2 right", hands=(seat0, seat1, "0-2 " + seat2, seat3), teams=True)
    return apply(at(rnd, TEAMS), mv("0-2 left"))


def test_teams_after_a_blocked_round_the_winning_partner_with_fewer_pips_leads():
    m = teams_blocked("3-3", "0-0", "1-3", "6-6")  # team 0: 6 + 4 = 10, team 1: 0 + 12
    assert m.results[-1].winner == 0
    assert start_round(m, full_deal(TEAMS, 1)).round.turn == 2


def test_teams_after_a_blocked_round_partners_with_equal_pips_the_lower_seat_leads():
    m = teams_blocked("3-3", "3-4", "1-5", "6-6")  # team 0: 6 + 6 = 12, team 1: 7 + 12
    assert m.results[-1].winner == 0
    assert start_round(m, full_deal(TEAMS, 3)).round.turn == 0


def test_after_a_tied_round_the_leader_is_chosen_by_chance_again():
    m = solo3_blocked(seat1="0-4", seat2="1-3")  # seats 1 and 2 both hold 4 pips
    assert m.results[-1].winner is None
    assert start_round(m, full_deal(SOLO3, 2)).round.turn == 2
    assert start_round(m, full_deal(SOLO3, 0)).round.turn == 0


# ---- the line and the spinner ---------------------------------------------------------------


def test_the_line_starts_with_the_first_tile():
    rnd = line("2-5", hands=("6-6", "1-2"))
    assert (rnd.left, rnd.right) == (2, 5) and rnd.spinner == -1


def test_left_and_right_are_the_two_ends_of_the_line():
    rnd = line("2-5", "5-6 right", "1-2 left", hands=("6-6", "1-1"))
    assert (rnd.left, rnd.right) == (1, 6)


def test_a_first_tile_double_is_the_spinner():
    rnd = line("4-4", hands=("6-6", "1-4"))
    assert rnd.spinner == 4 and (rnd.left, rnd.right) == (4, 4)


def test_the_first_double_played_later_is_the_spinner():
    rnd = line("2-4", "4-4 right", hands=("1-2 6-6", "1-1"))
    assert rnd.spinner == 4


def test_only_the_first_double_is_the_spinner():
    # 3-3 is the spinner; 6-6 on the right is not, so a tile played past it opens nothing.
    rnd = line("3-3", "3-6 right", "6-6 right", "1-6 right", hands=("0-0 3-5", "1-1"))
    assert rnd.spinner == 3 and rnd.up == rnd.down == -1
    assert legal_moves(rnd) == (play(t("3-5"), LEFT),)


def test_spinner_sides_open_only_after_both_ends_are_played_on():
    rnd = line("5-5", "0-5 left", hands=("2-5 6-6", "1-1"))
    assert rnd.up == rnd.down == -1
    rnd = take_turn(rnd, mv("2-5 right"))
    assert rnd.up == rnd.down == 5


def test_a_spinner_laid_on_an_end_opens_its_sides_after_one_more_tile_past_it():
    rnd = line("2-4", "4-4 right", "1-2 left", hands=("6-6", "4-6 1-1"))
    assert rnd.up == rnd.down == -1  # a tile on the other end does not open it
    rnd = take_turn(rnd, mv("4-6 right"))
    assert rnd.up == rnd.down == 4


def test_up_and_down_may_not_be_named_before_the_spinner_opens():
    rnd = line("5-5", "0-5 left", hands=("2-5 6-6", "1-1"))
    assert legal_moves(rnd) == (play(t("2-5"), RIGHT),)
    for end in (UP, DOWN):
        with pytest.raises(TileDoesNotFit):
            take_turn(rnd, play(t("2-5"), end))


def test_up_and_down_may_not_be_named_while_no_double_is_played():
    rnd = line("2-5", hands=("6-6", "1-1 5-6"))
    with pytest.raises(TileDoesNotFit):
        take_turn(rnd, play(t("5-6"), UP))


def test_once_open_up_and_down_take_tiles_that_show_the_spinners_number():
    rnd = line("5-5", "0-5 left", "2-5 right", hands=("6-6", "1-1 3-5"))
    assert set(legal_moves(rnd)) == {play(t("3-5"), UP), play(t("3-5"), DOWN)}
    after = take_turn(rnd, play(t("3-5"), UP))
    assert (after.up, after.down) == (3, 5)


# ---- counting the ends ----------------------------------------------------------------------


def test_a_lone_first_tile_counts_its_two_numbers_once():
    rnd = line("4-6", hands=("0-0", "1-4"))
    assert rnd.total == 10 and rnd.play_points == ((0, 0, 10),)


def test_a_lone_double_counts_ten_not_twenty():
    rnd = line("5-5", hands=("0-0", "1-5"))
    assert rnd.total == 10 and rnd.play_points == ((0, 0, 10),)


def test_left_and_right_always_count():
    rnd = line("1-2", "2-4 right", hands=("0-1", "6-6"))
    assert rnd.total == 1 + 4 and rnd.play_points[-1] == (1, 1, 5)


def test_an_end_shows_the_outer_number_of_its_last_tile():
    rnd = line("1-2", "2-6 right", hands=("1-3", "3-3"))
    assert rnd.total == 1 + 6 and rnd.play_points == ()


def test_an_outer_double_counts_both_halves():
    # 0-0 is the spinner; 5-5 on the left is not, and it counts 10.
    rnd = line("0-0", "0-5 left", "5-5 left", hands=("6-6", "1-1 0-2"))
    assert rnd.total == 10 + 0 and rnd.play_points[-1] == (2, 0, 10)


def test_a_spinner_with_an_open_side_of_its_own_counts_both_halves_for_that_side():
    rnd = line("5-5", "0-5 left", hands=("5-6", "1-1"))
    assert rnd.total == 0 + 10 and rnd.play_points[-1] == (1, 1, 10)


def test_a_spinner_laid_on_an_end_counts_both_halves_until_a_tile_is_played_past_it():
    rnd = line("2-4", "4-4 right", hands=("1-4 6-6", "1-1"))
    assert rnd.total == 2 + 8
    assert take_turn(rnd, mv("1-4 right")).total == 2 + 1


def test_up_and_down_count_only_once_a_tile_is_played_on_them():
    rnd = line("5-5", "0-5 left", "2-5 right", hands=("6-6", "1-1 3-5"))
    assert rnd.total == 0 + 2  # open, but nothing on them yet
    after = take_turn(rnd, mv("3-5 up"))
    assert after.total == 0 + 2 + 3 and after.play_points[-1] == (3, 1, 5)


def test_a_sum_that_is_not_a_multiple_of_five_scores_nothing():
    rnd = line("3-6", hands=("0-0", "1-3"))
    assert rnd.total == 9 and rnd.play_points == ()


def test_a_sum_of_zero_scores_nothing():
    m = apply(at(line(hands=("0-0 1-1", "0-3")), SOLO2), mv("0-0"))
    assert m.round.total == 0 and m.round.play_points == () and m.scores == (0, 0)


def test_open_ends_summing_to_a_multiple_of_five_score_at_once_for_the_players_side():
    deal = full_deal(TEAMS, 2, "", "", "5-5")
    m = apply(start_round(new_match(TEAMS), deal), mv("5-5"))
    assert m.round.outcome is None and m.scores == (10, 0)  # seat 2 scores for team 0+2


def test_solo_the_player_who_makes_a_multiple_of_five_scores_it_at_once():
    # Seat 2's 0-1 leaves ends 0 and 5: seat 2 alone scores 5.
    m = apply(at(line("1-2", "2-5 right", hands=("6-6", "0-0", "0-1 3-3")), SOLO3), mv("0-1 left"))
    assert m.round.outcome is None and m.scores == (0, 0, 5)


def test_the_last_play_of_a_round_still_scores_its_open_ends():
    # Seat 0 goes out with 0-2: ends 2 + 3 = 5 in play, then 4-6 = 10 for the domino.
    m = apply(at(line("0-1", "1-3 right", hands=("0-2", "4-6")), SOLO2), mv("0-2 left"))
    assert m.results[-1].extras.play_points[-1] == (2, 0, 5) and m.scores == (15, 0)


# ---- a turn ---------------------------------------------------------------------------------


def test_a_seat_that_can_play_must_play():
    rnd = line("0-2", hands=("6-6", "2-3 4-4"), boneyard="1-1")
    assert legal_moves(rnd) == (play(t("2-3"), RIGHT),)
    for move in (DRAW, PASS):
        with pytest.raises(MustPlay):
            take_turn(rnd, move)


def test_a_seat_whose_tile_fits_only_up_or_down_must_play_it():
    rnd = line("5-5", "0-5 left", "2-5 right", hands=("6-6", "1-1 3-5"), boneyard="4-4")
    with pytest.raises(MustPlay):
        take_turn(rnd, DRAW)


def test_a_seat_that_cannot_play_draws_one_tile_at_a_time_until_it_can_then_must_play():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1 1-2 5-5")
    assert legal_moves(rnd) == (DRAW,)
    rnd = take_turn(rnd, DRAW)
    assert rnd.turn == 1 and rnd.drawn == 1 and legal_moves(rnd) == (DRAW,)
    rnd = take_turn(rnd, DRAW)
    assert rnd.turn == 1 and legal_moves(rnd) == (play(t("1-2"), RIGHT),)
    with pytest.raises(MustPlay):
        take_turn(rnd, DRAW)


def test_with_the_boneyard_empty_and_nothing_fitting_the_only_move_is_a_forced_pass():
    rnd = line("0-2", hands=("2-6", "3-3 4-4"))
    assert legal_moves(rnd) == (PASS,)
    after = take_turn(rnd, PASS)
    assert after.turn == 0 and after.actions()[-1] == (1, PASS)


def test_no_pass_while_the_boneyard_has_tiles():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1")
    with pytest.raises(MustDraw):
        take_turn(rnd, PASS)


def test_a_play_that_leaves_no_seat_a_move_on_any_of_the_four_ends_blocks_the_round_at_once():
    # After 2-5: ends left 0, right 2, up 5, down 5; seat 0 keeps 6-6, seat 1 3-4.
    rnd = line("5-5", "0-5 left", hands=("2-5 6-6", "3-4"))
    after = take_turn(rnd, mv("2-5 right"))
    assert after.outcome == "blocked" and legal_moves(after) == ()


def test_the_round_is_not_blocked_while_a_seat_can_play_on_up_or_down():
    rnd = line("5-5", "0-5 left", hands=("2-5 6-6", "4-5"))
    after = take_turn(rnd, mv("2-5 right"))
    assert after.outcome is None
    assert set(legal_moves(after)) == {play(t("4-5"), UP), play(t("4-5"), DOWN)}


def test_drawing_the_last_tile_blocks_the_round_when_no_seat_can_play():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1")
    assert take_turn(rnd, DRAW).outcome == "blocked"


def test_the_round_is_not_blocked_while_the_boneyard_has_tiles():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1 5-5")
    assert take_turn(rnd, DRAW).outcome is None


def test_timeout_draws_while_the_seat_must():
    rnd = line("0-2", hands=("6-6", "3-3 4-4"), boneyard="1-1")
    assert timeout_move(rnd) == DRAW


def test_timeout_plays_the_fitting_tile_of_highest_pip_sum_before_any_end_order():
    # Ends: left 0, right 2, up 5, down 5. 4-5 (9 pips, up/down) beats 0-1 (left).
    rnd = line("5-5", "0-5 left", "2-5 right", hands=("6-6", "0-1 4-5"))
    assert timeout_move(rnd) == play(t("4-5"), UP)


def test_timeout_passes_when_nothing_can_be_played_or_drawn():
    rnd = line("0-2", hands=("2-6", "3-3 4-4"))
    assert timeout_move(rnd) == PASS


FOUR_FIVES = ("5-5", "0-5 left", "5-6 right", "0-1 left", "3-6 right", "1-5 left", "3-5 right")


def test_timeout_prefers_left_over_right_up_and_down():
    rnd = line(*FOUR_FIVES, hands=("6-6", "0-0 4-5"))
    assert (rnd.left, rnd.right, rnd.up, rnd.down) == (5, 5, 5, 5)
    assert timeout_move(rnd) == play(t("4-5"), LEFT)


def test_timeout_prefers_right_over_up_and_down():
    rnd = line(*FOUR_FIVES[:5], "1-2 left", "3-5 right", hands=("6-6", "0-0 4-5"))
    assert (rnd.left, rnd.right, rnd.up, rnd.down) == (2, 5, 5, 5)
    assert timeout_move(rnd) == play(t("4-5"), RIGHT)


def test_timeout_prefers_up_over_down():
    rnd = line("5-5", "0-5 left", "5-6 right", hands=("6-6", "0-0 4-5"))
    assert (rnd.left, rnd.right, rnd.up, rnd.down) == (0, 6, 5, 5)
    assert timeout_move(rnd) == play(t("4-5"), UP)


# ---- round end ------------------------------------------------------------------------------


@pytest.mark.parametrize("pips,points", [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5),
                                         (8, 10), (9, 10), (12, 10), (13, 15)])
def test_round_end_points_round_to_the_nearest_five(pips, points):
    assert round_to(pips, 5) == points


def test_solo_domino_scores_every_other_hand_rounded_to_five():
    # Seat 0 goes out; seat 1 holds 6-6 (12), seat 2 holds 1-1 (2): 14 -> 15.
    rnd = line("0-1", "1-2 right", "2-3 right", hands=("0-4", "6-6", "1-1"))
    m = apply(at(rnd, SOLO3), mv("0-4 left"))
    last = m.results[-1]
    assert (last.reason, last.winner, last.points) == ("domino", 0, 15) and m.scores == (15, 0, 0)


def test_teams_domino_scores_only_the_other_teams_two_hands_rounded_to_five():
    m = teams_domino()  # seats 1 and 3: 8 + 11 = 19 -> 20; partner seat 0's 12 does not count
    last = m.results[-1]
    assert (last.winner, last.points) == (0, 20) and m.scores == (20, 0)


def test_solo_blocked_round_the_lowest_hand_scores_the_others_pips_rounded():
    m = solo3_blocked()  # seat 0: 12, seat 1: 3, seat 2: 7 -> seat 1 scores 19 -> 20
    last = m.results[-1]
    assert (last.reason, last.winner, last.points) == ("blocked", 1, 20) and m.scores == (0, 20, 0)


def test_teams_blocked_round_the_lower_team_total_scores_the_other_teams_pips_rounded():
    # Seat 1 holds the lowest hand (0-0), but team 0's total (6 + 4) is lower than team 1's (0 + 12).
    m = teams_blocked("3-3", "0-0", "1-3", "6-6")
    last = m.results[-1]
    assert (last.reason, last.winner, last.points) == ("blocked", 0, 10) and m.scores == (10, 0)


def test_solo_blocked_round_with_equal_lowest_hands_is_a_tie():
    m = solo3_blocked(seat1="0-4", seat2="1-3")
    last = m.results[-1]
    assert (last.reason, last.winner, last.points) == ("blocked", None, 0) and m.scores == (0, 0, 0)


def test_teams_blocked_round_with_equal_team_totals_is_a_tie():
    m = teams_blocked("3-3", "0-4", "1-3", "0-6")  # 6 + 4 against 4 + 6
    last = m.results[-1]
    assert (last.winner, last.points) == (None, 0) and m.scores == (0, 0)


# ---- match end ------------------------------------------------------------------------------


def test_points_scored_in_play_do_not_end_the_match_before_the_round_ends():
    m = apply(at(line(hands=("5-5 0-1", "3-5")), SOLO2, scores=(95, 0), target=100), mv("5-5"))
    assert m.scores == (105, 0)
    assert m.round.outcome is None and not m.over and m.winner is None


def test_the_match_ends_at_the_end_of_a_round_in_which_a_side_reached_the_target():
    m = apply(at(seat0_goes_out("4-6"), SOLO2, scores=(95, 0), target=100), mv("0-4 left"))
    assert m.scores == (105, 0) and m.over and m.winner == 0


def test_when_one_side_reached_the_target_the_highest_total_wins():
    m = apply(at(seat0_goes_out("4-6"), SOLO2, scores=(110, 95), target=100), mv("0-4 left"))
    assert m.scores == (120, 95) and m.over and m.winner == 0


def test_when_several_sides_reached_the_target_the_highest_total_wins_not_the_rounds_winner():
    m = apply(at(seat0_goes_out("4-6"), SOLO2, scores=(100, 115), target=100), mv("0-4 left"))
    assert m.scores == (110, 115) and m.over and m.winner == 1


def test_equal_highest_totals_at_the_target_play_another_round():
    m = apply(at(seat0_goes_out("4-6"), SOLO2, scores=(100, 110), target=100), mv("0-4 left"))
    assert m.scores == (110, 110) and not m.over and m.winner is None
    assert start_round(m, full_deal(SOLO2, 1)).round.outcome is None
