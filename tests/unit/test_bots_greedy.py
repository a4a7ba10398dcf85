"""The greedy strategy's rule in each family (services/bots/simple.py): All Fives scores
what it can now, Goat sheds the heaviest tile, the others play the heaviest tile; the
move-list chooser ``SIMPLE["greedy"]`` stays §1.6's timeout choice."""

from __future__ import annotations

import random

import pytest

from services.bots.simple import SIMPLE
from services.bots.strategies import STRATEGIES
from services.rules.autoplay import timeout_move
from services.rules.match import apply, new_match, start_round
from services.rules.moves import LEFT, RIGHT, play
from services.rules.rulesets import rule_set
from services.rules.state import Deal
from services.rules.tiles import mask_of
from services.rules.view import player_view
from tests.support.families import Table, params, smallest_tables

from .positions import tiles

GREEDY = STRATEGIES["greedy"]


def started(rules, *given: str, chance: int = 0):
    """A match with round 1 in play: seat i holds ``given[i]`` topped up with the lowest
    tiles nobody was given; the tiles left over are the boneyard, ascending."""
    named = [tiles(g) for g in given] + [[] for _ in range(rules.seats - len(given))]
    spare = [x for x in range(28) if all(x not in n for n in named)]
    hands = []
    for n in named:
        need = rules.hand_size - len(n)
        hands.append(mask_of(n + spare[:need]))
        spare = spare[need:]
    return start_round(new_match(rules), Deal(tuple(hands), tuple(spare), -1, chance))


def tile_move(text: str, end: int | None):
    return play(tiles(text)[0], end)


def all_fives_after(lead: str, seat0: str, seat1: str):
    """All Fives, two seats: seat 0, drawn by chance, led ``lead``; the view of seat 1."""
    m = started(rule_set("all-fives", None, None, 2), seat0, seat1)
    return player_view(apply(m, tile_move(lead, None)), 1)


# Seat 0 leads 5-1: ends 1 (left) and 5 (right). Seat 1's other tiles (0-0 0-2 0-3 0-4 2-2)
# fit neither end.
SEAT0 = "5-1 6-6 4-6 3-6 2-6 3-5 2-5"
REST = "0-0 0-2 0-3 2-2"


def test_greedy_in_all_fives_takes_the_play_that_scores_most_now():
    # 0-1 on the left leaves 0 + 5 = 5: five points; the heavier 5-6 on the right leaves 1 + 6.
    view = all_fives_after("5-1", SEAT0, "0-1 5-6 0-4 " + REST)
    assert GREEDY(view, random.Random(0)) == tile_move("0-1", LEFT)
    assert SIMPLE["greedy"](view.legal_moves, random.Random(0)) == tile_move("5-6", RIGHT)


def test_greedy_in_all_fives_breaks_equal_points_by_the_heaviest_tile():
    # 0-1 left (0 + 5) and 4-5 right (1 + 4) both score 5: the heavier 4-5; 5-6 scores nothing.
    view = all_fives_after("5-1", SEAT0, "0-1 4-5 5-6 " + REST)
    assert GREEDY(view, random.Random(0)) == tile_move("4-5", RIGHT)


def test_greedy_in_all_fives_plays_the_heaviest_tile_when_nothing_scores():
    # 5-6 right leaves 1 + 6, 1-3 left leaves 3 + 5.
    view = all_fives_after("5-1", SEAT0, "1-3 5-6 0-4 " + REST)
    assert GREEDY(view, random.Random(0)) == tile_move("5-6", RIGHT)


def heaviest_choice_view(table: Table):
    """Seat 1's view after seat 0 led 6-6 (round 1's forced lead where the family has one:
    no hand holds 1-1 ... 5-5; else seat 0 is drawn by chance); seat 1 holds 6-1, 6-4, 6-2."""
    rules = table.build()
    m = started(rules, "6-6 0-1 0-2 0-3 0-4 1-2 1-3", "6-1 6-4 6-2 0-0 2-3 2-4 3-4")
    return player_view(apply(m, tile_move("6-6", None)), 1)


@pytest.mark.parametrize("table", params(smallest_tables(lambda rules: not rules.four_ends)))
def test_greedy_outside_all_fives_plays_the_heaviest_fitting_tile(table):
    view = heaviest_choice_view(table)
    assert GREEDY(view, random.Random(0)) == tile_move("6-4", LEFT)


def test_simple_greedy_is_still_the_timeout_choice_in_all_fives():
    m = started(rule_set("all-fives", None, None, 2), SEAT0, "0-1 5-6 0-4 " + REST)
    m = apply(m, tile_move("5-1", None))
    assert SIMPLE["greedy"](player_view(m, 1).legal_moves, random.Random(0)) == timeout_move(m.round)
