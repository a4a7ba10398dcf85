"""GetPresence over gRPC, and spectators as matchmaking passes them to a real match service.

A client that died (or a player on another device) asks where it is and goes back: to the
room it was in, the ticket it was waiting with, or the table and live match it was seated
at; once the match ends it is nowhere again. What matchmaking asked the match service for is
read from the CreateMatchRequests its match client sent (System.sent).
"""

from __future__ import annotations

import time

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.changes import ChangeFeed
from services.common.limits import RateLimit, StreamLimits
from services.matchmaking.application import MatchmakingApplication
from services.client.api import MatchApi, MatchmakingApi
from services.client.app import App
from services.client.inbox import Inbox
from services.client.store import LastMatch
from tests.support.errors import refusal
from tests.support.keys import auth, token

from .matchmaking_harness import POPO, running_matchmaking, running_system


@pytest.fixture
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


def nowhere(presence: pb.GetPresenceResponse) -> bool:
    return presence.WhichOneof("place") is None and presence.match_id == ""


# ---- where the caller is -------------------------------------------------------------------


def test_a_player_who_has_been_nowhere_is_nowhere_and_asking_stores_nothing(system):
    before = system.stored()
    assert nowhere(system.presence("ann"))
    assert system.stored() == before


def test_a_player_in_a_room_is_told_its_id_and_code_then_its_match_until_it_ends(system):
    room = system.create_room("ann", variant="draw-2")
    system.join("bob", room.code)
    presence = system.presence("bob")
    assert presence.WhichOneof("place") == "room" and presence.match_id == ""
    assert (presence.room.room_id, presence.room.code, presence.room.status) == (room.room_id, room.code,
                                                                                  pb.ROOM_STATUS_OPEN)
    assert [s.player_id for s in presence.room.seats] == ["ann", "bob"]
    match_id = system.start("ann", room.room_id).match_id
    for player in ("ann", "bob"):
        presence = system.presence(player)
        assert presence.room.status == pb.ROOM_STATUS_PLAYING and presence.room.match_id == presence.match_id == match_id
    mine = system.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id), metadata=auth("bob")).view
    assert mine.your_seat == 1  # the match it names is the player's to rejoin
    system.app.ends.release_match(match_id)  # the match ended (the match service's match_ended, handled)
    assert nowhere(system.presence("ann")) and nowhere(system.presence("bob"))


def test_a_player_waiting_for_a_table_finds_the_ticket_again_and_keeps_waiting_on_it(system):
    ticket = system.request_table("ann", variant="block-3")
    presence = system.presence("ann")  # the client died and started again: where was I?
    assert presence.WhichOneof("place") == "ticket" and presence.match_id == ""
    found = presence.ticket
    assert found.ticket_id == ticket.ticket_id and found.status == pb.TICKET_STATUS_WAITING
    assert (found.rules, found.variant, found.teams, found.seat_count) == ("egyptian", "block-3", False, 3)
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=found.ticket_id), metadata=auth("ann"),
                                     timeout=20)
    assert next(stream).ticket.status == pb.TICKET_STATUS_WAITING
    system.clock.advance(20)
    system.app.tables.fill_waiting_tables()
    seated = next(stream).ticket
    if not seated.match_id:
        seated = next(stream).ticket
    stream.cancel()
    assert seated.status == pb.TICKET_STATUS_SEATED and seated.match_id


def test_a_player_seated_at_a_public_table_is_told_the_table_and_its_live_match(system):
    tickets = [system.request_table(p, variant="draw-2") for p in ("ann", "bob")]
    presence = system.presence("bob")
    assert presence.WhichOneof("place") == "table"
    table = presence.table
    assert table.kind == pb.TABLE_KIND_PUBLIC and table.ticket_id == tickets[1].ticket_id
    assert (table.your_seat, list(table.player_ids)) == (1, ["ann", "bob"])
    assert table.options.variant == "draw-2" and table.options.spectators
    assert table.match_id == presence.match_id == system.ticket("bob", tickets[1].ticket_id).match_id
    view = system.match_view(presence.match_id)
    assert view.status == match_pb.MATCH_STATUS_IN_PROGRESS and view.seats[table.your_seat].player_id == "bob"
    system.app.ends.release_match(presence.match_id)
    assert nowhere(system.presence("ann")) and nowhere(system.presence("bob"))
    assert system.ticket("bob", tickets[1].ticket_id).status == pb.TICKET_STATUS_ENDED


def test_a_practising_player_is_told_the_practice_table_until_they_leave_its_match(system):
    started = system.practice("ann", variant="draw-2", strength="strong")
    presence = system.presence("ann")
    table = presence.table
    assert presence.WhichOneof("place") == "table" and table.kind == pb.TABLE_KIND_PRACTICE
    assert (table.your_seat, list(table.player_ids), table.ticket_id) == (0, list(started.player_ids), "")
    assert presence.match_id == table.match_id == started.match_id
    system.app.ends.release_players(started.match_id, ["ann"])  # LeaveMatch: the match goes on without her
    assert nowhere(system.presence("ann"))


def test_a_cancelled_ticket_or_a_room_left_leaves_the_player_nowhere(system):
    ticket = system.request_table("ann")
    system.stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"))
    assert nowhere(system.presence("ann"))
    room = system.create_room("ann", request_id="room-2")
    system.join("bob", room.code)
    system.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=auth("bob"))
    assert nowhere(system.presence("bob")) and system.presence("ann").room.room_id == room.room_id


def test_each_player_is_told_only_their_own_place(system):
    system.request_table("ann")
    assert nowhere(system.presence("bob"))


