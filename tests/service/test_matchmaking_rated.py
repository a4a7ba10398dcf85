"""Whether a match moves ratings is decided where matchmaking makes it and stored in the
match (services/matchmaking/rated_matches.py): practice is not rated unless
DOMINO_PRACTICE_RATED says so, a public table is, and so is a room of two people or more,
while a room of one person among bots counts as practice. Over gRPC, on a real match service."""

from __future__ import annotations

from services.common.config import Settings

from .matchmaking_harness import running_system


def stored_rated(system, match_id: str) -> bool | None:
    return system.match.app.get_match(match_id).rated


def practice(system, player: str = "ann", request_id: str = "p1"):
    return system.practice(player, request_id, variant="draw-2")


def test_practice_is_not_rated_by_default():
    assert Settings().practice_rated is False
    with running_system() as system:
        started = practice(system)
        sent = system.created[-1]
        assert sent.request_id.startswith("practice:") and sent.HasField("rated") and sent.rated is False
        assert stored_rated(system, started.match_id) is False


def test_practice_is_rated_where_the_setting_says_so():
    with running_system(practice_rated=True) as system:
        started = practice(system)
        assert system.created[-1].rated is True
        assert stored_rated(system, started.match_id) is True


def test_a_public_table_is_rated_even_when_bots_fill_it():
    with running_system(table_wait_seconds=20) as system:
        ticket = system.request_table("ann", variant="draw-2")
        system.clock.advance(20)
        system.app.tables.fill_waiting_tables()
        seated = system.ticket("ann", ticket.ticket_id)
        assert seated.player_ids[1].startswith("bot:")
        assert stored_rated(system, seated.match_id) is True


def test_a_room_of_two_people_is_rated():
    with running_system() as system:
        room = system.create_room("ann", variant="draw-2")
        system.join("bob", room.code)
        started = system.start("ann", room.room_id)
        assert stored_rated(system, started.match_id) is True


def test_a_room_of_one_person_among_bots_counts_as_practice():
    with running_system() as system:
        room = system.create_room("ann", variant="draw-2")
        system.add_bot("ann", room.room_id, "strong")
        started = system.start("ann", room.room_id)
        assert system.sent(f"room:{room.room_id}").rated is False
        assert stored_rated(system, started.match_id) is False
