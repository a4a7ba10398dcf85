"""Public tables, presence, practice and the match lifecycle, in memory.

The aggregates are exercised through the application on the in-memory store; the match
service is replaced at its ports (MatchCreator, Ratings) by recording fakes, the one seam
that is mocked here. The same behaviours run over gRPC against a real match service in
tests/service/test_matchmaking_*.py.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from eventsourcing.domain import Snapshot
from prometheus_client import CollectorRegistry

from services.common.bot_ladder import ladder
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.presence import MatchLink, Presence
from services.matchmaking.tables import Queue, Table
from services.matchmaking.errors import (
    AlreadyElsewhere, InvalidRequest, MatchRefused, MatchServiceUnavailable, RatingUnavailable, RequestIdReused,
    TicketNotWaiting, UnknownTicket,
)
from services.matchmaking.metrics import PrometheusObserver
from services.matchmaking.options import Options
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches

BLOCK_4 = Options.chosen("egyptian", "block-4")
DRAW_2 = Options.chosen("egyptian", "draw-2")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def matches():
    return FakeMatches()


@pytest.fixture
def app(clock, matches):
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=matches, clock=clock)
    yield app
    app.close()


def notifications(app) -> int:
    return app.recorder.max_notification_id() or 0


# ---- tickets and tables ----------------------------------------------------------------


def test_four_players_asking_for_the_same_table_are_seated_together_in_order(app, matches):
    tickets = [app.tables.request_table(p, "r1", BLOCK_4) for p in ("ann", "bob", "cat", "dan")]
    assert [t.status for t in tickets[:3]] == ["waiting"] * 3
    seated = [app.tables.ticket(p, t.ticket_id) for p, t in zip(("ann", "bob", "cat", "dan"), tickets)]
    assert {t.status for t in seated} == {"seated"}
    assert seated[0].seats == ("ann", "bob", "cat", "dan") and [t.seat for t in seated] == [0, 1, 2, 3]
    assert len({t.match_id for t in seated}) == 1 and seated[0].match_id
    (request_id, options, seats), = matches.calls
    assert request_id == f"table:{seated[0].table_id}" and seats == seated[0].seats
    assert options == replace(BLOCK_4, spectators=True)  # the defaults, and anyone may watch a public table


def test_tables_of_different_kinds_never_mix(app):
    app.tables.request_table("ann", "r1", BLOCK_4)
    app.tables.request_table("bob", "r1", Options.chosen("egyptian", "block-4", teams=False))
    drawn = app.tables.request_table("cat", "r1", DRAW_2)
    assert drawn.status == "waiting"
    assert app.tables.request_table("dan", "r1", DRAW_2).status == "seated"


def test_a_repeated_request_id_returns_the_same_ticket(app):
    first = app.tables.request_table("ann", "r1", BLOCK_4)
    assert app.tables.request_table("ann", "r1", BLOCK_4) == first


def test_a_request_id_reused_for_another_table_is_refused(app):
    app.tables.request_table("ann", "r1", BLOCK_4)
    with pytest.raises(RequestIdReused):
        app.tables.request_table("ann", "r1", DRAW_2)


def test_a_player_holding_a_ticket_cannot_hold_a_second(app):
    app.tables.request_table("ann", "r1", BLOCK_4)
    before = notifications(app)
    with pytest.raises(AlreadyElsewhere, match="waiting for a table"):
        app.tables.request_table("ann", "r2", DRAW_2)
    assert notifications(app) == before


def test_a_player_in_a_room_cannot_ask_for_a_table_nor_the_other_way_round(app):
    app.rooms.create_room("ann", "c1", BLOCK_4, None)
    with pytest.raises(AlreadyElsewhere, match="in room"):
        app.tables.request_table("ann", "r1", BLOCK_4)
    app.tables.request_table("bob", "r1", BLOCK_4)
    with pytest.raises(AlreadyElsewhere, match="waiting"):
        app.rooms.create_room("bob", "c1", BLOCK_4, None)


def test_a_cancelled_ticket_leaves_the_queue_and_frees_the_player(app):
    ticket = app.tables.request_table("ann", "r1", BLOCK_4)
    assert app.tables.cancel_ticket("ann", ticket.ticket_id).status == "cancelled"
    assert app.tables.cancel_ticket("ann", ticket.ticket_id).status == "cancelled"  # a retry
    assert app.store.load(Queue, Queue.create_id("egyptian", "block-4", True)).waiting == []
    assert app.tables.request_table("ann", "r2", BLOCK_4).status == "waiting"


def test_a_seated_ticket_cannot_be_cancelled(app):
    tickets = [app.tables.request_table(p, "r1", DRAW_2) for p in ("ann", "bob")]
    before = notifications(app)
    with pytest.raises(TicketNotWaiting, match="seated"):
        app.tables.cancel_ticket("ann", tickets[0].ticket_id)
    assert notifications(app) == before


def test_a_ticket_is_visible_to_its_owner_only(app):
    ticket = app.tables.request_table("ann", "r1", BLOCK_4)
    with pytest.raises(UnknownTicket):
        app.tables.ticket("bob", ticket.ticket_id)


# ---- bots fill the wait ----------------------------------------------------------------


def test_bots_fill_a_table_only_after_the_wait(app, clock):
    ticket = app.tables.request_table("ann", "r1", BLOCK_4)
    clock.now += 19.9
    assert app.tables.fill_waiting_tables() == []
    clock.now += 0.1
    (table_id,) = app.tables.fill_waiting_tables()
    seated = app.tables.ticket("ann", ticket.ticket_id)
    assert seated.table_id == table_id and seated.match_id
    assert seated.seats == ("ann", "bot:greedy:1", "bot:greedy:2", "bot:greedy:3")


def test_bots_join_everyone_who_is_waiting(clock, matches):
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=matches, clock=clock,
                                 table_wait_seconds=5, table_bot_strength="strong")
    app.tables.request_table("ann", "r1", BLOCK_4)
    clock.now += 3
    bob = app.tables.request_table("bob", "r1", BLOCK_4)
    clock.now += 2
    app.tables.fill_waiting_tables()
    # without a match service everyone is new (rated 0): the offered bots rated nearest 0
    bots = ladder().nearest("egyptian/teams", 0.0, among=ladder().offered("egyptian/teams"))
    assert app.tables.ticket("bob", bob.ticket_id).seats == ("ann", "bob", f"bot:{bots}:2", f"bot:{bots}:3")


def test_an_unknown_bot_strength_is_invalid(app):
    with pytest.raises(InvalidRequest, match="strength"):
        app.tables.start_practice("ann", "p1", BLOCK_4, "genius")


# ---- practice --------------------------------------------------------------------------


def test_practice_seats_the_caller_against_bots_and_starts_the_match(app, matches):
    weakest = ladder().offered("egyptian/solo")[0]  # what the ladder offers there
    table = app.tables.start_practice("ann", "p1", Options.chosen("", "block-3", None, 51, 0), weakest)
    assert table.seats == ["ann", f"bot:{weakest}:1", f"bot:{weakest}:2"] and table.match_id
    assert matches.calls[0][0] == f"practice:{table.id}"
    assert app.tables.start_practice("ann", "p1", Options.chosen("", "block-3", None, 51, 0),
                                     weakest).match_id == table.match_id
    assert len(matches.calls) == 1


def test_practice_with_the_match_service_away_is_unavailable_and_finished_by_a_retry(app, matches):
    matches.down = True
    with pytest.raises(MatchServiceUnavailable):
        app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    matches.down = False
    assert app.tables.start_practice("ann", "p1", DRAW_2, "greedy").match_id


def test_practice_is_never_watched_and_a_room_passes_on_its_hosts_choice(app, matches):
    app.tables.start_practice("ann", "p1", replace(DRAW_2, spectators=True), "greedy")
    assert matches.calls[-1][1].spectators is False
    room = app.rooms.create_room("bob", "c1", Options.chosen("", "draw-2", spectators=True), None)
    app.rooms.add_bot("bob", room.id, None, "greedy")
    app.rooms.start_room("bob", room.id)
    assert matches.calls[-1][0] == f"room:{room.id}" and matches.calls[-1][1].spectators is True


# ---- where a player is -------------------------------------------------------------------


def test_a_player_never_seen_is_nowhere_and_asking_stores_nothing(app):
    before = notifications(app)
    found = app.players.whereabouts("ann")
    assert (found.kind, found.match_id) == ("", "")
    assert notifications(app) == before and app.store.load(Presence, Presence.create_id("ann")) is None


def test_a_player_in_a_room_is_found_there_until_its_match_ends(app):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.join_room("bob", room.code, None)
    found = app.players.whereabouts("bob")
    assert found.kind == "room" and found.room.id == room.id and found.room.code == room.code
    assert found.match_id == ""
    match_id = app.rooms.start_room("ann", room.id).match_id
    assert app.players.whereabouts("bob").match_id == match_id and app.players.whereabouts("ann").kind == "room"
    app.ends.release_match(match_id)
    assert app.players.whereabouts("bob").kind == app.players.whereabouts("ann").kind == ""


def test_a_player_who_left_a_room_is_nowhere(app):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.join_room("bob", room.code, None)
    app.rooms.leave_room("bob", room.id)
    assert app.players.whereabouts("bob").kind == "" and app.players.whereabouts("ann").kind == "room"
    app.rooms.leave_room("ann", room.id)  # the host closes it
    assert app.players.whereabouts("ann").kind == ""


def test_a_waiting_player_is_found_with_their_ticket_then_at_the_table_it_led_to(app):
    ticket = app.tables.request_table("ann", "r1", DRAW_2)
    found = app.players.whereabouts("ann")
    assert found.kind == "ticket" and found.ticket == ticket and found.match_id == ""
    app.tables.request_table("bob", "r1", DRAW_2)
    found = app.players.whereabouts("ann")
    assert found.kind == "table" and found.table.kind == Table.PUBLIC and found.seat == 0
    assert found.ticket_id == ticket.ticket_id and found.match_id == app.tables.ticket("ann", ticket.ticket_id).match_id
    assert app.players.whereabouts("bob").seat == 1
    app.ends.release_match(found.match_id)
    assert app.players.whereabouts("ann").kind == ""


def test_a_cancelled_ticket_leaves_the_player_nowhere(app):
    ticket = app.tables.request_table("ann", "r1", DRAW_2)
    app.tables.cancel_ticket("ann", ticket.ticket_id)
    assert app.players.whereabouts("ann").kind == ""


def test_a_player_seated_with_bots_after_the_wait_is_found_at_the_table(app, clock):
    ticket = app.tables.request_table("ann", "r1", BLOCK_4)
    clock.now += 30
    app.tables.fill_waiting_tables()
    found = app.players.whereabouts("ann")
    assert found.kind == "table" and found.ticket_id == ticket.ticket_id and found.table.seats[1:] == [
        "bot:greedy:1", "bot:greedy:2", "bot:greedy:3"]


def test_a_practising_player_is_found_at_the_practice_table_until_they_leave_its_match(app):
    table = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    found = app.players.whereabouts("ann")
    assert found.kind == "table" and found.table.kind == Table.PRACTICE and found.seat == 0
    assert found.ticket_id == "" and found.match_id == table.match_id
    app.ends.release_players(table.match_id, ["ann"])
    assert app.players.whereabouts("ann").kind == ""


def test_a_table_whose_match_is_not_created_yet_is_found_without_a_match(app, matches):
    matches.down = True
    app.tables.request_table("ann", "r1", DRAW_2)
    app.tables.request_table("bob", "r1", DRAW_2)
    found = app.players.whereabouts("ann")
    assert found.kind == "table" and found.match_id == ""


# ---- interrupted starts ------------------------------------------------------------------


def test_a_table_whose_match_was_not_created_is_started_by_the_follower_after_a_grace(app, matches, clock):
    matches.down = True
    tickets = [app.tables.request_table(p, "r1", DRAW_2) for p in ("ann", "bob")]
    assert app.tables.ticket("ann", tickets[0].ticket_id).match_id == ""
    matches.down = False
    assert app.pending_starts.follow_store() == 1
    assert app.pending_starts.step() == 0  # within the grace period the first attempt may still finish
    clock.now += app.pending_starts.grace_seconds
    assert app.pending_starts.step() == 1
    assert app.tables.ticket("ann", tickets[0].ticket_id).match_id
    assert [c[0] for c in matches.calls] == [matches.calls[0][0]] * 2  # the same request id both times
    assert app.pending_starts.step() == 0 and not app.pending_starts.pending


def test_a_started_room_whose_match_was_not_created_is_started_by_the_follower(app, matches, clock):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.add_bot("ann", room.id, None, "greedy")
    matches.down = True
    assert app.rooms.start_room("ann", room.id).status == "starting"
    matches.down = False
    app.pending_starts.follow_store()
    clock.now += 60
    assert app.pending_starts.step() == 1
    assert app.rooms.room(room.id).status == "playing"


def test_a_refused_table_closes_and_frees_its_players(app, matches):
    matches.refusal = "no such variant"
    tickets = [app.tables.request_table(p, "r1", DRAW_2) for p in ("ann", "bob")]
    assert app.tables.ticket("ann", tickets[0].ticket_id).status == "ended"
    assert app.presence("ann").place is None and app.presence("bob").place is None


def test_a_refused_room_start_reopens_the_room(app, matches):
    room = app.rooms.create_room("ann", "c1", DRAW_2, None)
    app.rooms.add_bot("ann", room.id, None, "greedy")
    matches.refusal = "no"
    assert app.rooms.start_room("ann", room.id).status == "open"


# ---- the end of a match ------------------------------------------------------------------


def test_the_end_of_a_match_closes_its_room_and_frees_its_players(app):
    room = app.rooms.create_room("ann", "c1", BLOCK_4, None)
    app.rooms.join_room("bob", room.code, None)
    app.rooms.add_bot("ann", room.id, None, "greedy")
    app.rooms.add_bot("ann", room.id, None, "greedy")
    match_id = app.rooms.start_room("ann", room.id).match_id
    assert app.ends.release_match(match_id)
    assert app.rooms.room(room.id).status == "closed" and app.rooms.room(room.id).closed_reason == "match ended"
    assert app.presence("ann").place is None and app.presence("bob").place is None
    before = notifications(app)
    assert not app.ends.release_match(match_id)  # a redelivery changes nothing
    assert notifications(app) == before


def test_the_end_of_a_match_ends_its_tickets(app):
    tickets = [app.tables.request_table(p, "r1", DRAW_2) for p in ("ann", "bob")]
    match_id = app.tables.ticket("ann", tickets[0].ticket_id).match_id
    app.ends.release_match(match_id)
    assert app.tables.ticket("bob", tickets[1].ticket_id).status == "ended"
    assert app.tables.request_table("bob", "r2", DRAW_2).status == "waiting"


def test_the_end_of_a_match_matchmaking_did_not_start_is_ignored(app):
    before = notifications(app)
    assert not app.ends.release_match(str(uuid.uuid4()))
    assert notifications(app) == before


def test_a_match_already_over_when_it_is_recorded_frees_its_players_at_once(app, matches):
    matches.ended = True
    table = app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    assert app.store.load(MatchLink, MatchLink.create_id(table.match_id)).released
    assert app.presence("ann").place is None


# ---- seated by rating ----------------------------------------------------------------------


class FakeRatings:
    """Matchmaking's Ratings port: ordinals by player (unrated: 0); ``down`` fails every ask."""

    def __init__(self, **ordinals: float) -> None:
        self.ordinals = ordinals
        self.asked: list[tuple[str, str, bool]] = []
        self.down = ""

    def ordinal(self, player_id: str, rules: str, teams: bool) -> float:
        self.asked.append((player_id, rules, teams))
        if self.down:
            raise RatingUnavailable(self.down, "GetRating failed: DEADLINE_EXCEEDED")
        return self.ordinals.get(player_id, 0.0)


