"""Wires the notifier: its NATS user and the admin's three consumers, the social and match
services' clients, the providers, metrics, signals. It serves no API: `domino serve
notifier`."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import start_http_server

from services.common import bus, consumers
from services.common.auth import KeyRing
from services.common.bus_metrics import BusMetrics
from services.common.config import Settings
from services.common.lifecycle import run_service, stop_on_signals

from . import providers as provider_setup
from .consumer import NotifierConsumer
from .delivery import Retrying
from .match_client import MatchClient
from .pusher import Pusher
from .social_client import SocialClient

log = logging.getLogger("domino.notifier")


def retrying_of(settings: Settings) -> Retrying:
    return Retrying(attempts=settings.notifier_send_attempts, total_seconds=settings.notifier_send_seconds)


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    bus_metrics = BusMetrics()
    start_http_server(settings.notifier_metrics_port)
    keys = KeyRing.load(settings.keys_dir, issues=("service",))
    social = SocialClient(settings.social_address, keys, settings.notifier_call_seconds)
    matches = MatchClient(settings.match_address, keys, settings.notifier_call_seconds)
    providers = provider_setup.providers_of(settings)
    pusher = Pusher(social, providers, retrying_of(settings), turns=matches)
    stopping = stop_on_signals()
    nc = await bus.connect(settings, "notifier")
    consumer = NotifierConsumer(nc.jetstream(), pusher, matches, social, settings.notifier_concurrency,
                                settings.notifier_turn_grace_seconds,
                                on_message=lambda name, outcome: bus_metrics.outcomes(name, _ignore)(outcome),
                                on_mismatch=bus_metrics.on_mismatch)
    await consumers.start_when_reachable(consumer.start, stopping, settings.nats_url, "notices, turns and match ends")
    log.info("notifier consuming", extra={"nats": settings.nats_url, "social": settings.social_address,
                                          "match": settings.match_address,
                                          "metrics_port": settings.notifier_metrics_port})
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("notifier stopping: finishing the messages in hand")
    await consumer.stop()
    await nc.drain()
    await provider_setup.close(providers)
    await social.close()
    await matches.close()


def _ignore(outcome: str) -> None:
    pass


def main() -> None:
    run_service(serve)
