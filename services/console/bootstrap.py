"""Wires the console: settings, keys, gRPC clients, the app, metrics, uvicorn."""

from __future__ import annotations

import logging

import uvicorn
from prometheus_client import start_http_server

from services.common.auth import KeyRing

from .app import create_app
from .clients import Clients
from .local_link import LocalSignIn
from .match_evidence import EvidenceSettings
from .metrics import ConsoleMetrics
from .metrics_settings import NowSettings
from .pages.now import NowState
from .settings import ConsoleSettings

log = logging.getLogger("domino.console")


def server_config(settings: ConsoleSettings, app, port: int | None = None) -> uvicorn.Config:
    host, _, listen_port = settings.address.rpartition(":")
    return uvicorn.Config(app, host=host.strip("[]") or "127.0.0.1", port=int(listen_port) if port is None else port,
                          proxy_headers=False, server_header=False, lifespan="off", access_log=False,
                          log_config=None, ws="none", http="httptools", timeout_graceful_shutdown=10)


async def serve(settings: ConsoleSettings) -> None:
    keys = KeyRing.load(settings.keys_dir, issues=("operator",))
    clients = Clients(settings.account_address, settings.match_address, keys, settings.call_deadline_seconds)
    local = LocalSignIn() if settings.local_link else None
    app = create_app(settings, clients, metrics=ConsoleMetrics(), local_sign_in=local)
    # read now, so a bad value stops the console at start rather than failing its first page
    app.state.now = NowState(NowSettings())
    app.state.match_evidence = EvidenceSettings()
    if local is not None:
        local.write(settings.local_link_path, settings.public_url)
    start_http_server(settings.metrics_port)
    log.info("console listening", extra={"address": settings.address, "metrics_port": settings.metrics_port,
                                         "public_url": settings.public_url, "oidc_issuer": settings.oidc_issuer})
    try:
        await uvicorn.Server(server_config(settings, app)).serve()
    finally:
        await clients.close()
        if settings.local_link:
            settings.local_link_path.unlink(missing_ok=True)
    log.info("console stopped")


def main() -> None:
    import asyncio

    from services.common import logs
    from services.common.private_files import restrict_umask

    restrict_umask()
    settings = ConsoleSettings()
    logs.configure(settings.log_format, settings.log_level)
    asyncio.run(serve(settings))