def rated_app(clock, matches, ratings, **options) -> MatchmakingApplication:
    return MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=matches, clock=clock,
                                  ratings=ratings, **options)


def test_players_of_similar_rating_are_seated_together_when_two_tables_form(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0, ada=26.0, cub=-8.0))
    ace = app.tables.request_table("ace", "r1", DRAW_2)
    cub = app.tables.request_table("cub", "r1", DRAW_2)  # 38 points from ace: a table of its own
    clock.advance(1)
    ada = app.tables.request_table("ada", "r1", DRAW_2)
    assert ada.status == "seated" and ada.seats == ("ace", "ada") and app.tables.ticket("ace", ace.ticket_id).seat == 0
    assert app.tables.ticket("cub", cub.ticket_id).status == "waiting"
    assert app.tables.request_table("new", "r1", DRAW_2).seats == ("cub", "new")  # 0 is within 10 of -8
    assert app.tables.ratings.asked[0] == ("ace", "egyptian", False)


def test_a_table_that_has_waited_half_the_wait_takes_anyone(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0), table_wait_seconds=20)
    app.tables.request_table("ace", "r1", DRAW_2)
    clock.advance(9.9)
    assert app.tables.request_table("bob", "r1", DRAW_2).status == "waiting"
    app.tables.cancel_ticket("bob", app.players.whereabouts("bob").ticket.ticket_id)
    clock.advance(0.1)
    assert app.tables.request_table("bob", "r2", DRAW_2).seats == ("ace", "bob")


