"""The pause between rounds over real gRPC (docs/rules.md §1.6): the view tells every client
when the round's clocks start, and a bot at a table with people does not move before then
(red team finding 16)."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.bots.player import BotPlayer
from services.match.application import MatchApplication
from services.rules.moves import legal_moves
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

from .harness import running_service

PAUSE = 8.0


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(),
                           round_pause_seconds=PAUSE)
    with running_service(app) as service:
        yield service


def seconds(ts) -> float:
    return ts.ToNanoseconds() / 1e9


def to_round_two(svc, match_id: str) -> None:
    """Each seat plays its first legal move (no time passes) until round 2 is dealt."""
    app, n = svc.app, 0
    while True:
        match = svc.run(app.read(app.get_match, uuid.UUID(match_id)))
        if match.round_number == 2:
            return
        rnd = match.state.round
        move, player, n = legal_moves(rnd)[0], match.seats[rnd.turn], n + 1
        if move.kind == "draw":
            svc.run(app.draw_tile(match.id, player, f"r{n}"))
        else:
            svc.run(app.play_tile(match.id, player, move.tile, move.end, f"r{n}"))


@pytest.mark.parametrize("timer", [45, 0], ids=["45s", "unlimited"])
def test_the_view_of_a_new_round_says_when_its_clocks_start(svc, timer):
    created = svc.create(variant="draw-2", players=("ann", "bob"), request_id=f"view-{timer}",
                         turn_timer_seconds=timer).view
    assert seconds(created.round_starts_at) == svc.app.clock.now  # round 1: at once
    svc.app.clock.advance(3)
    to_round_two(svc, created.match_id)
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), metadata=auth("ann")).view
    assert view.round_number == 2
    assert seconds(view.round_starts_at) == svc.app.clock.now + PAUSE
    if timer:
        assert seconds(view.turn_deadline) == svc.app.clock.now + PAUSE + 45
    else:
        assert not view.HasField("turn_deadline")  # only round_starts_at tells an untimed client the pause


def test_a_bot_at_a_table_with_people_waits_for_the_round_to_start_before_it_moves(svc):
    clock = svc.app.clock
    created = svc.create(variant="draw-2", players=("ann", "bot:greedy:1"), request_id="bot-pause").view
    to_round_two(svc, created.match_id)
    match = svc.run(svc.app.read(svc.app.get_match, uuid.UUID(created.match_id)))
    if match.state.round.turn == 0:  # ann leads at once, during the pause: accepted
        move = legal_moves(match.state.round)[0]
        svc.run(svc.app.play_tile(match.id, "ann", move.tile, move.end, "lead"))
    starts_at = match.round_starts_at
    waits: list[float] = []
    moved_at: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock.advance(seconds)

    async def answer() -> int:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
            bot = BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS, clock=clock, sleep=sleep)
            sent = bot._send

            async def send(*args):
                moved_at.append(clock())
                return await sent(*args)

            bot._send = send  # type: ignore[method-assign]
            return await bot.play_turn(created.match_id, "bot:greedy:1")

    before = clock.now
    assert asyncio.run(answer()) >= 1
    assert waits and waits[0] == pytest.approx(starts_at - before)  # the rest of the pause
    assert moved_at and min(moved_at) >= starts_at  # its first command came once the round had started


def test_a_bot_only_match_has_no_pause_and_its_bots_never_wait(svc):
    created = svc.create(variant="draw-2", players=("bot:greedy:0", "bot:random:1"), request_id="bots").view
    to_round_two(svc, created.match_id)
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), metadata=auth("ops", "service")).view
    assert seconds(view.round_starts_at) == svc.app.clock.now
    assert BotPlayer(None, KEYS, clock=svc.app.clock).wait_for_round(view) == 0.0
