"""The console's Prometheus metrics, on its own port like every service's."""

from __future__ import annotations

import time

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class ConsoleMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        registry = REGISTRY if registry is None else registry
        self.pages = Histogram("domino_console_page_seconds", "Time to answer a console request, by route and "
                               "HTTP status", ["route", "status"],
                               buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10), registry=registry)
        self.actions = Counter("domino_console_actions_total", "Staff actions taken through the console (ban, "
                               "unban, end sessions, export, delete, sign-in, sign-out), by outcome",
                               ["action", "outcome"], registry=registry)
        self.refusals = Counter("domino_console_refusals_total", "Requests refused before they did anything: "
                                "`csrf`, `role`, `rate` (a client or a member of staff over the limit), "
                                "`sign_in` (a failed sign-in)", ["reason"], registry=registry)


class PageTimer:
    """Times every answer by the endpoint that gave it (its module and function, so a
    player's page is one series, not one per player)."""

    def __init__(self, app: ASGIApp, metrics: ConsoleMetrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [500]

        async def send_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            endpoint = scope.get("endpoint")
            route = (f"{endpoint.__module__.rsplit('.', 1)[-1]}.{endpoint.__name__}" if endpoint is not None
                     and hasattr(endpoint, "__name__") else "static" if scope["path"].startswith("/static/")
                     else "none")
            self.metrics.pages.labels(route=route, status=str(status[0])).observe(time.perf_counter() - started)