def test_the_rating_spread_is_a_setting(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0), table_rating_spread=30)
    app.tables.request_table("ace", "r1", DRAW_2)
    assert app.tables.request_table("bob", "r1", DRAW_2).seats == ("ace", "bob")
    with pytest.raises(ValueError):
        rated_app(clock, matches, FakeRatings(), table_rating_spread=-1)


def test_nobody_waits_longer_than_the_wait_and_split_tables_join_before_bots_come(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0, ada=30.0, cub=-10.0), table_wait_seconds=20)
    tickets = {}
    for player in ("ace", "cub", "ada"):
        tickets[player] = app.tables.request_table(player, "r1", BLOCK_4)
        clock.advance(1)
    assert len(app.store.load(Queue, Queue.create_id("egyptian", "block-4", True)).forming_tables()) == 2
    clock.advance(17)  # ace has waited 20 s
    (table_id,) = app.tables.fill_waiting_tables()
    seated = app.tables.ticket("cub", tickets["cub"].ticket_id)
    bots = ladder().nearest("egyptian/teams", (30.0 - 10.0 + 30.0) / 3,  # the offered bots rated nearest their mean
                            among=ladder().offered("egyptian/teams"))
    assert seated.table_id == table_id and seated.seats == ("ace", "cub", "ada", f"bot:{bots}:3")


