"""What a publisher on our subjects could send to break a consumer, sent through a real
nats-server to the real consumers (red team: 10,000 nested brackets on a turn or
`match_ended` subject raised RecursionError, escaped the checks, came back five times and
was never counted; a turn of version 2**70 was tried five times).

Each hostile message must be delivered once (terminated, never redelivered), counted in
`domino_bus_dropped_total`, and leave the consumer handling the good message after it.
"""

from __future__ import annotations

import asyncio
import json
import time

import grpc
import nats
import pytest
from prometheus_client import CollectorRegistry

from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.bots.consumer import TurnConsumer
from services.bots.player import BotPlayer
from services.common import bus, consumers
from services.common.bus_metrics import BusMetrics
from services.match.application import MatchApplication
from services.match.relay import Relay
from services.matchmaking.match_end_consumer import MatchEndConsumer
from tests.integration.fresh_bus import fresh_bus
from tests.integration.test_matchmaking_match_end import play_to_the_end
from tests.service.harness import running_service
from tests.service.matchmaking_harness import running_system
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration


def hostile(match_id: str) -> dict[str, bytes]:
    """Payloads no reader of ours may take, each under the 64 KiB a payload may have."""
    event = {"match_id": match_id, "version": 5}
    return {
        "10,000 nested arrays": b"[" * 10_000 + b"]" * 10_000,
        "10,000 nested objects inside a payload": (f'{{"match_id": "{match_id}", "version": 5, "x": '.encode()
                                                    + b'{"a":' * 10_000 + b"1" + b"}" * 10_001),
        "version 2**70": json.dumps({**event, "version": 2**70}).encode(),
        "version 2**31": json.dumps({**event, "version": 2**31}).encode(),
        "a 5,000-digit version": f'{{"match_id": "{match_id}", "version": {"9" * 5000}}}'.encode(),
    }


def hostile_turns(match_id: str) -> dict[str, bytes]:
    """The above, and turns whose seat or player id no match has."""
    turn = {"match_id": match_id, "version": 5, "seat": 0, "player_id": "bot:greedy:0"}
    return {**hostile(match_id),
            "version 2**70 in a turn": json.dumps({**turn, "version": 2**70}).encode(),
            "seat 2**70": json.dumps({**turn, "seat": 2**70}).encode(),
            "seat 4": json.dumps({**turn, "seat": 4}).encode(),
            "a lone surrogate in the player id": json.dumps({**turn, "player_id": "\ud800"}).encode()}


def dropped(registry: CollectorRegistry, consumer: str, reason: str) -> float:
    return registry.get_sample_value("domino_bus_dropped_total", {"consumer": consumer, "reason": reason}) or 0


async def settled(js, name: str, timeout: float = 5.0):
    """The consumer's state once nothing it delivered waits for an acknowledgement."""
    deadline = time.monotonic() + timeout
    while True:
        info = await js.consumer_info(bus.STREAM, name)
        if info.num_ack_pending == 0 or time.monotonic() > deadline:
            return info
        await asyncio.sleep(0.05)


async def until(condition, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def test_hostile_turn_payloads_are_terminated_once_counted_and_the_next_turn_is_answered(nats_server):
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    registry = CollectorRegistry()
    metrics = BusMetrics(registry)
    with running_service(app) as svc:
        view = svc.create(variant="draw-2", players=("bot:greedy:0", "bot:greedy:1")).view
        turn = {"match_id": view.match_id, "version": view.version, "seat": view.turn,
                "player_id": view.seats[view.turn].player_id}
        payloads = hostile_turns(view.match_id)
        outcomes: list[str] = []

        async def run():
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            await fresh_bus(js)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
                consumer = TurnConsumer(js, BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS),
                                        on_turn=metrics.outcomes("bots", outcomes.append))
                await consumer.start()
                try:
                    for data in payloads.values():
                        await js.publish(bus.turn_subject(view.match_id), data)
                    # a good turn straight onto the deliver subject: not from the stream, not played
                    await nc.publish(bus.deliver_subject(bus.BOTS_CONSUMER), json.dumps(turn).encode())
                    await js.publish(bus.turn_subject(view.match_id), json.dumps(turn).encode())
                    await until(lambda: "answered" in outcomes, f"the good turn was not answered: {outcomes}")
                    await until(lambda: dropped(registry, "bots", "malformed") == len(payloads)
                                and dropped(registry, "bots", "not_jetstream") == 1, "not all were dropped")
                    return await settled(js, bus.BOTS_CONSUMER)
                finally:
                    await consumer.stop()
                    await nc.close()

        info = asyncio.run(run())
    assert dropped(registry, "bots", "malformed") == len(payloads), outcomes
    assert dropped(registry, "bots", "not_jetstream") == 1, outcomes
    assert outcomes.count("answered") == 1 and "retried" not in outcomes and "error" not in outcomes
    assert info.num_ack_pending == 0 and info.num_redelivered == 0  # each was delivered once
    assert info.delivered.stream_seq == len(payloads) + 1


def test_hostile_match_ended_and_seat_left_payloads_are_terminated_once_counted_and_the_real_end_is_handled(
        nats_server):
    registry = CollectorRegistry()
    metrics = BusMetrics(registry)
    with running_system() as system:
        reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2"),
                                          metadata=auth("ann"))
        play_to_the_end(system, [reply.match_id])
        payloads = hostile(reply.match_id)
        outcomes: list[str] = []

        async def run():
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            await fresh_bus(js)
            consumer = MatchEndConsumer(js, system.app, on_message=metrics.outcomes("matchmaking", outcomes.append))
            await consumer.start()
            try:
                for event in ("match_ended", "seat_left"):
                    for data in payloads.values():
                        await js.publish(bus.match_event_subject(reply.match_id, event), data)
                relay = Relay(system.match.app, js)  # then the real events, the real match_ended among them
                await relay.start()
                while await relay.pump():
                    pass
                await until(lambda: system.app.match_link(reply.match_id).released, "the real end was not handled")
                await until(lambda: dropped(registry, "matchmaking", "malformed") == 2 * len(payloads),
                            f"not all were dropped: {outcomes}")
                return [await settled(js, spec.name) for spec in (consumers.MATCH_ENDED, consumers.SEAT_LEFT)]
            finally:
                await consumer.stop()
                await nc.close()

        infos = asyncio.run(run())
        assert system.app.presence("ann").place is None
    assert "released" in outcomes and "retried" not in outcomes
    for info in infos:
        assert info.num_ack_pending == 0 and info.num_redelivered == 0, info.name
