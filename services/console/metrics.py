"""The console's Prometheus metrics, on its own port like every service's."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram


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