def test_every_due_table_of_a_queue_is_formed_in_one_pass(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0, cub=-10.0, cid=-10.0), table_wait_seconds=20)
    three = Options.chosen("egyptian", "block-3")
    for player in ("ace", "cub", "cid"):
        app.tables.request_table(player, "r1", three)
    clock.advance(20)
    formed = app.tables.fill_waiting_tables()
    assert len(formed) == 1  # ace's table took cub and cid: one table, no second one to form
    assert app.store.load(Queue, Queue.create_id("egyptian", "block-3", False)).waiting == []


def test_a_rating_the_match_service_cannot_tell_seats_first_come_and_is_counted(clock, matches, caplog):
    registry = CollectorRegistry()
    ratings = FakeRatings(ace=30.0, cub=-8.0)
    app = rated_app(clock, matches, ratings, observer=PrometheusObserver(registry))
    app.tables.request_table("ace", "r1", DRAW_2)
    ratings.down = "deadline"
    assert app.tables.request_table("cub", "r1", DRAW_2).seats == ("ace", "cub")
    ratings.down = "backoff"
    app.tables.request_table("cat", "r1", DRAW_2)
    value = registry.get_sample_value
    assert value("domino_matchmaking_ratings_unavailable_total", {"reason": "deadline"}) == 1
    assert value("domino_matchmaking_ratings_unavailable_total", {"reason": "backoff"}) == 1
    warned = [r for r in caplog.records if r.getMessage().startswith("no rating to seat by")]
    assert [(r.player, r.reason) for r in warned] == [("cub", "deadline")]  # a back-off is not logged again


