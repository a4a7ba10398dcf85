"""The bot player answers turns through the public gRPC API, and never sends a move the
server refuses (issue: strong bots sent refused moves at a round's start)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.bots.player import BotPlayer
from services.match.application import MatchApplication

from .harness import KEYS, Clock, auth, running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as service:
        yield service


def start(svc, request_id: str, strength: str) -> pb.MatchView:
    players = (f"bot:{strength}:0", f"bot:{strength}:1")
    return svc.create(rules="all-fives", variant="", players=players, target=100, request_id=request_id).view


async def twice(svc, match_id: str, player_id: str, seeds=(1, 2)) -> list:
    """Two turn messages for one seat answered at once: by one bot process, or by two replicas."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        one, other = BotPlayer(stub, KEYS, seed=seeds[0]), BotPlayer(stub, KEYS, seed=seeds[1])
        same = one if seeds[0] == seeds[1] else other
        return await asyncio.gather(one.play_turn(match_id, player_id), same.play_turn(match_id, player_id),
                                    return_exceptions=True)


@pytest.mark.parametrize("strength", ["random", "strong"])
@pytest.mark.parametrize("seeds", [(1, 1), (1, 2)], ids=["one-process", "two-replicas"])
def test_a_turn_answered_twice_at_once_sends_one_move_and_none_is_refused(svc, strength, seeds):
    for n in range(6):  # a chance leader opens with any of 7 tiles: different choices would clash
        view = start(svc, f"{strength}-{seeds}-{n}", strength)
        leader = view.seats[view.turn].player_id
        results = asyncio.run(twice(svc, view.match_id, leader, seeds))
        refused = [r for r in results if isinstance(r, Exception)]
        assert not refused, refused
        after = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ops", "service")).view
        assert after.round_actions[0].seat == view.turn and after.round_actions[0].kind == pb.MOVE_KIND_PLAY


def seats_of(*players: str) -> pb.MatchView:
    return pb.MatchView(seats=[pb.SeatView(player_id=p) for p in players])


def test_a_bot_at_a_table_with_people_takes_a_human_pace():
    import random

    bot = BotPlayer(None, KEYS, think_seconds=(0.6, 1.5))
    paces = [bot.pace(seats_of("ann", "bot:greedy:1"), random.Random(n)) for n in range(50)]
    assert all(0.6 <= p <= 1.5 for p in paces) and len(set(paces)) > 1


def test_a_bot_only_match_never_waits():
    import random

    bot = BotPlayer(None, KEYS, think_seconds=(0.6, 1.5))
    assert bot.pace(seats_of("bot:greedy:0", "bot:strong:1"), random.Random(1)) == 0.0
