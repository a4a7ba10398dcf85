"""Wires the social service: store, the account service's client, gRPC server, the
revocation list, metrics, signals."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import start_http_server

from domino.social.v1 import social_service_pb2, social_service_pb2_grpc
from services.common.auth import KeyRing
from services.common.config import Settings, persistence_env
from services.common.grpc_metrics import RpcMetrics
from services.common.grpc_server import drain, mark_serving, new_server
from services.common.lifecycle import run_service, stop_on_signals
from services.common.limits import RateLimit
from services.common.revocation_polling import poll_revocations
from services.common.revocations import Revocations

from .account_client import GrpcDirectory
from .grpc_adapter import SocialServicer
from .store import SocialStore
from .use_cases import Limits, Social

log = logging.getLogger("domino.social")
SERVICE_NAME = social_service_pb2.DESCRIPTOR.services_by_name["SocialService"].full_name


def limits_of(settings: Settings) -> Limits:
    return Limits(friends=settings.social_friends_max, pending_requests=settings.social_pending_requests_max,
                  requests_per_hour=settings.social_requests_per_hour, blocks=settings.social_blocks_max)


def create_server(address: str, social: Social, keys: KeyRing, metrics: RpcMetrics | None = None,
                  settings: Settings | None = None, revocations: Revocations | None = None):
    """(server, port): SocialService on the common gRPC server (health, reflection, metrics;
    ``settings``: its connection policy, reflection, TLS and the players' rate limit)."""
    settings = settings if settings is not None else Settings.model_construct()
    servicer = SocialServicer(social, keys, RateLimit(settings.command_rate, settings.command_burst), revocations)
    return new_server(address, SERVICE_NAME,
                      lambda server: social_service_pb2_grpc.add_SocialServiceServicer_to_server(servicer, server),
                      metrics, settings)


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    keys = KeyRing.load(settings.keys_dir, issues=("service",), accepts=("player", "account"))
    store = SocialStore.for_env(persistence_env(settings))
    store.create()
    directory = GrpcDirectory(settings.account_address, keys)
    social = Social(store, directory, limits_of(settings))
    revocations, read_revocations = poll_revocations(settings)  # the account service's list, once a second
    server, port = create_server(settings.social_address, social, keys, RpcMetrics("social"), settings, revocations)
    start_http_server(settings.social_metrics_port)
    await server.start()
    await revocations.step()  # what was revoked before it started, unless the account service is away
    await mark_serving(server)
    log.info("social service listening", extra={"port": port, "metrics_port": settings.social_metrics_port,
                                                "tls": bool(settings.tls_cert_file),
                                                "reflection": settings.grpc_reflection})
    stopping = stop_on_signals()
    polls = asyncio.create_task(revocations.run(stopping, settings.revocation_poll_seconds))
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("social service stopping: finishing in-flight requests")
    await drain(server, settings.shutdown_grace_seconds)
    await asyncio.gather(polls, return_exceptions=True)
    await read_revocations.close()
    directory.close()
    store.close()
    log.info("social service stopped")


def main() -> None:
    run_service(serve)