def test_a_retried_request_or_a_player_elsewhere_is_not_rated_again(clock, matches):
    ratings = FakeRatings()
    app = rated_app(clock, matches, ratings)
    first = app.tables.request_table("ann", "r1", BLOCK_4)
    assert app.tables.request_table("ann", "r1", BLOCK_4) == first
    with pytest.raises(AlreadyElsewhere):
        app.tables.request_table("ann", "r2", BLOCK_4)
    assert ratings.asked == [("ann", "egyptian", True)]


def test_a_queue_of_rated_tables_reads_back_the_same_from_a_snapshot(clock, matches):
    app = rated_app(clock, matches, FakeRatings(ace=30.0, ada=28.0, cub=-10.0))
    for player in ("ace", "cub", "ada", "bob"):
        app.tables.request_table(player, "r1", BLOCK_4)
    queue = app.store.load(Queue, Queue.create_id("egyptian", "block-4", True))
    snapshot = Snapshot.take(queue)
    restored = app.mapper.to_domain_event(app.mapper.to_stored_event(snapshot)).mutate(None)
    assert (restored.waiting, restored.forming) == (queue.waiting, queue.forming)
    assert [t.ordinals for t in restored.forming_tables()] == [(30.0, 28.0), (-10.0, 0.0)]


# ---- storage and metrics -------------------------------------------------------------------


