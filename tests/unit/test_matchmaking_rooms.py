"""Private rooms as an aggregate: who may do what, and what a refusal leaves unchanged.

Pure: no store, no clock, no network. Each test names one rule.
"""

from __future__ import annotations

import pytest

from services.matchmaking.rooms import KEPT_REQUESTS, FailedJoins, Room
from services.matchmaking.errors import (
    BadSeat, InvalidOptions, NoBotThere, NotHost, NotInRoom, RoomFull, RoomLocked, RoomNotFilled, SeatsInTheWay,
    SeatTaken, TooManyFailedJoins,
)
from services.matchmaking.options import Options

BLOCK_4 = Options.chosen("egyptian", "block-4")


def room(options: Options = BLOCK_4, host_seat: int | None = None) -> Room:
    return Room.create("ABCDEFGH", "host", options, host_seat, at=100.0)


def full_room() -> Room:
    r = room()
    r.join("ann", None)
    r.add_bot("host", None, "greedy")
    r.add_bot("host", None, "strong")
    return r


def pending(r: Room) -> list[str]:
    return [type(e).__name__ for e in r.collect_events()]


# ---- options ---------------------------------------------------------------------------


def test_options_default_to_the_variants_target_and_a_45_second_timer():
    assert Options.chosen("", "draw-2") == Options("egyptian", "draw-2", False, 71, 45, 2)
    assert Options.chosen("egyptian", "block-4") == Options("egyptian", "block-4", True, 101, 45, 4)


@pytest.mark.parametrize("target", [51, 71, 101, 151])
@pytest.mark.parametrize("timer", [30, 45, 60, 90, 0])
def test_every_allowed_target_and_turn_timer_is_accepted(target, timer):
    assert Options.chosen("egyptian", "block-3", None, target, timer).target == target


@pytest.mark.parametrize("target", [0, 50, 100, 250])
def test_a_target_outside_51_71_101_151_is_invalid(target):
    with pytest.raises(InvalidOptions, match="target"):
        Options.chosen("egyptian", "block-4", None, target)


@pytest.mark.parametrize("timer", [-1, 10, 44, 120])
def test_a_turn_timer_outside_30_45_60_90_or_unlimited_is_invalid(timer):
    with pytest.raises(InvalidOptions, match="turn timer"):
        Options.chosen("egyptian", "block-4", None, None, timer)


def test_teams_are_for_four_players_only():
    with pytest.raises(InvalidOptions, match="teams"):
        Options.chosen("egyptian", "draw-2", True)


def test_unknown_variant_and_rules_are_invalid():
    with pytest.raises(InvalidOptions, match="variant"):
        Options.chosen("egyptian", "block-5")
    with pytest.raises(InvalidOptions, match="rules"):
        Options.chosen("chess", "block-4")


def test_a_new_variant_takes_its_own_teams_default_and_keeps_target_and_timer():
    options = Options.chosen("egyptian", "block-4", False, 151, 90).changed(variant="draw-2")
    assert options == Options("egyptian", "draw-2", False, 151, 90, 2)
    assert Options.chosen("egyptian", "draw-2").changed(variant="block-4").teams is True


def test_spectators_are_not_allowed_unless_asked_and_carry_over_every_change():
    assert Options.chosen("egyptian", "block-4").spectators is False
    watched = Options.chosen("egyptian", "block-4", spectators=True)
    assert watched.spectators is True
    assert watched.changed(variant="draw-2").spectators is True
    assert watched.changed(rules="all-fives").spectators is True  # another family keeps the host's choice
    assert watched.changed(spectators=False) == Options.chosen("egyptian", "block-4")


def test_options_stored_before_spectators_were_kept_read_as_no_spectators():
    stored = {k: v for k, v in BLOCK_4.as_dict().items() if k != "spectators"}
    assert Options.from_dict(stored) == BLOCK_4


