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
