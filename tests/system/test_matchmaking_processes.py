"""Matchmaking as a process: practice and public tables end in real matches, and a match's
end (learnt from NATS) frees the players. The players sign in by device at the account
service, as phones do."""

from __future__ import annotations

import time

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc

from .conftest import signed_in

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def matchmaking(shared_system):
    """One system for the module: its tests seat players of their own and kill nothing."""
    with grpc.insecure_channel(shared_system.matchmaking_address) as channel:
        yield pb_grpc.MatchmakingServiceStub(channel)


def auto_play(client, match_id: str, player: str) -> match_pb.MatchView:
    """The person's seat plays its first legal move until the match ends (bots play theirs)."""
    n = 0
    while True:
        view = client.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id), metadata=signed_in(client.system, player)).view
        if view.status == match_pb.MATCH_STATUS_ENDED:
            return view
        if view.turn == view.your_seat and view.legal_moves:
            move = view.legal_moves[0]
            try:
                if move.kind == match_pb.MOVE_KIND_DRAW:
                    client.stub.DrawTile(match_pb.DrawTileRequest(match_id=match_id, request_id=f"p{n}"),
                                         metadata=signed_in(client.system, player))
                else:
                    client.stub.PlayTile(match_pb.PlayTileRequest(match_id=match_id, request_id=f"p{n}",
                                                                  tile=move.tile, end=move.end), metadata=signed_in(client.system, player))
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.FAILED_PRECONDITION  # the view was a moment old
            n += 1
        else:
            time.sleep(0.05)


def test_practice_against_bots_plays_to_the_end_and_frees_the_player(shared_client, matchmaking):
    client = shared_client
    started = matchmaking.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2", target=51),
                                        metadata=signed_in(client.system, "pat"))
    final = auto_play(client, started.match_id, "pat")
    assert final.status == match_pb.MATCH_STATUS_ENDED
    # at once, whether or not matchmaking has had match_ended from NATS yet: it asks the match service
    following = matchmaking.StartPractice(pb.StartPracticeRequest(request_id="p2", variant="draw-2"),
                                          metadata=signed_in(client.system, "pat"))
    assert following.match_id != started.match_id


def test_a_lone_player_at_a_public_table_gets_bots_after_the_wait(shared_client, matchmaking):
    client = shared_client
    ticket = matchmaking.RequestTable(pb.RequestTableRequest(request_id="t1", variant="block-4"),
                                      metadata=signed_in(client.system, "lone")).ticket
    deadline = time.monotonic() + 30
    while ticket.status != pb.TICKET_STATUS_SEATED or not ticket.match_id:  # match_id follows once the match exists
        assert time.monotonic() < deadline, "the table was never filled"
        time.sleep(0.2)
        ticket = matchmaking.GetTicket(pb.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=signed_in(client.system, "lone")).ticket
    assert sum(s.startswith("bot:") for s in ticket.player_ids) == 3
