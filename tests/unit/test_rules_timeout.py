"""docs/rules.md §1.6: what the server plays for a seat whose timer ran out."""

from services.rules.autoplay import timeout_move
from services.rules.moves import DRAW, LEFT, PASS, RIGHT, play
from services.rules.tiles import parse_tile as t

from .positions import position


def test_timeout_draws_while_the_seat_must_draw():
    rnd = position("0-0", "1-1", left=2, right=5, turn=0, boneyard="3-3")
    assert timeout_move(rnd) == DRAW


def test_timeout_plays_the_fitting_tile_of_highest_pip_sum():
    rnd = position("2-3 5-6 1-5 6-6", "1-1", left=2, right=5, turn=0)
    assert timeout_move(rnd) == play(t("5-6"), RIGHT)


def test_timeout_breaks_equal_sums_by_the_higher_pip():
    rnd = position("4-5 3-6 0-0", "1-1", left=4, right=6, turn=0)
    assert timeout_move(rnd) == play(t("3-6"), RIGHT)


def test_timeout_puts_a_tile_that_fits_both_ends_on_the_left():
    rnd = position("2-5 0-0", "1-1", left=2, right=5, turn=0)
    assert timeout_move(rnd) == play(t("2-5"), LEFT)


def test_timeout_passes_when_nothing_can_be_played_or_drawn():
    rnd = position("0-0", "1-1 2-2", left=2, right=5, turn=0)
    assert timeout_move(rnd) == PASS


def test_timeout_leads_with_the_required_tile():
    rnd = position("6-6 5-6", "1-1", left=-1, right=-1, turn=0)
    rnd.lead = t("6-6")
    assert timeout_move(rnd) == play(t("6-6"))
