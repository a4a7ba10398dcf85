"""The host changes a room's options from `domino play`'s lobby, typed as the lobby's own hint
says, against a real matchmaking service (and its real match service): another family takes
its default variant and keeps the options that still apply, a variant of another family is
refused with the command that chooses it, and every change is said in one line."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from services.client.api import MatchApi, MatchmakingApi
from services.client.app import App, Choices
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from tests.support.keys import token

from .matchmaking_harness import running_system


@pytest.fixture
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


def lobby(system, tmp_path, lines: list[str], **choices) -> tuple[str, object]:
    """ann creates a room with ``choices``, types ``lines`` in its lobby and leaves it (q):
    what the lobby said, and the room's options just before she left."""
    api = MatchmakingApi(f"127.0.0.1:{system.port}", token("ann"))
    match = MatchApi(f"127.0.0.1:{system.match.port}", token("ann"))  # DescribeRules
    inbox = Inbox()
    seen = []
    for line in lines + ["q"]:
        inbox.put("line", line)
    file = io.StringIO()
    out = Output(Console(file=file, width=200, color_system=None, highlight=False), redraw=False)
    app = App("ann", match=match, matchmaking=api, inbox=inbox, out=out, store=LastMatch(tmp_path, "ann"),
              game_options=GameOptions(tick=0), choices=Choices(**choices))
    leave = app.room_lobby._leave

    def keep_and_leave(room):
        seen.append(api.room(room.room_id).options)
        return leave(room)

    app.room_lobby._leave = keep_and_leave
    try:
        assert app.create_room() is None
    finally:
        api.close()
        match.close()
    return file.getvalue(), seen[0]


def test_o_rules_goat_takes_koza_by_default_and_keeps_three_seats(system, tmp_path):
    said, options = lobby(system, tmp_path, ["o rules=goat"], rules="all-fives", seats=3, target=150)
    assert (options.rules, options.variant, options.seat_count, options.target) == ("goat", "koza", 3, 101)
    assert "rules goat (variant koza by default); target 150 → 101: Goat plays to 101." in said
    assert "unknown goat variant" not in said


def test_o_rules_goat_variant_koza_keeps_the_rooms_seats(system, tmp_path):
    said, options = lobby(system, tmp_path, ["o rules=goat variant=koza"], rules="classic", seats=3)
    assert (options.rules, options.variant, options.seat_count) == ("goat", "koza", 3)
    assert "rules goat, variant koza; target 100 → 101: Goat plays to 101." in said


def test_a_variant_of_another_family_says_which_family_has_it_and_changes_nothing(system, tmp_path):
    said, options = lobby(system, tmp_path, ["o variant=koza"], rules="all-fives", seats=3)
    assert "koza is a Goat variant: o rules=goat variant=koza" in said
    assert (options.rules, options.variant, options.seat_count) == ("all-fives", "", 3)


def test_a_family_that_needs_other_seats_says_what_changed_and_why(system, tmp_path):
    said, options = lobby(system, tmp_path, ["o rules=sports"], rules="all-fives", seats=4, target=150)
    assert (options.rules, options.seat_count, options.teams, options.target) == ("sports", 4, True, 150)
    assert "rules sports; solo → teams: Sports is played by two pairs." in said
    said, options = lobby(system, tmp_path, ["o rules=egyptian"], rules="classic", seats=3, turn_timer=90)
    assert (options.rules, options.variant, options.seat_count, options.turn_timer_seconds) == ("egyptian", "block-3",
                                                                                           3, 90)
    assert "rules egyptian (variant block-3 for 3 seats); target 100 → 101: Egyptian plays to 51, 71, 101, 151." in said
