"""docs/rules.md §1.2 (the line) and §1.3 (a turn)."""

import pytest

from services.rules.errors import (
    CannotDraw, EndRequired, MustDraw, MustPlay, NotYourTurn, RoundOver, TileDoesNotFit, TileNotHeld, WrongLead,
)
from services.rules.moves import DRAW, LEFT, PASS, RIGHT, legal_moves, play
from services.rules.tiles import parse_tile as t
from services.rules.turns import take_turn

from .positions import hand, position


def test_first_tile_opens_both_ends_low_on_the_left():
    rnd = position("2-5 0-0", "1-1", left=-1, right=-1, turn=0)
    after = take_turn(rnd, play(t("2-5")))
    assert (after.left, after.right) == (2, 5)


def test_a_double_first_opens_both_ends_with_its_number():
    rnd = position("4-4 0-0", "1-1", left=-1, right=-1, turn=0)
    after = take_turn(rnd, play(t("4-4")))
    assert (after.left, after.right) == (4, 4)


def test_a_tile_played_on_an_end_turns_that_end_into_its_other_number():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0)
    after = take_turn(rnd, play(t("2-6"), LEFT))
    assert (after.left, after.right) == (6, 5)


def test_doubles_extend_the_line_like_any_tile():
    rnd = position("5-5 0-0", "1-1", left=2, right=5, turn=0)
    after = take_turn(rnd, play(t("5-5"), RIGHT))
    assert (after.left, after.right) == (2, 5)
    assert after.turn == 1


def test_a_tile_that_fits_both_ends_goes_where_the_player_says():
    rnd = position("2-5 0-0", "1-1", left=2, right=5, turn=0)
    assert play(t("2-5"), LEFT) in legal_moves(rnd) and play(t("2-5"), RIGHT) in legal_moves(rnd)
    assert (take_turn(rnd, play(t("2-5"), LEFT)).left, take_turn(rnd, play(t("2-5"), RIGHT)).right) == (5, 2)


def test_a_tile_that_does_not_fit_the_named_end_is_refused():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0)
    with pytest.raises(TileDoesNotFit):
        take_turn(rnd, play(t("2-6"), RIGHT))


def test_a_play_after_the_first_must_name_its_end():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0)
    with pytest.raises(EndRequired):
        take_turn(rnd, play(t("2-6")))


def test_a_tile_not_held_cannot_be_played():
    rnd = position("2-6 0-0", "1-1 2-3", left=2, right=5, turn=0)
    with pytest.raises(TileNotHeld):
        take_turn(rnd, play(t("2-3"), LEFT))


def test_playing_out_of_turn_is_refused():
    rnd = position("2-6 0-0", "1-1 2-3", left=2, right=5, turn=0)
    with pytest.raises(NotYourTurn):
        take_turn(rnd, play(t("2-3"), LEFT), seat=1)


def test_a_seat_holding_a_fitting_tile_must_play_one():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0, boneyard="3-3 4-4")
    assert legal_moves(rnd) == (play(t("2-6"), LEFT),)
    with pytest.raises(MustPlay):
        take_turn(rnd, PASS)
    with pytest.raises(MustPlay):
        take_turn(rnd, DRAW)


def test_draw2_seat_without_a_fitting_tile_draws_the_next_boneyard_tile():
    rnd = position("0-0 0-1", "1-1", left=2, right=5, turn=0, boneyard="3-3 2-4 4-4")
    assert legal_moves(rnd) == (DRAW,)
    after = take_turn(rnd, DRAW)
    assert after.hands[0] == hand("0-0 0-1 3-3") and after.drawn == 1 and after.turn == 0


def test_draw2_draws_until_a_tile_fits_then_must_play_it():
    rnd = position("0-0 0-1", "1-1", left=2, right=5, turn=0, boneyard="3-3 2-4 4-4")
    rnd = take_turn(take_turn(rnd, DRAW), DRAW)
    assert legal_moves(rnd) == (play(t("2-4"), LEFT),)
    with pytest.raises(MustPlay):
        take_turn(rnd, DRAW)


def test_a_seat_that_cannot_play_or_draw_has_only_the_forced_pass():
    rnd = position("0-0 0-1", "2-3", left=2, right=5, turn=0)
    assert legal_moves(rnd) == (PASS,)
    assert take_turn(rnd, PASS).turn == 1


def test_no_pass_while_the_boneyard_has_tiles():
    rnd = position("0-0 0-1", "2-3", left=2, right=5, turn=0, boneyard="1-1")
    with pytest.raises(MustDraw):
        take_turn(rnd, PASS)


def test_no_draw_in_a_block_game():
    rnd = position("0-0 0-1", "2-3", left=2, right=5, turn=0)
    with pytest.raises(CannotDraw):
        take_turn(rnd, DRAW)


def test_the_round_ends_blocked_at_once_when_a_play_leaves_no_seat_a_move():
    # After 5-6 on the right the ends are 2 and 6: nobody holds a 2 or a 6.
    rnd = position("5-6 0-0", "1-1", "3-3", left=2, right=5, turn=0)
    after = take_turn(rnd, play(t("5-6"), RIGHT))
    assert after.outcome == "blocked" and legal_moves(after) == ()


def test_the_round_is_not_blocked_while_the_boneyard_has_tiles():
    rnd = position("5-6 0-0", "1-1", left=2, right=5, turn=0, boneyard="3-3")
    assert take_turn(rnd, play(t("5-6"), RIGHT)).outcome is None


def test_drawing_the_last_tile_blocks_the_round_when_no_seat_can_play():
    rnd = position("0-0", "1-1", left=2, right=5, turn=0, boneyard="3-3")
    assert take_turn(rnd, DRAW).outcome == "blocked"


def test_drawing_the_last_tile_does_not_block_while_some_seat_can_play():
    rnd = position("0-0", "1-2", left=2, right=5, turn=0, boneyard="3-3")
    after = take_turn(rnd, DRAW)
    assert after.outcome is None and legal_moves(after) == (PASS,)


def test_playing_the_last_tile_is_a_domino():
    rnd = position("2-6", "1-1", left=2, right=5, turn=0)
    assert take_turn(rnd, play(t("2-6"), LEFT)).outcome == "domino"


def test_nothing_may_be_played_after_the_round_ends():
    rnd = take_turn(position("2-6", "1-1 1-2", left=2, right=5, turn=0), play(t("2-6"), LEFT))
    with pytest.raises(RoundOver):
        take_turn(rnd, play(t("1-2"), LEFT))


def test_a_refused_move_changes_nothing():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0)
    before = (list(rnd.hands), rnd.left, rnd.right, rnd.turn, rnd.history)
    with pytest.raises(TileDoesNotFit):
        take_turn(rnd, play(t("2-6"), RIGHT))
    assert (list(rnd.hands), rnd.left, rnd.right, rnd.turn, rnd.history) == before


def test_take_turn_leaves_the_round_it_was_given_untouched():
    rnd = position("2-6 0-0", "1-1", left=2, right=5, turn=0)
    take_turn(rnd, play(t("2-6"), LEFT))
    assert rnd.hands[0] == hand("2-6 0-0") and rnd.left == 2 and rnd.history is None


def test_a_round_that_must_be_led_with_a_tile_refuses_another_lead():
    rnd = position("6-6 2-3", "1-1", left=-1, right=-1, turn=0)
    rnd.lead = t("6-6")
    assert legal_moves(rnd) == (play(t("6-6")),)
    with pytest.raises(WrongLead):
        take_turn(rnd, play(t("2-3")))
