"""The gRPC server every service runs: its API plus health checking, reflection and RPC
metrics, marked serving and drained the same way, so operators meet one behaviour."""

from __future__ import annotations

import logging
from typing import Callable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .changes import ChangeFeed
from .grpc_metrics import MetricsInterceptor, RpcMetrics

log = logging.getLogger("domino.grpc")
MAX_REQUEST_BYTES = 64 * 1024  # our largest request is a few hundred bytes: anything bigger is refused


def new_server(address: str, service_name: str, add_servicer: Callable[[grpc.aio.Server], None],
               metrics: RpcMetrics | None = None) -> tuple[grpc.aio.Server, int]:
    """(server, port) with the service, health and reflection; bind port 0 to let the OS
    choose (tests). Health says NOT_SERVING until ``mark_serving``."""
    server = grpc.aio.server(interceptors=[MetricsInterceptor(metrics)] if metrics else [],
                             options=[("grpc.max_receive_message_length", MAX_REQUEST_BYTES)])
    add_servicer(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((service_name, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address)
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
