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
    assert sorted(t.seat for t in seated) == [0, 1, 2, 3]
    view = system.match_view(seated[0].match_id)
    assert [s.player_id for s in view.seats] == list(seated[0].seats) == players
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
    assert list(seated.seats) == ["ann", "bot:greedy:1", "bot:greedy:2"]
    view = system.match_view(seated.match_id)
    assert [s.player_id for s in view.seats] == list(seated.seats) and view.status == match_pb.MATCH_STATUS_IN_PROGRESS


def test_watch_ticket_follows_a_ticket_from_waiting_to_its_match(system):
    ticket = system.request_table("ann", variant="draw-2")
    stream = system.stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"),
                                     timeout=20)
    first = next(stream)
    assert first.ticket.status == pb.TICKET_STATUS_WAITING
    system.request_table("bob", variant="draw-2")
    second = next(stream).ticket
    assert second.status == pb.TICKET_STATUS_SEATED and list(second.seats) == ["ann", "bob"]
    if not second.match_id:  # seated a moment before the match was recorded
        second = next(stream).ticket
    assert second.match_id and system.match_view(second.match_id).seats[0].player_id == "ann"
    system.app.ends.release_match(second.match_id)
    rest = [r.ticket for r in stream]
    assert rest[-1].status == pb.TICKET_STATUS_ENDED


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
    assert system.request_table("cat", variant="draw-2").seats == ["bob", "cat"]


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
    reply = system.stub.StartPractice(
        pb.StartPracticeRequest(request_id="p1", variant="block-4", teams=True, target=51, strength="strong"),
        metadata=auth("ann"))
    assert list(reply.seats) == ["ann", "bot:strong:1", "bot:strong:2", "bot:strong:3"]
    view = system.match_view(reply.match_id)
    assert [s.player_id for s in view.seats] == list(reply.seats)
    assert (view.teams, view.target, view.turn_timer_seconds) == (True, 51, 45)
    again = system.stub.StartPractice(
        pb.StartPracticeRequest(request_id="p1", variant="block-4", teams=True, target=51, strength="strong"),
        metadata=auth("ann"))
    assert again.match_id == reply.match_id
