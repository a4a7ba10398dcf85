"""The game screen within the terminal (services/client/layout.py, compact.py, wrapping.py):
a 50x20 terminal showed no board (the screen scrolled it off the top), and long lines broke
mid-word at the left edge. Rendered at 50x20, 80x24 and 120x40 for the tallest tables."""

from __future__ import annotations

import pytest
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from services.client import render
from services.client.view_reading import RIGHT
from tests.unit.test_play_core import NOW, view
from tests.unit.test_play_families import all_fives, goat
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

SIZES = [(50, 20), (80, 24), (120, 40)]
MESSAGE = ("The server refused: display_name must be 3-20 characters long, and a message as long as this one "
           "wraps at the edge of any terminal it is shown on")
TALK = Text("Table talk  bot greedy 1: good game · bob-the-long-named: thanks", style="dim")


def busy(v: pb.MatchView) -> pb.MatchView:
    """Four seats in teams, a long name, ten turns played."""
    v.teams = True
    del v.seats[:]
    for n, player in enumerate(("ann", "bot:greedy:1", "bob-the-long-named", "bot:strong:3")):
        v.seats.add(player_id=player, tile_count=5 + n % 2)
    del v.scores[:]
    v.scores.extend([30, 45])
    for n in range(10):
        v.round_actions.add(seat=n % 4, kind=pb.MOVE_KIND_PLAY, tile=pb.Tile(low=1, high=2), end=RIGHT,
                            cause=pb.MOVE_CAUSE_TIMEOUT if n == 9 else pb.MOVE_CAUSE_SEAT)
    return v


TABLES = {
    "block-4 teams": lambda: busy(view(variant="block-4", hand=((6, 4), (3, 3), (5, 1), (2, 2), (6, 0), (4, 1)),
                                       line=((6, 6), (6, 3), (3, 1), (1, 5), (5, 5), (5, 2), (2, 0)),
                                       legal=[("play", (6, 4), RIGHT)])),
    "all fives teams": lambda: busy(all_fives()),
    "goat": lambda: busy(goat(legal=[("play", (6, 4), RIGHT)])),
}


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("table", TABLES)
def test_the_whole_table_fits_the_terminal_with_the_line_the_hand_and_the_countdown(table, width, height):
    screen = render.to_text(render.game_screen(TABLES[table](), NOW, MESSAGE, talk=TALK, width=width,
                                               height=height), width=width)
    lines = screen.splitlines()
    assert len(lines) <= height - 1  # the prompt's line below
    assert all(len(line) <= width for line in lines)
    assert "◀" in screen and "▶" in screen  # the line of tiles
    assert "Your hand" in screen and "Your turn — 30 s left." in screen and "30 s left" in screen
    assert "wraps at" in screen and "terminal" in screen  # the message, all of it
    assert "the table needs" not in screen


def test_more_room_shows_more_of_the_last_moves():
    def moves(width, height):
        screen = render.to_text(render.game_screen(TABLES["block-4 teams"](), NOW, width=width, height=height),
                                width=width)
        return screen[screen.index("Last moves"):screen.index("Your hand")].count("[2|1]")

    assert moves(50, 20) <= moves(80, 24) <= moves(120, 40) == 6


def test_a_terminal_too_small_for_the_table_is_told_the_size_it_needs():
    screen = render.to_text(render.game_screen(TABLES["block-4 teams"](), NOW, width=40, height=12), width=40)
    assert "This terminal is 40x12; the table needs at least 50x20." in " ".join(screen.split())
    assert screen.rstrip().endswith("50x20.")  # last, where a terminal that scrolled still shows it


def test_a_long_message_wraps_between_words_and_its_continuation_lines_are_indented():
    screen = render.to_text(render.game_screen(TABLES["goat"](), NOW, MESSAGE, width=120, height=40), width=120)
    start = screen.index("The server refused")
    first, second = screen[start:].splitlines()[:2]
    assert second.startswith("  ") and not second.startswith("   ")
    assert first.split()[-1] + " " + second.split()[0] in MESSAGE  # broken between two words
