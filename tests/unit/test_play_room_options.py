"""The host's `o NAME=VALUE` planned against the room's options (pure): what is sent, what is
refused, and the one line that says what changed."""

from __future__ import annotations

import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.client import menu, room_options
from services.client.room_options import Refused
from services.common.rule_options import settings_pb
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

FIVES3 = mm.MatchOptions(rules="all-fives", seat_count=3, target=150, turn_timer_seconds=45)
FIVES4_TEAMS = mm.MatchOptions(rules="all-fives", seat_count=4, teams=True, target=250, turn_timer_seconds=45)
DRAW2 = mm.MatchOptions(rules="egyptian", variant="draw-2", seat_count=2, target=71, turn_timer_seconds=45)


def goat_options(**chosen):
    """Goat's four options as a room's MatchOptions carries them (rule_options, by name)."""
    return settings_pb(chosen)


def planned(current: mm.MatchOptions, line: str) -> room_options.Change:
    command = menu.parse_room_command(line)
    assert command.action == "options", command.message
    return room_options.plan(current, command.options)


def test_another_family_is_sent_whole_with_its_default_variant_and_the_options_that_still_apply():
    assert planned(FIVES3, "o rules=goat").request == {"rules": "goat", "variant": "koza", "seats": 3, "teams": False,
                                                       "target": 101}
    to_classic = planned(FIVES3, "o rules=classic")
    assert to_classic.request == {"rules": "classic", "variant": "", "seats": 3, "teams": False, "target": 100}
    assert to_classic.why == {"target": "Classic plays to 100, 200, 300, 400, 500"}


def test_teams_go_where_the_new_family_has_none_and_say_why():
    change = planned(FIVES4_TEAMS, "o rules=classic")
    assert change.request["teams"] is False and change.why["teams"] == "Classic is played solo"


def test_egyptian_takes_the_variant_of_the_rooms_seat_count():
    assert planned(FIVES3, "o rules=egyptian").request["variant"] == "block-3"
    assert planned(DRAW2, "o seats=4").request == {"seats": 4, "variant": "block-4"}
    with pytest.raises(Refused, match="Egyptian is played by 2, 3 or 4 players, not 5"):
        planned(DRAW2, "o seats=5")


@pytest.mark.parametrize("current,line,says", [
    (FIVES3, "o variant=koza", "koza is a Goat variant: o rules=goat variant=koza"),
    (DRAW2, "o variant=gamezz", "gamezz is a Goat variant: o rules=goat variant=gamezz"),
    (FIVES3, "o rules=classic variant=block-3", "block-3 is an Egyptian variant: o rules=egyptian variant=block-3"),
    (FIVES3, "o fish=one", "fish is a Goat option: o rules=goat fish=one"),
    (FIVES3, "o rules=sports seats=3", "Sports is played by 4 players, not 3"),
])
def test_a_change_that_does_not_fit_the_family_is_refused_with_what_to_type(current, line, says):
    with pytest.raises(Refused) as refused:
        planned(current, line)
    assert says in str(refused.value)


def test_the_line_names_each_change_and_why_for_those_not_typed():
    change = planned(FIVES3, "o rules=goat")
    after = mm.MatchOptions(rules="goat", variant="koza", seat_count=3, target=101, turn_timer_seconds=45,
                            rule_options=goat_options(zero_zero=10, redeal=True, remembered=True, fish="all"))
    assert (room_options.changed_text(FIVES3, after, change)
            == "rules goat (variant koza by default); target 150 → 101: Goat plays to 101.")
    assert room_options.changed_text(FIVES3, FIVES3, planned(FIVES3, "o seats=3")) == (
        "Nothing changed: the room already plays that.")


def test_another_goat_variant_says_its_preset():
    koza = mm.MatchOptions(rules="goat", variant="koza", seat_count=3, target=101,
                           rule_options=goat_options(zero_zero=10, redeal=True, remembered=True, fish="all"))
    gamezz = mm.MatchOptions(rules="goat", variant="gamezz", seat_count=3, target=101,
                             rule_options=goat_options(zero_zero=0, redeal=False, remembered=False, fish="all"))
    assert room_options.changed_text(koza, gamezz, planned(koza, "o variant=gamezz")) == (
        "variant koza → gamezz (its preset: 0-0 alone counts 0 · redeal off · remembered off · fish all).")


def test_another_egyptian_variant_says_why_its_seats_and_sides_changed():
    block3 = mm.MatchOptions(rules="egyptian", variant="block-3", seat_count=3, target=101, turn_timer_seconds=45)
    block4 = mm.MatchOptions(rules="egyptian", variant="block-4", seat_count=4, teams=True, target=101,
                             turn_timer_seconds=45)
    assert room_options.changed_text(block3, block4, planned(block3, "o variant=block-4")) == (
        "variant block-3 → block-4; seats 3 → 4: block-4 is played by 4; solo → teams: block-4 is played in teams "
        "unless said.")
    assert room_options.changed_text(block3, block4, planned(block3, "o seats=4")) == (
        "variant block-3 → block-4: for 4 seats; seats 3 → 4; solo → teams: block-4 is played in teams unless said.")


def _after(before: mm.MatchOptions, change: room_options.Change) -> mm.MatchOptions:
    """The room's options once the server took ``change`` (it keeps what is not named)."""
    after = mm.MatchOptions()
    after.CopyFrom(before)
    for name, value in change.request.items():
        if name != "host_options":
            setattr(after, {"turn_timer": "turn_timer_seconds", "seats": "seat_count"}.get(name, name), value)
    return after


@pytest.mark.parametrize("before, line", [(FIVES3, "o rules=goat"), (FIVES3, "o rules=classic"),
                                          (FIVES4_TEAMS, "o rules=goat"), (DRAW2, "o seats=3"),
                                          (FIVES3, "o rules=egyptian"), (FIVES3, "o seats=4 target=250"),
                                          (FIVES4_TEAMS, "o rules=sports")])
def test_a_guest_reads_from_two_room_views_the_line_the_host_was_told(before, line):
    change = planned(before, line)
    after = _after(before, change)
    assert (room_options.changed_text(before, after, room_options.explained(before, after))
            == room_options.changed_text(before, after, change))
