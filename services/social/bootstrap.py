"""Wires the social service: store, inbox and pushes, the account and match services'
clients, gRPC server, the revocation list, presence's lease, the outbox and the notice
subscription (NATS), the expiry sweep, metrics, signals."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from prometheus_client import start_http_server

from domino.social.v1 import social_service_pb2, social_service_pb2_grpc
from services.common.auth import KeyRing
from services.common.config import Settings, persistence_env
from services.common.grpc_metrics import RpcMetrics
from services.common.grpc_server import drain, mark_serving, new_server
from services.common.lifecycle import run_service, stop_on_signals
from services.common.changes import ChangeFeed
from services.common.limits import RateLimit, StreamLimits
from services.common.revocation_polling import poll_revocations
from services.common.revocations import Revocations

from .account_client import GrpcDirectory
from .bus_link import run_bus_link
from .grpc_adapter import SocialServicer
from .inbox import Inbox
from .match_client import GrpcPlayingNow
from .presence import Presence
from .push_tokens import Pushes, push_limits_of
from .store import SocialStore
from .upkeep import sweep_expired
from .use_cases import Limits, Social

log = logging.getLogger("domino.social")
SERVICE_NAME = social_service_pb2.DESCRIPTOR.services_by_name["SocialService"].full_name


def limits_of(settings: Settings) -> Limits:
    return Limits(friends=settings.social_friends_max, pending_requests=settings.social_pending_requests_max,
                  requests_per_hour=settings.social_requests_per_hour, blocks=settings.social_blocks_max,
                  incoming_requests=settings.social_incoming_requests_max)


def create_server(address: str, social: Social, keys: KeyRing, metrics: RpcMetrics | None = None,
                  settings: Settings | None = None, revocations: Revocations | None = None, *,
                  pushes: Pushes | None = None, presence: Presence | None = None, playing: Any = None,
                  wakes: ChangeFeed | None = None):
    """(server, port): SocialService on the common gRPC server (health, reflection, metrics;
    ``settings``: its connection policy, reflection, TLS, the players' rate limit and the
    inbox streams' limits)."""
    settings = settings if settings is not None else Settings.model_construct()
    streams = StreamLimits(_setting(settings, "social_inbox_streams_per_player", 5),
                           _setting(settings, "social_inbox_streams_max", 10000))
    servicer = SocialServicer(social, keys, RateLimit(settings.command_rate, settings.command_burst), revocations,
                              pushes=pushes, presence=presence, playing=playing, wakes=wakes, inbox_streams=streams,
                              poll_seconds=_setting(settings, "watch_poll_seconds", 30.0))
    return new_server(address, SERVICE_NAME,
                      lambda server: social_service_pb2_grpc.add_SocialServiceServicer_to_server(servicer, server),
                      metrics, settings)


def _setting(settings: Settings, name: str, default: Any) -> Any:
    """A setting, or its default in Settings built without validation (tests)."""
    return getattr(settings, name, default)


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    keys = KeyRing.load(settings.keys_dir, issues=("service",), accepts=("player", "account", "service"))
    store = SocialStore.for_env(persistence_env(settings))
    store.create()
    pushes = Pushes(store.db, time.time, push_limits_of(settings))
    pushes.create()
    directory = GrpcDirectory(settings.account_address, keys)
    inbox = Inbox(store, time.time, settings.social_notification_days, settings.social_notices_per_sender_max,
                  settings.social_export_notifications_max)
    social = Social(store, directory, limits_of(settings), inbox=inbox)
    playing = GrpcPlayingNow(settings.match_address, keys)
    presence = Presence(store.db)
    wakes = ChangeFeed()
    revocations, read_revocations = poll_revocations(settings)  # the account service's list, once a second
    pushes.watch_revocations(revocations)
    server, port = create_server(settings.social_address, social, keys, RpcMetrics("social"), settings, revocations,
                                 pushes=pushes, presence=presence, playing=playing, wakes=wakes)
    start_http_server(settings.social_metrics_port)
    await server.start()
    await revocations.step()  # what was revoked before it started, unless the account service is away
    await mark_serving(server)
    log.info("social service listening", extra={"port": port, "metrics_port": settings.social_metrics_port,
                                                "tls": bool(settings.tls_cert_file),
                                                "reflection": settings.grpc_reflection,
                                                "replica": presence.replica_id})
    stopping = stop_on_signals()
    tasks = [asyncio.create_task(revocations.run(stopping, settings.revocation_poll_seconds)),
             asyncio.create_task(presence.run(stopping)),
             asyncio.create_task(sweep_expired(inbox, stopping)),
             asyncio.create_task(run_bus_link(settings, inbox, wakes, stopping))]
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("social service stopping: finishing in-flight requests")
    wakes.close()  # open streams end now rather than hold the drain
    await drain(server, settings.shutdown_grace_seconds)
    try:
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), settings.shutdown_grace_seconds)
    except asyncio.TimeoutError:
        for task in tasks:
            task.cancel()
    await asyncio.to_thread(presence.leave)
    presence.close()
    await pushes.settled()
    await read_revocations.close()
    directory.close()
    playing.close()
    store.close()
    log.info("social service stopped")


def main() -> None:
    run_service(serve)
