"""A bot's pace at a table with people, over real gRPC with the service's clock injected: its
think time counts from when its turn began, never runs past half of what the turn has left,
is taken once a turn (a bot drawing twelve tiles took six seconds, one pause a tile), and
never eats the next person's time (issue 34, 13 and 17)."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.bots.player import BotPlayer
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

from .harness import running_service

BOT = "bot:greedy:1"


@pytest.fixture
def svc():
    rng = random.Random(7)
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(),
                           seed_source=lambda: rng.randbytes(32))
    with running_service(app) as service:
        yield service


def bot_turn(svc, match_id: str, think: tuple[float, float], late: float = 0.0) -> list[float]:
    """The bot answers its turn ``late`` seconds after it began; the pauses it took."""
    clock = svc.app.clock
    clock.advance(late)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)

    async def answer() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
            bot = BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS, think_seconds=think, clock=clock, sleep=sleep)
            await bot.play_turn(match_id, BOT)

    asyncio.run(answer())
    return slept


def person_plays(svc, match_id: str, n: int) -> pb.MatchView:
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view
    move = next((m for m in view.legal_moves if m.kind == pb.MOVE_KIND_PLAY), view.legal_moves[0])
    if move.kind == pb.MOVE_KIND_DRAW:
        return svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"p{n}"), metadata=auth("ann")).view
    return svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"p{n}", tile=move.tile, end=move.end),
                             metadata=auth("ann")).view


def to_the_bots_turn(svc, request_id: str, timer: int = 30) -> pb.MatchView:
    view = svc.create(variant="draw-2", players=("ann", BOT), request_id=request_id, turn_timer_seconds=timer).view
    n = 0
    while view.turn == 0:
        view, n = person_plays(svc, view.match_id, n), n + 1
    return view


def test_a_bots_think_time_counts_from_when_its_turn_began_not_from_when_it_heard_of_it(svc):
    view = to_the_bots_turn(svc, "late")
    slept = bot_turn(svc, view.match_id, think=(1.5, 1.5), late=1.0)  # the relay took a second
    assert slept == [pytest.approx(0.5, abs=0.05)]


def test_a_bot_never_thinks_through_more_than_half_the_time_its_turn_has_left(svc):
    view = to_the_bots_turn(svc, "half", timer=30)
    slept = bot_turn(svc, view.match_id, think=(25.0, 25.0), late=2.0)
    assert slept == [pytest.approx(14.0, abs=0.05)]  # (30 - 2) / 2


def test_a_bot_that_draws_many_tiles_thinks_once_not_once_a_tile(svc):
    for n in range(30):
        view = to_the_bots_turn(svc, f"draws-{n}")
        while view.status == pb.MATCH_STATUS_IN_PROGRESS:
            before = len(view.round_actions)
            slept = bot_turn(svc, view.match_id, think=(0.5, 0.5))
            view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ann")).view
            turn = [a for a in view.round_actions[before:] if a.seat == 1]
            if sum(1 for a in turn if a.kind == pb.MOVE_KIND_DRAW) >= 2:
                assert len(slept) == 1  # one think, then the draws and the play
                return
            m = 0
            while view.turn == 0 and view.status == pb.MATCH_STATUS_IN_PROGRESS:
                view, m = person_plays(svc, view.match_id, 1000 * n + len(view.round_actions) + m), m + 1
    raise AssertionError("no bot turn drew two tiles in 30 matches")


def test_a_bots_think_pause_never_eats_the_next_persons_time(svc):
    view = to_the_bots_turn(svc, "next")
    bot_turn(svc, view.match_id, think=(1.5, 1.5), late=0.4)
    after = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ann")).view
    match = svc.run(svc.app.read(svc.app.get_match, uuid.UUID(view.match_id)))
    assert after.turn == 0  # the person's whole turn is ahead of them, by the server's clock now
    left = after.turn_deadline.ToNanoseconds() / 1e9 - after.server_time.ToNanoseconds() / 1e9
    assert left == pytest.approx(30.0, abs=0.01) and match.deadline == pytest.approx(svc.app.clock() + 30)
