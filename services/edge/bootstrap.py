"""Wires the edge: the forwarded methods, their upstreams, the bounds, metrics, uvicorn.

uvicorn serves HTTP/1.1 (browsers reach it directly in the local run, or through the
public gateway, which speaks HTTP/2 to them), with `proxy_headers` off: it would otherwise
believe any client's `x-forwarded-for` as its own address.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import uvicorn
from prometheus_client import start_http_server
from starlette.types import ASGIApp

from services.common.client_address import trusted_networks
from services.common.config import Settings

from .admission import Admission
from .app import EdgeParts, Health, build, origins_of
from .forwarding import endpoints
from .head_keys import HeadKeysSource, KeptHeadKeys, asked_of_the_match_service
from .methods import forwarded_methods, public_services
from .metrics import EdgeMetrics
from .upstreams import Upstreams, targets_of

log = logging.getLogger("domino.edge")


@dataclass
class Edge:
    app: ASGIApp
    health: Health
    upstreams: Upstreams
    parts: EdgeParts


def create_edge(settings: Settings, metrics: EdgeMetrics | None = None, head_keys: HeadKeysSource | None = None,
                static_dir: str | None = None, clock: Callable[[], float] = time.monotonic) -> Edge:
    """``clock``: what the head keys' cache counts their age by (monotonic seconds)."""
    upstreams = Upstreams(targets_of(settings, public_services()))
    admission = Admission(settings.web_calls_per_process, settings.web_calls_per_client,
                          trusted_networks(settings.trusted_proxies), metrics or EdgeMetrics())
    static = static_dir if static_dir is not None else settings.web_static_dir
    served_keys = head_keys or KeptHeadKeys(asked_of_the_match_service(upstreams), clock=clock)
    parts = EdgeParts(endpoints(forwarded_methods(), upstreams, settings.web_unary_deadline_seconds), admission,
                      origins_of(settings.web_origins, settings.web_address), served_keys,
                      settings.grpc_request_wait_seconds, Path(static) if static else None)
    return Edge(build(parts), parts.health, upstreams, parts)


class EdgeServer(uvicorn.Server):
    """uvicorn's server, whose health check turns to stopping at SIGTERM before it drains."""

    def __init__(self, config: uvicorn.Config, health: Health) -> None:
        super().__init__(config)
        self.health = health

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.health.stopping = True
        super().handle_exit(sig, frame)


def server_config(settings: Settings, edge: Edge, port: int | None = None) -> uvicorn.Config:
    host, _, listen_port = settings.web_address.rpartition(":")
    return uvicorn.Config(edge.app, host=host.strip("[]") or "127.0.0.1",
                          port=int(listen_port) if port is None else port, proxy_headers=False,
                          server_header=False, date_header=False, lifespan="off", access_log=False,
                          log_config=None, timeout_keep_alive=int(settings.web_idle_seconds),
                          timeout_graceful_shutdown=int(settings.shutdown_grace_seconds),
                          limit_concurrency=settings.web_calls_per_process + 100, ws="none", http="httptools")


async def serve(settings: Settings) -> None:
    edge = create_edge(settings)
    server = EdgeServer(server_config(settings, edge), edge.health)
    start_http_server(settings.web_metrics_port)
    log.info("edge listening", extra={"address": settings.web_address, "metrics_port": settings.web_metrics_port,
                                      "origins": sorted(edge.parts.origins),
                                      "static_dir": str(edge.parts.static_dir or "")})
    try:
        await server.serve()
    finally:
        await edge.upstreams.close()
    log.info("edge stopped")


def main() -> None:
    import asyncio

    from services.common import logs

    settings = Settings()
    logs.configure(settings.log_format, settings.log_level)
    asyncio.run(serve(settings))
