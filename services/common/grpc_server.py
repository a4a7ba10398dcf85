"""The gRPC server every service runs: its API plus health checking, reflection and RPC
metrics, marked serving and drained the same way, so operators meet one behaviour.

Its connections follow one policy (services/common/config.py, `DOMINO_GRPC_*`): the server
pings every connection each minute, lets clients ping every 30 s at most (with or without
calls: phones keep their connection alive through NATs and carrier proxies), and asks a
connection older than 30 minutes to go away, so clients behind a connection-level balancer
(kube-proxy) spread over the replicas added since. Reflection can be turned off
(production), and TLS on for a server that clients reach directly."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .changes import ChangeFeed
from .config import Settings
from .grpc_metrics import MetricsInterceptor, RpcMetrics

log = logging.getLogger("domino.grpc")
MAX_REQUEST_BYTES = 64 * 1024  # our largest request is a few hundred bytes: anything bigger is refused


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def server_options(settings: Settings) -> list[tuple[str, int]]:
    """The server's channel arguments: request size, keepalive, ping policy, connection age."""
    return [
        ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
        # The server's own pings: find connections whose client is gone (a phone that lost
        # its network leaves no FIN), with or without calls open.
        ("grpc.keepalive_time_ms", _ms(settings.grpc_keepalive_seconds)),
        ("grpc.keepalive_timeout_ms", _ms(settings.grpc_keepalive_timeout_seconds)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),  # keep pinging a quiet stream (a watch with no news)
        # The clients' pings: accepted every grpc_min_ping_interval_seconds, also on a
        # connection with no call (permit_without_calls above); more often is a strike, and
        # after two strikes the server sends GOAWAY ENHANCE_YOUR_CALM ("too_many_pings").
        ("grpc.http2.min_ping_interval_without_data_ms", _ms(settings.grpc_min_ping_interval_seconds)),
        ("grpc.http2.max_ping_strikes", 2),
        # Old connections go away (gRPC adds +-10% jitter), their open calls get the grace.
        ("grpc.max_connection_age_ms", _ms(settings.grpc_max_connection_age_seconds)),
        ("grpc.max_connection_age_grace_ms", _ms(settings.grpc_max_connection_age_grace_seconds)),
    ]


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS credentials from DOMINO_TLS_CERT_FILE / DOMINO_TLS_KEY_FILE, or None (plaintext)."""
    if not settings.tls_cert_file:
        return None
    chain = Path(settings.tls_cert_file).read_bytes()
    key = Path(settings.tls_key_file).read_bytes()
    return grpc.ssl_server_credentials([(key, chain)])


def new_server(address: str, service_name: str, add_servicer: Callable[[grpc.aio.Server], None],
               metrics: RpcMetrics | None = None, settings: Settings | None = None) -> tuple[grpc.aio.Server, int]:
    """(server, port) with the service, health and (unless turned off) reflection; bind
    port 0 to let the OS choose (tests). Health says NOT_SERVING until ``mark_serving``.
    ``settings``: the connection policy, reflection and TLS (default: the defaults, not the
    environment)."""
    settings = settings if settings is not None else Settings.model_construct()
    server = grpc.aio.server(interceptors=[MetricsInterceptor(metrics)] if metrics else [],
                             options=server_options(settings))
    add_servicer(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if settings.grpc_reflection:
        reflection.enable_server_reflection((service_name, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    credentials = server_credentials(settings)
    port = server.add_insecure_port(address) if credentials is None else server.add_secure_port(address, credentials)
    server.health = health_servicer  # type: ignore[attr-defined]
    server.service_name = service_name  # type: ignore[attr-defined]
    return server, port


async def mark_serving(server: grpc.aio.Server) -> None:
    for name in (server.service_name, ""):  # type: ignore[attr-defined]
        await server.health.set(name, health_pb2.HealthCheckResponse.SERVING)  # type: ignore[attr-defined]


async def drain(server: grpc.aio.Server, grace_seconds: float, changes: ChangeFeed | None = None) -> None:
    """Health NOT_SERVING first (balancers stop sending), then end the open streams (they
    would hold the grace period to its end) and finish in-flight calls."""
    await server.health.enter_graceful_shutdown()  # type: ignore[attr-defined]
    if changes is not None:
        if changes.waiting:
            log.info("stopping: closing open streams, clients reconnect", extra={"streams": changes.waiting})
        changes.close()
    await server.stop(grace_seconds)
