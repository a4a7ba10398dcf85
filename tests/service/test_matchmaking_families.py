"""Rooms, public tables and practice for every rule family, over gRPC, started on a real
match service: the host picks the family and its options, invalid combinations are refused
naming the allowed values, and each family has its own public queues."""

from __future__ import annotations

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.common.rule_options import settings_of, value_pb
from services.matchmaking.options import Options, queue_kinds
from services.rules import registry
from tests.support.errors import refusal
from tests.support.keys import auth

from .matchmaking_harness import running_system


@pytest.fixture
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


def create_room(system, host="ann", **fields):
    return system.stub.CreateRoom(pb.CreateRoomRequest(request_id=f"room-{host}", **fields), metadata=auth(host)).room


def update(system, host, room_id, **fields):
    return system.stub.UpdateRoomOptions(pb.UpdateRoomOptionsRequest(room_id=room_id, **fields),
                                         metadata=auth(host)).room


def test_a_host_creates_an_all_fives_room_for_three(system):
    room = create_room(system, rules="all-fives", seat_count=3, target=150)
    assert (room.options.rules, room.options.seat_count, room.options.teams, room.options.target) == (
        "all-fives", 3, False, 150)
    assert len(room.seats) == 3


def setting(name, value) -> match_pb.OptionSetting:
    return match_pb.OptionSetting(name=name, value=value_pb(value))


def options_of(message) -> dict:
    return settings_of(message.rule_options)


def test_a_goat_room_keeps_the_presets_options_and_the_hosts_changes(system):
    room = create_room(system, rules="goat", variant="koza", seat_count=4, teams=True,
                       rule_options=[setting("fish", "one")])
    assert options_of(room.options) == {"zero_zero": 10, "redeal": True, "remembered": True, "fish": "one"}
    assert room.options.target == 101 and room.options.teams
    room = update(system, "ann", room.room_id, rule_options=[setting("zero_zero", 25)])
    assert options_of(room.options) == {"zero_zero": 25, "redeal": True, "remembered": True, "fish": "one"}
    room = update(system, "ann", room.room_id, variant="gamezz")
    assert options_of(room.options) == {"zero_zero": 0, "redeal": False, "remembered": False, "fish": "all"}


def test_a_room_takes_rule_options_and_sends_them_to_the_match(system):
    room = create_room(system, rules="goat", variant="koza", seat_count=2, rule_options=[setting("fish", "one")])
    preset = [setting("zero_zero", 10), setting("redeal", True), setting("remembered", True)]
    assert list(room.options.rule_options) == preset + [setting("fish", "one")]
    room = update(system, "ann", room.room_id, rule_options=[setting("zero_zero", 25)])
    assert list(room.options.rule_options)[0] == setting("zero_zero", 25)
    assert options_of(room.options)["fish"] == "one"
    system.add_bot("ann", room.room_id)
    system.stub.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=auth("ann"))
    sent = system.sent(f"room:{room.room_id}")
    assert list(sent.rule_options) == list(room.options.rule_options)


def test_changing_the_family_keeps_what_still_applies_and_takes_defaults_for_the_rest(system):
    room = create_room(system, variant="block-4")
    room = update(system, "ann", room.room_id, rules="sports", variant="")
    assert (room.options.rules, room.options.seat_count, room.options.teams, room.options.target) == (
        "sports", 4, True, 200)
    room = update(system, "ann", room.room_id, rules="classic", variant="", seat_count=2)
    assert (room.options.rules, room.options.seat_count, room.options.teams, room.options.target) == (
        "classic", 2, False, 200)
    assert len(room.seats) == 2


def test_switching_to_goat_without_a_variant_takes_its_default_and_keeps_three_seats(system):
    room = create_room(system, rules="all-fives", seat_count=3, target=150)
    room = update(system, "ann", room.room_id, rules="goat")
    assert (room.options.rules, room.options.variant, room.options.seat_count, room.options.target) == (
        "goat", "koza", 3, 101)
    room = update(system, "ann", room.room_id, rules="egyptian")
    assert (room.options.rules, room.options.variant, room.options.seat_count) == ("egyptian", "block-3", 3)


def test_fewer_seats_need_those_seats_empty(system):
    room = create_room(system, rules="all-fives", seat_count=4)
    system.join("bob", room.code, seat=3)
    with pytest.raises(grpc.RpcError) as caught:
        update(system, "ann", room.room_id, seat_count=2)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "free seats 3" in caught.value.details()
    assert refusal(caught.value).reason == "SEATS_IN_THE_WAY"


@pytest.mark.parametrize("fields,words,field", [
    (dict(rules="all-fives", seat_count=5), ["2 or 3 or 4"], "seat_count"),
    (dict(rules="all-fives", seat_count=3, teams=True), ["teams only by 4"], "teams"),
    (dict(rules="all-fives", target=101), ["100, 150, 200, 250"], "target"),
    (dict(rules="goat", variant="kozel"), ["gamezz, koza"], "variant"),
    (dict(rules="goat", variant="koza", rule_options=[setting("fish", "none")]), ["all, one"], "rule_options"),
    (dict(rules="goat", variant="koza", rule_options=[setting("zero_zero", 7)]), ["0, 10, 25"], "rule_options"),
    (dict(rules="goat", variant="gamezz", target=51), ["101"], "target"),
    (dict(rules="classic", teams=True), ["solo"], "teams"),
    (dict(rules="sports", seat_count=2), ["4"], "seat_count"),
    (dict(rules="sports", teams=False), ["pairs"], "teams"),
    (dict(variant="block-4", rule_options=[setting("fish", "one")]), ["no options"], "rule_options"),
    (dict(rules="draughts"), [", ".join(registry.names())], "rules"),
], ids=["five-seats", "teams-of-three", "fives-target", "goat-variant", "goat-fish", "goat-zero-zero",
        "goat-target", "classic-teams", "sports-two", "sports-solo", "egyptian-rule-options", "unknown-rules"])