def test_the_host_lets_spectators_watch():
    r = room()
    r.update_options("host", r.match_options.changed(spectators=True))
    assert r.match_options.spectators is True
    assert pending(r)[-1] == "OptionsChanged"


def test_options_the_room_already_has_record_nothing_even_if_stored_before_spectators():
    r = Room(code="ABCDEFGH", host_id="host", host_seat=0, at=100.0,
             options={k: v for k, v in BLOCK_4.as_dict().items() if k != "spectators"})
    r.collect_events()
    r.update_options("host", BLOCK_4.changed(spectators=False))
    assert pending(r) == []


# ---- seats -----------------------------------------------------------------------------


def test_the_host_sits_at_seat_0_unless_they_choose():
    assert room().seats == ["host", "", "", ""]
    assert room(host_seat=2).seats == ["", "", "host", ""]


def test_the_host_cannot_choose_a_seat_the_variant_does_not_have():
    with pytest.raises(BadSeat):
        room(Options.chosen("", "draw-2"), host_seat=2)


def test_a_player_joins_the_first_free_seat():
    r = room()
    r.join("ann", None)
    assert r.seats == ["host", "ann", "", ""]


def test_a_player_may_choose_a_free_seat_opposite_a_partner():
    r = room()
    r.join("ann", 2)
    assert r.seats == ["host", "", "ann", ""]


def test_a_taken_seat_cannot_be_joined():
    r = room()
    with pytest.raises(SeatTaken):
        r.join("ann", 0)
    assert pending(r) == ["Created"]


def test_a_full_room_refuses_another_player():
    r = full_room()
    r.collect_events()
    with pytest.raises(RoomFull):
        r.join("zed", None)
    assert pending(r) == []


def test_joining_again_changes_nothing():
    r = room()
    r.join("ann", 1)
    r.collect_events()
    r.join("ann", None)
    r.join("ann", 1)
    assert pending(r) == []


def test_a_player_moves_to_a_free_seat():
    r = room()
    r.join("ann", 1)
    r.change_seat("ann", 2)
    assert r.seats == ["host", "", "ann", ""]


def test_only_members_change_seats():
    with pytest.raises(NotInRoom):
        room().change_seat("zed", 1)


def test_a_player_who_leaves_frees_their_seat():
    r = room()
    r.join("ann", 3)
    r.leave("ann")
    assert r.seats == ["host", "", "", ""]


def test_the_host_leaving_closes_the_room():
    r = room()
    r.leave("host")
    assert r.status == Room.CLOSED and r.closed_reason == "the host left"


# ---- bots ------------------------------------------------------------------------------


def test_the_host_adds_bots_named_by_strength_and_the_seat_they_take():
    r = room()
    r.add_bot("host", 2, "greedy")
    r.add_bot("host", None, "random")
    r.add_bot("host", 3, "strong")
    assert r.seats == ["host", "bot:random:1", "bot:greedy:2", "bot:strong:3"]


def test_only_the_host_adds_or_removes_bots():
    r = room()
    r.join("ann", None)
    r.add_bot("host", 2, "random")
    r.collect_events()
    with pytest.raises(NotHost):
        r.add_bot("ann", None, "greedy")
    with pytest.raises(NotHost):
        r.remove_bot("ann", 2)
    assert pending(r) == []


def test_removing_a_bot_from_a_seat_without_one_is_refused():
    r = full_room()
    with pytest.raises(NoBotThere):
        r.remove_bot("host", 1)  # ann, a person
    with pytest.raises(BadSeat):
        r.remove_bot("host", 4)


# ---- options in a room -----------------------------------------------------------------


def test_only_the_host_changes_options():
    r = room()
    r.join("ann", None)
    with pytest.raises(NotHost):
        r.update_options("ann", BLOCK_4.changed(target=51))


