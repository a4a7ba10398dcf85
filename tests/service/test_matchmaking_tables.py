"""Public tables, tickets and practice over gRPC, started on a real match service."""

from __future__ import annotations

import threading

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from tests.support.keys import auth

from .matchmaking_harness import running_system


@pytest.fixture
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


def test_four_players_asking_for_block_4_are_seated_at_one_table_and_play_one_match(system):
    players = ["ann", "bob", "cat", "dan"]
    tickets = [system.request_table(p) for p in players]
    assert [t.status for t in tickets] == [pb.TICKET_STATUS_WAITING] * 3 + [pb.TICKET_STATUS_SEATED]
    seated = [system.ticket(p, t.ticket_id) for p, t in zip(players, tickets)]
    assert {t.status for t in seated} == {pb.TICKET_STATUS_SEATED}
    assert len({t.match_id for t in seated}) == 1 and len({t.table_id for t in seated}) == 1
    assert sorted(t.your_seat for t in seated if t.HasField("your_seat")) == [0, 1, 2, 3]
    view = system.match_view(seated[0].match_id)
    assert [s.player_id for s in view.seats] == list(seated[0].player_ids) == players
    assert (view.variant, view.teams, view.target, view.turn_timer_seconds) == ("block-4", True, 101, 45)


def test_solo_block_4_is_a_table_of_its_own(system):
    for p in ("ann", "bob", "cat"):
        system.request_table(p, teams=False)
    assert system.request_table("dan").status == pb.TICKET_STATUS_WAITING  # teams: another queue
    last = system.request_table("eve", teams=False)
    assert last.status == pb.TICKET_STATUS_SEATED and system.match_view(last.match_id).teams is False


def test_one_player_gets_bots_once_the_wait_is_over(system):
    ticket = system.request_table("ann", variant="block-3")
    system.clock.advance(19)
    assert system.app.tables.fill_waiting_tables() == []
    system.clock.advance(1)
    system.app.tables.fill_waiting_tables()
    seated = system.ticket("ann", ticket.ticket_id)
    assert seated.status == pb.TICKET_STATUS_SEATED
    assert list(seated.player_ids) == ["ann", "bot:greedy:1", "bot:greedy:2"]
    view = system.match_view(seated.match_id)
    assert [s.player_id for s in view.seats] == list(seated.player_ids) and view.status == match_pb.MATCH_STATUS_IN_PROGRESS


def test_watch_ticket_follows_a_ticket_from_waiting_to_its_match(system):
    ticket = system.request_table("ann", variant="draw-2")
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"),
                                     timeout=20)
    first = next(stream)
    assert first.ticket.status == pb.TICKET_STATUS_WAITING
    system.request_table("bob", variant="draw-2")
    second = next(stream).ticket
    assert second.status == pb.TICKET_STATUS_SEATED and list(second.player_ids) == ["ann", "bob"]
    if not second.match_id:  # seated a moment before the match was recorded
        second = next(stream).ticket
    assert second.match_id and system.match_view(second.match_id).seats[0].player_id == "ann"
    system.app.ends.release_match(second.match_id)
    rest = [r.ticket for r in stream]
    assert rest[-1].status == pb.TICKET_STATUS_ENDED


def test_a_ticket_is_unseated_until_seated_and_its_version_grows_with_each_change(system):
    waiting = system.request_table("ann", variant="draw-2")
    assert not waiting.HasField("your_seat") and not waiting.player_ids
    system.request_table("bob", variant="draw-2")
    seated = system.ticket("ann", waiting.ticket_id)
    assert seated.HasField("your_seat") and seated.your_seat == 0 and seated.version > waiting.version
    system.app.ends.release_match(seated.match_id)
    assert system.ticket("ann", waiting.ticket_id).version > seated.version


def test_watch_ticket_from_the_version_the_client_has_sends_only_what_follows(system):
    ticket = system.request_table("ann", variant="draw-2")
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id, from_version=ticket.version),
                                     metadata=auth("ann"), timeout=20)
    system.request_table("bob", variant="draw-2")
    after = next(stream).ticket
    stream.cancel()
    assert after.status == pb.TICKET_STATUS_SEATED and after.version > ticket.version


def test_watch_ticket_from_an_older_version_sends_the_current_state_first(system):
    ticket = system.request_table("ann", variant="draw-2")
    system.request_table("bob", variant="draw-2")
    now = system.ticket("ann", ticket.ticket_id)
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id, from_version=ticket.version),
                                     metadata=auth("ann"), timeout=20)
    first = next(stream).ticket
    stream.cancel()
    assert first.status == pb.TICKET_STATUS_SEATED and first.version == now.version


def test_every_ticket_view_carries_the_servers_clock(system):
    system.clock.advance(7.25)
    ticket = system.request_table("ann", variant="draw-2")
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"),
                                     timeout=20)
    watched = next(stream).ticket
    stream.cancel()
    presence = system.presence("ann")
    for view in (ticket, system.ticket("ann", ticket.ticket_id), watched, presence.ticket, presence):
        assert view.server_time.ToNanoseconds() == int(system.clock() * 1e9)


def test_a_watched_ticket_that_is_cancelled_ends_its_stream(system):
    ticket = system.request_table("ann")
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"),
                                     timeout=20)
    seen = []
    first = threading.Event()

    def read():
        for reply in stream:
            seen.append(reply.ticket.status)
            first.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert first.wait(20), "the stream sent nothing"  # cancel only once the watch has begun
    cancelled = system.stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"))
    reader.join(20)
    assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
    assert seen[0] == pb.TICKET_STATUS_WAITING and seen[-1] == pb.TICKET_STATUS_CANCELLED


def test_a_cancelled_ticket_is_not_seated(system):
    ann = system.request_table("ann", variant="draw-2")
    system.stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ann.ticket_id), metadata=auth("ann"))
    assert system.request_table("bob", variant="draw-2").status == pb.TICKET_STATUS_WAITING
    assert system.request_table("cat", variant="draw-2").player_ids == ["bob", "cat"]


def test_a_second_ticket_is_refused_while_the_first_is_open(system):
    system.request_table("ann")
    with pytest.raises(grpc.RpcError) as caught:
        system.request_table("ann", variant="draw-2", request_id="another")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already waiting" in caught.value.details()


def test_a_player_seated_at_a_table_cannot_ask_for_another_until_its_match_ends(system):
    tickets = [system.request_table(p, variant="draw-2") for p in ("ann", "bob")]
    with pytest.raises(grpc.RpcError) as caught:
        system.request_table("ann", variant="draw-2", request_id="again")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    system.app.ends.release_match(system.ticket("ann", tickets[0].ticket_id).match_id)
    assert system.request_table("ann", variant="draw-2", request_id="again").status == pb.TICKET_STATUS_WAITING


def test_practice_starts_a_match_against_bots_of_the_chosen_strength(system):
    reply = system.practice("ann", variant="block-4", teams=True, target=51, strength="strong")
    assert list(reply.player_ids) == ["ann", "bot:strong:1", "bot:strong:2", "bot:strong:3"] and reply.your_seat == 0
    view = system.match_view(reply.match_id)
    assert [s.player_id for s in view.seats] == list(reply.player_ids)
    assert (view.teams, view.target, view.turn_timer_seconds) == (True, 51, 45)
    again = system.practice("ann", variant="block-4", teams=True, target=51, strength="strong")
    assert again.match_id == reply.match_id
