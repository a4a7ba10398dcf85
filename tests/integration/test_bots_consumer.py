"""The bots' JetStream consumer against a real nats-server and a real match service: what
an attacker publishes on the turn subjects is terminated and counted, and real turns are
still answered (issue: 300 malformed messages stopped every bot)."""

from __future__ import annotations

import asyncio
import json
import time

import grpc
import nats
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.bots.consumer import TurnConsumer
from services.bots.player import BotPlayer
from services.common import bus
from services.match.application import MatchApplication
from tests.service.harness import running_service
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration


from tests.integration.fresh_bus import fresh_bus as fresh_stream  # noqa: E402


async def flood_then_a_real_turn(url: str, svc, match_id: str, turn: dict, outcomes: list) -> int:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await fresh_stream(js)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
        consumer = TurnConsumer(js, BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS), on_turn=outcomes.append)
        await consumer.start()
        try:
            for i in range(300):
                await js.publish(f"domino.v1.turn.flood-{i}", b"\xff not json" if i % 2 else b'{"match_id": 1}')
            await js.publish(bus.turn_subject(match_id), json.dumps(turn).encode())
            deadline = time.monotonic() + 20
            while "answered" not in outcomes:
                assert time.monotonic() < deadline, f"the real turn was not answered: {outcomes[-5:]}"
                await asyncio.sleep(0.05)
        finally:
            await consumer.stop()
            await nc.close()
    return len(outcomes)


def test_a_flood_of_malformed_turn_messages_is_dropped_and_real_turns_are_still_answered(nats_server):
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as svc:
        view = svc.create(variant="draw-2", players=("bot:greedy:0", "bot:greedy:1")).view
        turn = {"match_id": view.match_id, "version": view.version, "seat": view.turn,
                "player_id": view.seats[view.turn].player_id}
        outcomes: list[str] = []
        asyncio.run(flood_then_a_real_turn(nats_server.url, svc, view.match_id, turn, outcomes))
        assert outcomes.count("dropped:malformed") == 300
        assert "answered" in outcomes and "retried" not in outcomes
        after = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ops", "service")).view
        assert after.version > view.version


def test_a_turn_whose_payload_names_another_match_than_its_subject_is_dropped(nats_server):
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as svc:
        view = svc.create(variant="draw-2", players=("bot:greedy:0", "bot:greedy:1")).view
        other = svc.create(variant="draw-2", players=("bot:greedy:0", "bot:greedy:1"), request_id="other").view
        turn = {"match_id": other.match_id, "version": 1, "seat": 0, "player_id": "bot:greedy:0"}

        async def run() -> list:
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            await fresh_stream(js)
            outcomes: list[str] = []
            async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
                consumer = TurnConsumer(js, BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS),
                                        on_turn=outcomes.append)
                await consumer.start()
                await js.publish(bus.turn_subject(view.match_id), json.dumps(turn).encode())
                deadline = time.monotonic() + 10
                while not outcomes:
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.05)
                await consumer.stop()
            await nc.close()
            return outcomes

        assert asyncio.run(run()) == ["dropped:malformed"]


def test_turns_waiting_out_their_pause_do_not_hold_up_other_tables_turns(nats_server):
    """At tables with people a bot waits before it moves (its pace, the round's pause). Twelve
    such turns at once, every wait held open: each is still chosen (a waiting turn holds no
    place another's choice needs; it held one of 8 before, and the 9th table's bot sat idle
    until its turn timer played for it)."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    tables = 12
    with running_service(app) as svc:
        turns = []
        for n in range(tables):
            created = svc.create(variant="draw-2", players=(f"person-{n}", "bot:greedy:1"), request_id=f"t{n}").view
            view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), metadata=auth(f"person-{n}")).view
            if view.turn == 0:  # the person leads: any legal move
                move = view.legal_moves[0]
                view = svc.stub.PlayTile(pb.PlayTileRequest(match_id=view.match_id, request_id="lead", tile=move.tile,
                                                            end=move.end), metadata=auth(f"person-{n}")).view
            if view.turn == 1:
                turns.append({"match_id": view.match_id, "version": view.version, "seat": 1,
                              "player_id": "bot:greedy:1"})

        async def run() -> int:
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            await fresh_stream(js)
            held = asyncio.Event()
            chosen: list[str] = []

            async def wait_held(seconds: float) -> None:
                await held.wait()

            async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
                player = BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS, think_seconds=(1.0, 1.0), sleep=wait_held,
                                   on_decision=lambda strength, seconds: chosen.append(strength))
                consumer = TurnConsumer(js, player)
                await consumer.start()
                try:
                    for turn in turns:
                        await js.publish(bus.turn_subject(turn["match_id"]), json.dumps(turn).encode())
                    deadline = time.monotonic() + 20
                    while len(chosen) < len(turns) and time.monotonic() < deadline:
                        await asyncio.sleep(0.05)
                    return len(chosen)
                finally:
                    held.set()
                    await consumer.stop()
                    await nc.close()

        assert len(turns) > 8
        assert asyncio.run(run()) == len(turns)
