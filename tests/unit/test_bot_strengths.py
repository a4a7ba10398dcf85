"""Every list of bot strengths agrees with services.common.bot_strengths: the bots service's
implementations, bot ids, matchmaking, the client's menus and screens, ``domino demo``,
``domino play`` and the arena. Players are offered, somewhere, the registry's offered
strengths that the bots' ladder offers in some family and team setting (DescribeRules,
services/common/bot_ladder.py ``Ladder.offered``); the client's menus list those."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.bots.arena import resolve
from services.bots.strategies import STRATEGIES
from services.cli.demo import demo
from services.client import families, lobby_screens, menu, render
from services.common import bot_strengths
from services.common.bot_ids import bot_id, bot_strength
from services.match.describe import describe_rules
from services.matchmaking.errors import InvalidRequest
from services.matchmaking.options import check_strength
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

NAMES, OFFERED = bot_strengths.NAMES, bot_strengths.OFFERED
#: The offered strengths the ladder offers in some family and team setting, weakest first.
SOMEWHERE = tuple(s.name for s in describe_rules().bot_strengths)
#: Words no surface may take for a strength ("expert" until it is registered).
NOT_STRENGTHS = [word for word in ("expert", "wizard") if word not in NAMES]
#: What players may not pick: no strength, or one not offered yet.
NOT_OFFERED = NOT_STRENGTHS + [name for name in NAMES if name not in OFFERED]


def choices_of(command, param_name: str) -> tuple[str, ...]:
    (param,) = [p for p in command.params if p.name == param_name]
    return tuple(param.type.choices)


def test_the_registry_lists_distinct_strengths_weakest_first_each_described_in_a_line():
    assert len(set(NAMES)) == len(NAMES) and OFFERED
    assert [bot_strengths.rank(name) for name in NAMES] == list(range(len(NAMES)))
    for s in bot_strengths.REGISTRY:
        # a bot id is bot:<strength>:<seat>, and the menus take a number for a position
        assert s.name.isalpha() and s.name == s.name.lower()
        assert s.description and "\n" not in s.description
    assert set(OFFERED) <= set(NAMES) and list(OFFERED) == [n for n in NAMES if n in OFFERED]


def test_the_bots_service_implements_every_registered_strength_and_no_other():
    # that each plays legal moves: tests/unit/test_bots_strong.py
    assert list(STRATEGIES) == list(NAMES)


def test_a_registered_strength_without_an_implementation_stops_the_bots_service():
    implementations = {name: object() for name in NAMES[:-1]}
    with pytest.raises(LookupError, match=NAMES[-1]):
        bot_strengths.keyed(implementations)


def test_an_implementation_of_no_registered_strength_stops_the_bots_service():
    implementations = {name: object() for name in NAMES} | {"wizard": object()}
    with pytest.raises(LookupError, match="wizard"):
        bot_strengths.keyed(implementations)


def test_implementations_are_kept_in_the_registrys_order_whatever_order_they_come_in():
    implementations = {name: name.upper() for name in reversed(NAMES)}
    assert list(bot_strengths.keyed(implementations).items()) == [(n, n.upper()) for n in NAMES]


def test_a_bot_id_names_any_registered_strength_and_no_other():
    for name in NAMES:
        assert bot_strength(bot_id(name, 2)) == name
    for word in NOT_STRENGTHS:
        assert bot_strength(bot_id(word, 2)) is None


def test_matchmaking_seats_the_offered_strengths_and_refuses_the_others_naming_the_offered():
    for name in OFFERED:
        check_strength(name)
    for word in NOT_OFFERED:
        with pytest.raises(InvalidRequest) as refused:
            check_strength(word)
        assert all(name in str(refused.value) for name in OFFERED)


@pytest.mark.usefixtures("served_rules")
@pytest.mark.parametrize("name", SOMEWHERE)
def test_the_room_commands_add_and_fill_with_every_offered_strength(name):
    assert menu.parse_room_command(f"f {name}") == menu.RoomCommand("fill", strength=name)
    assert menu.parse_room_command(f"b 2 {name}") == menu.RoomCommand("bot", 2, name)


@pytest.mark.usefixtures("served_rules")
@pytest.mark.parametrize("word", NOT_OFFERED + [n for n in OFFERED if n not in SOMEWHERE])
def test_the_room_commands_refuse_other_strengths_naming_the_offered_ones(word):
    for line in (f"f {word}", f"b 2 {word}"):
        command = menu.parse_room_command(line)
        assert command.action == "invalid"
        assert f"A bot is {', '.join(SOMEWHERE)}, not {word!r}." == command.message


@pytest.mark.usefixtures("served_rules")
def test_the_client_asks_for_the_offered_strengths_and_its_help_says_what_each_does():
    assert set(SOMEWHERE) <= set(OFFERED) and SOMEWHERE
    # the practice menu's question, and what domino play --bots is checked against once connected
    assert families.current().strength_names == SOMEWHERE
    room_help = menu.room_help()
    assert f"b [SEAT] [{'|'.join(SOMEWHERE)}] adds a bot" in room_help
    assert f"f [{'|'.join(SOMEWHERE)}] fills every empty seat" in room_help
    for s in bot_strengths.REGISTRY:
        assert (f"{s.name} {s.description}" in room_help) == (s.name in SOMEWHERE)


@pytest.mark.usefixtures("served_rules")
def test_the_room_screen_shows_the_host_the_offered_strengths():
    room = mm.RoomView(room_id="r1", code="K7M2PQ4X", host_player_id="ann", status=mm.ROOM_STATUS_OPEN, version=1,
                       options=mm.MatchOptions(rules="egyptian", variant="block-2", target=101))
    for seat, player in enumerate(["ann", ""]):
        room.seats.add(seat=seat, player_id=player)
    host = render.to_text(lobby_screens.room_screen(room, "ann"))
    assert f"b [SEAT] [{'|'.join(SOMEWHERE)}] adds a bot" in host


def test_domino_demo_seats_any_registered_strength_and_refuses_the_others():
    assert choices_of(demo, "strength") == NAMES
    for word in NOT_STRENGTHS:
        refused = CliRunner().invoke(demo, ["--bots", word])
        assert refused.exit_code == 2 and all(name in refused.output for name in NAMES)


def test_the_arena_plays_every_registered_strength_by_name_and_refuses_the_others():
    for name in NAMES:
        assert resolve(name) is STRATEGIES[name]
    for word in NOT_STRENGTHS:
        with pytest.raises(ValueError) as refused:
            resolve(word)
        assert all(name in str(refused.value) for name in NAMES)

