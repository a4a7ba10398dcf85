"""What a request leaves unset takes the default DescribeRules states, as the proto promises:
StartPractice, CreateRoom and RequestTable read the same answer a client reads from the
real match service's DescribeRules (the first family it lists, the family's default_variant,
the variant's default_shape and default_target, the default_turn_timer, the shape's
default_bot_strength)."""

from __future__ import annotations

import zlib

import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from tests.support.keys import auth

from .matchmaking_harness import running_system


@pytest.fixture(scope="module")
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


@pytest.fixture
def player(request):
    """A player no other test of the module's one system is (ids are at most 100 characters)."""
    return f"p-{zlib.crc32(request.node.nodeid.encode()):08x}"


def family(system, name: str = "") -> match_pb.RuleFamily:
    families = system.rules().families
    return families[0] if not name else next(f for f in families if f.name == name)


def variant(described: match_pb.RuleFamily, name: str | None = None) -> match_pb.RuleVariant:
    name = described.default_variant if name is None else name
    return next(v for v in described.variants if v.name == name)


def strength_name(system, strength: int) -> str:
    return next(info.name for info in system.rules().bot_strengths if info.strength == strength)


def test_a_practice_naming_nothing_plays_every_default_describe_rules_states(system, player):
    described = family(system)
    chosen = variant(described)
    shape = chosen.default_shape
    reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p"), metadata=auth(player))
    options = reply.options
    assert (options.rules, options.variant) == (described.name, described.default_variant)
    assert (options.seat_count, options.teams) == (shape.seats, shape.teams)
    assert options.target == chosen.default_target
    assert options.turn_timer_seconds == system.rules().default_turn_timer
    bots = f"bot:{strength_name(system, shape.default_bot_strength)}"
    assert [p.rsplit(":", 1)[0] for p in reply.player_ids[1:]] == [bots] * (shape.seats - 1)
    view = system.match_view(reply.match_id)
    assert (view.rules, view.variant, len(view.seats), view.target) == (options.rules, options.variant,
                                                                       shape.seats, options.target)


@pytest.mark.parametrize("rules", ["egyptian", "goat"])
def test_a_family_with_variants_named_without_one_plays_its_default_variant(system, player, rules):
    described = family(system, rules)
    reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p", rules=rules), metadata=auth(player))
    assert reply.options.variant == described.default_variant != ""
    assert reply.options.seat_count == variant(described).default_shape.seats


@pytest.mark.parametrize("rules, variant_name, fields", [
    ("all-fives", "", {"seat_count": 2}),
    ("all-fives", "", {"teams": True}),
    ("egyptian", "block-4", {"teams": False}),
    ("goat", "koza", {"seat_count": 3}),
])
def test_a_seat_count_or_team_setting_alone_takes_the_default_shapes_other_half(system, player, rules, variant_name,
                                                                            fields):
    reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p", rules=rules, variant=variant_name,
                                                              **fields), metadata=auth(player))
    described = variant(family(system, rules), variant_name)
    default = described.default_shape
    wanted = (fields.get("seat_count", default.seats), fields.get("teams", default.teams))  # the default's other half
    assert wanted in [(s.seats, s.teams) for s in described.shapes]
    assert (reply.options.seat_count, reply.options.teams) == wanted and len(reply.player_ids) == wanted[0]


def test_a_room_naming_nothing_has_every_default_and_its_bots_the_shapes_strength(system, player):
    described = family(system)
    chosen = variant(described)
    room = system.stub.CreateRoom(pb.CreateRoomRequest(request_id="r"), metadata=auth(player)).room
    options = room.options
    assert (options.rules, options.variant, options.target) == (described.name, described.default_variant,
                                                                chosen.default_target)
    assert (options.seat_count, options.teams) == (chosen.default_shape.seats, chosen.default_shape.teams)
    assert options.turn_timer_seconds == system.rules().default_turn_timer and not options.spectators
    room = system.add_bot(player, room.room_id, None)
    assert room.seats[1].bot_strength == chosen.default_shape.default_bot_strength


def test_a_public_table_asked_for_with_nothing_named_is_the_default_familys_default_shape(system, player):
    described = family(system)
    shape = variant(described).default_shape
    ticket = system.stub.RequestTable(pb.RequestTableRequest(request_id="t"), metadata=auth(player)).ticket
    assert (ticket.rules, ticket.variant, ticket.seat_count, ticket.teams) == (
        described.name, described.default_variant, shape.seats, shape.teams)
    system.clock.advance(20)
    system.app.tables.fill_waiting_tables()
    seated = system.ticket(player, ticket.ticket_id)
    view = system.match_view(seated.match_id)
    assert (view.rules, view.variant, view.target) == (described.name, described.default_variant,
                                                       variant(described).default_target)