def test_get_presence_is_rate_limited_like_every_call():
    app = MatchmakingApplication(env=POPO)
    changes = ChangeFeed()
    with running_matchmaking(app, changes, limits=(StreamLimits(), RateLimit(rate=1, burst=3))) as port, \
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.MatchmakingServiceStub(channel)
        for _ in range(3):
            stub.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann"))
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann"))
        said = refusal(caught.value)
        assert (said.code, said.reason, said.domain) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED",
                                                         "domino.matchmaking")
        assert said.retry_after and 0 < said.retry_after <= 1  # one request a second: the next within it
        stub.GetPresence(pb.GetPresenceRequest(), metadata=auth("bob"))  # somebody else is not affected
        time.sleep(1.1)
        stub.GetPresence(pb.GetPresenceRequest(), metadata=auth("ann"))
    app.close()


def test_a_player_past_their_open_streams_is_refused_another_with_its_own_reason():
    app = MatchmakingApplication(env=POPO)
    changes = ChangeFeed()
    with running_matchmaking(app, changes, limits=(StreamLimits(per_caller=1), RateLimit(1e9, 1e9))) as port, \
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.MatchmakingServiceStub(channel)
        room = stub.CreateRoom(pb.CreateRoomRequest(request_id="r"), metadata=auth("ann")).room
        watch = lambda: stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=auth("ann"),  # noqa: E731
                                       timeout=10)
        held = watch()
        next(held)
        with pytest.raises(grpc.RpcError) as caught:
            next(watch())
        held.cancel()
    app.close()
    said = refusal(caught.value)
    assert (said.code, said.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STREAM_LIMIT")


def test_the_terminal_client_offers_the_way_back_that_the_server_names(system, tmp_path):
    """`domino play`'s menu offer, from a real GetPresence: the ticket, then the live match."""
    ticket = system.request_table("ann", variant="draw-2")
    matchmaking = MatchmakingApi(f"127.0.0.1:{system.port}", token("ann"))
    match = MatchApi(f"127.0.0.1:{system.match.port}", token("ann"))
    app = App("ann", match, matchmaking, Inbox(), out=None, store=LastMatch(tmp_path, "ann"),  # type: ignore[arg-type]
              clock=system.clock)
    try:
        back = app.way_back()
        assert back.ticket.ticket_id == ticket.ticket_id and back.label.startswith("Keep waiting for your public table")
        system.request_table("bob", variant="draw-2")
        back = app.way_back()
        assert back.match_id == system.ticket("ann", ticket.ticket_id).match_id
        assert back.label.startswith("Resume your match (Egyptian draw-2, round 1, scores 0 – 0; public table")
        assert app.last_match_id() == back.match_id
        system.app.ends.release_match(back.match_id)
        assert app.way_back() is None
    finally:
        matchmaking.close()
        match.close()


# ---- spectators ----------------------------------------------------------------------------


def watch_as(system, player: str, match_id: str) -> match_pb.WatchMatchResponse:
    """The first item of WatchMatch for ``player`` (grpc.RpcError when refused)."""
    stream = system.match.stub.WatchMatch(match_pb.WatchMatchRequest(match_id=match_id), metadata=auth(player),
                                          timeout=10)
    try:
        return next(stream)
    finally:
        stream.cancel()


def full_room(system, host: str, **options) -> pb.RoomView:
    room = system.create_room(host, variant="draw-2", request_id=f"room-{host}", **options)
    return system.add_bot(host, room.room_id)


def test_a_room_created_with_spectators_starts_a_match_that_allows_them(system):
    room = full_room(system, "ann", spectators=True)
    assert room.options.spectators
    started = system.start("ann", room.room_id)
    sent = system.sent(f"room:{room.room_id}")
    assert sent.spectators is True and [s.player_id for s in sent.seats] == ["ann", "bot:greedy:1"]
    assert system.match_view(started.match_id).status == match_pb.MATCH_STATUS_IN_PROGRESS
    assert not watch_as(system, "zed", started.match_id).view.HasField("your_seat")  # the match service lets zed watch


def test_a_room_allows_no_spectators_unless_its_host_says_so(system):
    room = full_room(system, "ann")
    assert not room.options.spectators
    match_id = system.start("ann", room.room_id).match_id
    assert system.sent(f"room:{room.room_id}").spectators is False
    with pytest.raises(grpc.RpcError) as caught:
        watch_as(system, "zed", match_id)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_the_host_turns_spectators_on_and_off_before_the_start(system):
    room = full_room(system, "ann")
    update = lambda **o: system.stub.UpdateRoomOptions(  # noqa: E731
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, **o), metadata=auth("ann")).room
    assert update(spectators=True).options.spectators
    assert update(target=51).options.spectators  # the other options leave it as it is
    assert update(rules="all-fives", seat_count=2).options.spectators  # so does another family
    assert not update(spectators=False).options.spectators
    update(spectators=True)
    system.start("ann", room.room_id)
    assert system.sent(f"room:{room.room_id}").spectators is True


def test_public_tables_allow_spectators_and_practice_does_not(system):
    tickets = [system.request_table(p, variant="draw-2") for p in ("ann", "bob")]
    table_id = system.ticket("ann", tickets[0].ticket_id).table_id
    assert system.sent(f"table:{table_id}").spectators is True
    system.practice("cat", variant="draw-2")
    practice = system.presence("cat").table
    assert system.sent(f"practice:{practice.table_id}").spectators is False
    assert not practice.options.spectators
