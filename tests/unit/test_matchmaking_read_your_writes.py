"""A player's seat is free the moment the match service has stored their match's end, though
the bus has not told matchmaking yet: the next request asks the match service (GetMatch,
here its MatchCreator port, FakeMatches) and frees them with their new place in one save.

In memory; the same over the real services, on SQLite and PostgreSQL with two replicas, is
tests/integration/test_matchmaking_read_your_writes.py.
"""

from __future__ import annotations

import pytest

from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.errors import AlreadyElsewhere, MatchServiceUnavailable
from services.matchmaking.options import Options
from services.matchmaking.rooms import Room
from services.matchmaking.tables import Table
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches

DRAW_2 = Options.chosen("egyptian", "draw-2")


@pytest.fixture
def matches():
    return FakeMatches()


@pytest.fixture
def app(matches):
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=matches, clock=Clock())
    yield app
    app.close()


def notifications(app) -> int:
    return app.recorder.max_notification_id() or 0


def test_a_practice_right_after_the_last_one_ended_starts_before_the_bus_tells(app, matches):
    first = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    matches.finished.add(first.match_id)
    second = app.tables.start_practice("ann", "p2", DRAW_2, "greedy")
    assert second.match_id and second.match_id != first.match_id
    assert app.presence("ann").is_at("table", str(second.id))
    assert app.store.load(Table, first.id).closed and app.match_link(first.match_id).released
    assert not app.ends.release_match(first.match_id)  # the bus's message, when it comes, changes nothing


def test_a_player_whose_match_goes_on_is_still_refused_once_the_match_service_is_asked(app, matches):
    first = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    with pytest.raises(AlreadyElsewhere, match="until its match ends"):
        app.tables.start_practice("ann", "p2", DRAW_2, "greedy")
    assert matches.asked == [first.match_id]


def test_a_player_held_for_a_match_the_match_service_cannot_speak_of_is_told_to_retry(app, matches):
    app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    matches.down = True
    before = notifications(app)
    with pytest.raises(MatchServiceUnavailable):
        app.tables.request_table("ann", "t1", DRAW_2)
    assert notifications(app) == before


def test_a_retried_practice_needs_no_asking(app, matches):
    first = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    assert app.tables.start_practice("ann", "p1", DRAW_2, "greedy").id == first.id
    assert matches.asked == []


def test_a_public_table_right_after_a_public_match_ended_frees_every_player_of_it(app, matches):
    tickets = [app.tables.request_table(p, "t1", DRAW_2) for p in ("ann", "bob")]
    ended = app.tables.ticket("ann", tickets[0].ticket_id).match_id
    matches.finished.add(ended)
    assert app.tables.request_table("ann", "t2", DRAW_2).status == "waiting"
    assert app.tables.ticket("bob", tickets[1].ticket_id).status == "ended"
    assert app.presence("bob").place is None  # freed with ann's new ticket, as the bus would have


def test_a_room_right_after_its_match_ended_closes_and_its_host_may_open_another(app, matches):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.join_room("bob", room.code, None)
    match_id = app.rooms.start_room("ann", room.id).match_id
    matches.finished.add(match_id)
    again = app.rooms.create_room("ann", "c2", DRAW_2, None)
    assert again.id != room.id and app.rooms.room(room.id).status == Room.CLOSED
    assert app.presence("bob").place is None


def test_joining_the_room_of_a_match_that_ended_finds_it_closed(app, matches):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.join_room("bob", room.code, None)
    matches.finished.add(app.rooms.start_room("ann", room.id).match_id)
    other = app.rooms.create_room("cat", "c3", DRAW_2, None)
    assert app.rooms.join_room("bob", other.code, None).seats == ["cat", "bob"]
    assert app.rooms.room(room.id).status == Room.CLOSED


def test_presence_names_no_match_the_match_service_says_has_ended_and_stores_nothing(app, matches):
    first = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    assert app.players.whereabouts("ann").match_id == first.match_id
    matches.finished.add(first.match_id)
    before = notifications(app)
    assert app.players.whereabouts("ann").kind == ""
    assert notifications(app) == before


def test_presence_names_the_match_while_the_match_service_cannot_say(app, matches):
    first = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    matches.finished.add(first.match_id)
    matches.down = True
    assert app.players.whereabouts("ann").match_id == first.match_id