def test_a_room_with_invalid_family_options_is_refused_naming_the_option_and_the_allowed_values(system, fields, words,
                                                                                              field):
    before = system.stored()
    with pytest.raises(grpc.RpcError) as caught:
        create_room(system, **fields)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    for word in words:
        assert word in caught.value.details()
    said = refusal(caught.value)
    assert (said.reason, said.fields, said.domain) == ("INVALID_OPTIONS", (field,), "domino.matchmaking")
    assert system.stored() == before


@pytest.mark.parametrize("fields,seats", [
    (dict(rules="all-fives", seat_count=3), 3),
    (dict(rules="goat", variant="koza", seat_count=4, teams=True, rule_options=[setting("fish", "one")]), 4),
    (dict(rules="classic", seat_count=2, target=200), 2),
    (dict(rules="sports", turn_timer_seconds=30), 4),
], ids=["all-fives", "goat", "classic", "sports"])
def test_a_started_room_plays_its_family_with_the_hosts_options(system, fields, seats):
    room = create_room(system, **fields)
    for seat in range(1, seats):
        room = system.add_bot("ann", room.room_id)
    room = system.start("ann", room.room_id)
    assert room.match_id
    view = system.match_view(room.match_id)
    assert (view.rules, len(view.seats), view.teams, view.target) == (room.options.rules, seats, room.options.teams,
                                                                    room.options.target)
    assert options_of(view) == options_of(room.options)


def test_every_family_seat_count_and_teams_setting_has_its_own_public_queue():
    kinds = queue_kinds()
    assert len(set(kinds)) == len(kinds)
    families = {rules for rules, *_ in kinds}
    assert families == {"egyptian", "all-fives", "goat", "classic", "sports"}
    assert ("all-fives", "", True, 4) in kinds and ("all-fives", "", False, 4) in kinds
    assert ("goat", "koza", False, 3) in kinds and ("goat", "gamezz", True, 4) in kinds
    assert ("classic", "", False, 2) in kinds and ("sports", "", True, 4) in kinds
    for rules, variant, teams, seats in kinds:
        assert Options.chosen(rules, variant, teams, seats=seats).seats == seats


@pytest.mark.parametrize("fields,seats", [
    (dict(rules="all-fives", seat_count=2), 2),
    (dict(rules="goat", variant="koza", seat_count=3), 3),
    (dict(rules="classic", seat_count=4), 4),
    (dict(rules="sports"), 4),
], ids=["all-fives-2", "goat-koza-3", "classic-4", "sports"])
def test_a_public_table_of_every_family_is_filled_with_bots_after_the_wait_and_plays_its_defaults(system, fields,
                                                                                                  seats):
    ticket = system.stub.RequestTable(pb.RequestTableRequest(request_id="t", **fields), metadata=auth("ann")).ticket
    assert ticket.seat_count == seats and ticket.status == pb.TICKET_STATUS_WAITING
    system.clock.advance(20)
    system.app.tables.fill_waiting_tables()
    seated = system.ticket("ann", ticket.ticket_id)
    assert seated.status == pb.TICKET_STATUS_SEATED and len(seated.player_ids) == seats
    view = system.match_view(seated.match_id)
    defaults = Options.chosen(fields["rules"], fields.get("variant", ""), seats=seats)
    assert (view.rules, view.target, len(view.seats)) == (defaults.rules, defaults.target, seats)


def test_players_asking_for_different_seat_counts_wait_at_different_tables(system):
    first = system.stub.RequestTable(pb.RequestTableRequest(request_id="a", rules="all-fives", seat_count=2),
                                     metadata=auth("ann")).ticket
    other = system.stub.RequestTable(pb.RequestTableRequest(request_id="b", rules="all-fives", seat_count=3),
                                     metadata=auth("bob")).ticket
    assert first.status == other.status == pb.TICKET_STATUS_WAITING
    second = system.stub.RequestTable(pb.RequestTableRequest(request_id="c", rules="all-fives", seat_count=2),
                                      metadata=auth("cat")).ticket
    assert second.status == pb.TICKET_STATUS_SEATED and list(second.player_ids) == ["ann", "cat"]


@pytest.mark.parametrize("fields,seats", [
    (dict(rules="all-fives", seat_count=3), 3),
    (dict(rules="goat", variant="gamezz", seat_count=4, teams=True), 4),
    (dict(rules="classic", seat_count=2), 2),
    (dict(rules="sports"), 4),
], ids=["all-fives", "goat", "classic", "sports"])
def test_practice_starts_a_match_of_every_family_against_bots(system, fields, seats):
    reply = system.practice("ann", request_id="p", **fields)
    assert reply.your_seat == 0 and len(reply.player_ids) == seats and reply.options.rules == fields["rules"]
    view = system.match_view(reply.match_id)
    assert [s.player_id for s in view.seats] == list(reply.player_ids)
