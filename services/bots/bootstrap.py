"""Wires the bot service: NATS consumer, gRPC channel to the match service, metrics."""

from __future__ import annotations

import asyncio
import logging

import grpc
from prometheus_client import Counter, Histogram, start_http_server

from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common import bus, consumers
from services.common.auth import KeyRing
from services.common.bus_metrics import BusMetrics
from services.common.config import Settings
from services.common.lifecycle import run_service, stop_on_signals

from .consumer import TurnConsumer
from .player import BotPlayer

log = logging.getLogger("domino.bots")


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    turns = Counter("domino_bots_turns_total", "Turn messages handled, by outcome", ["outcome"])
    decisions = Histogram("domino_bots_decision_seconds", "Time a strategy takes to choose a move", ["strength"],
                          buckets=(0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1))
    errors = Counter("domino_bots_errors_total", "Turns that failed and were redelivered")
    thinking = Counter("domino_bots_decision_cpu_seconds_total", "CPU the strategies spent choosing moves (their "
                       "thread's CPU time: a strong bot's search), apart from the rest of the bots' work", ["strength"])
    bus_metrics = BusMetrics()
    start_http_server(settings.bots_metrics_port)
    channel = grpc.aio.insecure_channel(settings.match_address)
    keys = KeyRing.load(settings.keys_dir, issues=("bot",))
    player = BotPlayer(pb_grpc.MatchServiceStub(channel), keys,
                       on_decision=lambda strength, seconds: decisions.labels(strength).observe(seconds),
                       on_thinking=lambda strength, seconds: thinking.labels(strength).inc(seconds),
                       think_seconds=(settings.bot_think_min_seconds,
                                      max(settings.bot_think_min_seconds, settings.bot_think_max_seconds)),
                       on_answered_elsewhere=lambda: turns.labels("answered_elsewhere").inc())

    def counted(outcome: str) -> None:
        turns.labels(outcome).inc()
        if outcome in ("retried", "error"):
            errors.inc()

    stopping = stop_on_signals()
    nc = await bus.connect(settings, "bots")
    consumer = TurnConsumer(nc.jetstream(), player, on_turn=bus_metrics.outcomes("bots", counted),
                            ack_wait=settings.bot_ack_wait_seconds, on_mismatch=bus_metrics.on_mismatch)
    await consumers.start_when_reachable(consumer.start, stopping, settings.nats_url, "turns")
    if consumer.subscription is not None:
        log.info("bot service consuming turns", extra={"nats": settings.nats_url, "match": settings.match_address})
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("bot service stopping: finishing turns in hand")
    await consumer.stop()
    await nc.drain()
    await channel.close()


def main() -> None:
    run_service(serve)