def test_a_variant_with_fewer_seats_needs_those_seats_empty():
    r = room()
    r.join("ann", 3)
    with pytest.raises(SeatsInTheWay, match="3"):
        r.update_options("host", BLOCK_4.changed(variant="block-3"))
    r.change_seat("ann", 1)
    r.update_options("host", BLOCK_4.changed(variant="block-3"))
    assert r.seats == ["host", "ann", ""]


def test_a_variant_with_more_seats_adds_empty_seats():
    r = room(Options.chosen("", "draw-2"))
    r.update_options("host", r.match_options.changed(variant="block-4"))
    assert r.seats == ["host", "", "", ""] and r.match_options.teams


# ---- the start -------------------------------------------------------------------------


def test_starting_needs_every_seat_filled():
    r = room()
    r.join("ann", None)
    with pytest.raises(RoomNotFilled, match="2, 3"):
        r.start("host", at=200.0)
    assert r.status == Room.OPEN


def test_only_the_host_starts():
    with pytest.raises(NotHost):
        full_room().start("ann", at=200.0)


def test_options_and_seats_lock_when_the_match_starts():
    r = full_room()
    assert r.start("host", at=200.0)
    for command in (lambda: r.update_options("host", BLOCK_4.changed(target=51)), lambda: r.join("zed", None),
                    lambda: r.leave("ann"), lambda: r.remove_bot("host", 2), lambda: r.change_seat("ann", 1)):
        with pytest.raises(RoomLocked):
            command()


def test_starting_again_changes_nothing():
    r = full_room()
    r.start("host", at=200.0)
    r.collect_events()
    assert not r.start("host", at=300.0)
    assert pending(r) == [] and r.started_at == 200.0


def test_a_refused_start_reopens_the_room():
    r = full_room()
    r.start("host", at=200.0)
    r.refuse_start("no")
    assert r.status == Room.OPEN
    r.update_options("host", BLOCK_4.changed(target=51))


def test_the_match_id_is_recorded_once():
    r = full_room()
    r.start("host", at=200.0)
    assert r.assign_match("m-1") and not r.assign_match("m-2")
    assert (r.status, r.match_id) == (Room.PLAYING, "m-1")


def test_a_closed_room_cannot_be_joined_again():
    r = full_room()
    r.start("host", at=200.0)
    r.close("match ended")
    with pytest.raises(RoomLocked, match="closed"):
        r.join("ann", None)


def test_a_room_replays_to_the_same_state():
    r = full_room()
    r.start("host", at=200.0)
    r.assign_match("m-1")
    events = r.collect_events()
    copy = None
    for e in events:
        copy = e.mutate(copy)
    assert (copy.seats, copy.status, copy.match_id, copy.options) == (r.seats, r.status, r.match_id, r.options)


# ---- failed joins ----------------------------------------------------------------------


def test_ten_unknown_codes_in_ten_minutes_refuse_further_joins():
    guard = FailedJoins(player_id="mallory")
    for n in range(FailedJoins.LIMIT):
        guard.check(1000.0 + n)
        guard.record_failure(1000.0 + n)
    with pytest.raises(TooManyFailedJoins, match="try again in"):
        guard.check(1010.0)


def test_failed_joins_are_forgotten_after_ten_minutes():
    guard = FailedJoins(player_id="mallory")
    for n in range(FailedJoins.LIMIT):
        guard.record_failure(1000.0 + n)
    guard.check(1000.0 + FailedJoins.WINDOW_SECONDS + 1)


def test_a_room_remembers_only_its_latest_invite_requests():
    r = room()
    for n in range(KEPT_REQUESTS + 10):
        [invite] = r.invite("host", [f"p{n}"], f"r{n}", at=100.0, ttl=600.0)
        r.answer(invite, f"p{n}", accept=False, at=100.0)
    assert len(r.invite_requests) == KEPT_REQUESTS
    assert f"host\nr{KEPT_REQUESTS + 9}" in r.invite_requests and "host\nr0" not in r.invite_requests
