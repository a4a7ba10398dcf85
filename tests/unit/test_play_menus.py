"""Menus whose choices are numbers (seats, targets, turn timers, seat numbers): a typed number
is the number itself, never an option's position, and the question lists the numbers as they
are typed; the turn timer is asked in the menus, among the values the server allows."""

from __future__ import annotations

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.cli.play import _check_strength_and_timer
from services.client import menu
from services.client.families import Setup

from .test_play_lobby import menu_calls
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def test_in_the_seat_menu_1_is_refused_and_2_3_4_are_the_seat_counts():
    seats = ["2", "3", "4"]
    assert [menu.pick(typed, seats) for typed in ("1", "2", "3", "4")] == [None, "2", "3", "4"]
    assert menu.question("Seats", seats, "4") == "Seats  2, 3 or 4  [4]"
    assert menu.unclear(seats) == "Please answer 2, 3 or 4."


def test_a_menu_of_words_still_takes_an_options_position():
    assert menu.pick("2", ["teams", "solo"]) == "solo"
    assert menu.question("Play", ["teams", "solo"], "solo") == "Play  1) teams  2) solo  [solo]"


@given(st.lists(st.integers(0, 400), min_size=1, max_size=6, unique=True), st.integers(0, 500))
def test_a_typed_number_picks_that_number_or_nothing_in_any_menu_of_numbers(values, typed):
    choices = [str(v) for v in values]
    assert menu.pick(str(typed), choices) == (str(typed) if typed in values else None)


def test_typing_1_for_the_seat_count_asks_again_instead_of_choosing_2_seats(tmp_path):
    calls, text = menu_calls(["1", "all-fives", "1", "3", "", "", ""], tmp_path)
    assert calls == [("practice", Setup("all-fives", "", 3, None, 250), "greedy", 45)]
    assert "Please answer 2, 3 or 4." in text


def test_the_turn_timer_is_chosen_for_practice_among_the_servers_values(tmp_path):
    calls, text = menu_calls(["1", "classic", "2", "", "1", "90", ""], tmp_path)
    assert calls == [("practice", Setup("classic", "", 2, None, 100), "greedy", 90)]
    assert "Turn timer  30, 45, 60, 90 or 0 seconds (0: no limit)  [45]:" in text
    assert "Please answer 30, 45, 60, 90 or 0." in text  # 1 is no position here either


def test_a_room_may_be_created_with_no_turn_timer(tmp_path):
    calls, _ = menu_calls(["3", "classic", "2", "", "0", "q"], tmp_path)
    assert calls[0] == ("create", Setup("classic", "", 2, None, 100), 0, None)


def test_sports_times_each_move_itself_so_no_turn_timer_is_asked(tmp_path):
    calls, text = menu_calls(["1", "sports", "", ""], tmp_path)
    assert calls == [("practice", Setup("sports", target=200), "greedy", None)] and "Turn timer" not in text


def test_a_turn_timer_or_bots_the_server_does_not_offer_are_refused_on_the_command_line():
    """`domino play` holds no list of its own: --turn-timer and --bots are checked against
    what DescribeRules said, once connected."""
    with pytest.raises(click.UsageError, match=r"--turn-timer 75: this server's turn timers are 30, 45, 60, 90, 0"):
        _check_strength_and_timer(Setup("classic"), None, 75)
    with pytest.raises(click.UsageError, match=r"--bots wizard: this server's bots for Classic are "):
        _check_strength_and_timer(Setup("classic"), "wizard", None)
    _check_strength_and_timer(Setup("classic"), "greedy", 90)  # both offered