def test_presence_keeps_the_last_twenty_tickets(app):
    for n in range(25):
        ticket = app.tables.request_table("ann", f"r{n}", BLOCK_4)
        app.tables.cancel_ticket("ann", ticket.ticket_id)
    assert len(app.store.load(Presence, Presence.create_id("ann")).tickets) == Presence.KEPT_TICKETS


def test_metrics_count_waits_tables_and_bot_seats(clock, matches):
    registry = CollectorRegistry()
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=matches, clock=clock,
                                 observer=PrometheusObserver(registry))
    app.tables.request_table("ann", "r1", BLOCK_4)
    clock.now += 30
    app.tables.fill_waiting_tables()
    app.tables.start_practice("bob", "p1", DRAW_2, "greedy")
    value = registry.get_sample_value
    assert value("domino_matchmaking_queue_wait_seconds_count") == 1
    assert value("domino_matchmaking_queue_wait_seconds_sum") == 30
    assert value("domino_matchmaking_tables_started_total", {"kind": "public"}) == 1
    assert value("domino_matchmaking_tables_started_total", {"kind": "practice"}) == 1
    assert value("domino_matchmaking_bot_seats_total", {"kind": "public"}) == 3
    assert value("domino_matchmaking_bot_seats_total", {"kind": "practice"}) == 1


def test_a_table_records_its_match_once(app):
    table = Table(table_id=str(uuid.uuid4()), kind=Table.PUBLIC, options=DRAW_2.as_dict(), seats=["a", "b"],
                  tickets=["t1", "t2"], at=0.0)
    assert table.assign_match("m1") and not table.assign_match("m2")
    table.close("match ended")
    assert table.closed and table.match_id == "m1"


def test_a_practice_the_match_service_refuses_is_closed_and_frees_the_player(app, matches):
    matches.refusal = "no"
    with pytest.raises(MatchRefused):
        app.tables.start_practice("ann", "p1", DRAW_2, "greedy")
    assert app.presence("ann").place is None
