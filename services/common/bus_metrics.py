"""The metrics every NATS consumer's process shares, defined once: the bots and matchmaking
count their dropped messages and their consumers' state under the same names and labels,
and the alerts (deploy/monitoring/alerts.yaml) read them for both."""

from __future__ import annotations

from typing import Callable

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge


class BusMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.dropped = Counter("domino_bus_dropped_total", "Messages terminated without being handled, by reason",
                               ["consumer", "reason"], registry=registry)
        self.mismatch = Gauge("domino_bus_consumer_config_mismatch",
                              "1 while this process refuses to consume because its consumer is missing or not as "
                              "`domino nats setup` makes it", ["consumer"], registry=registry)

    def outcomes(self, consumer: str, other: Callable[[str], None]) -> Callable[[str], None]:
        """A consumer's outcome callback: ``dropped:<reason>`` counts here, anything else goes to ``other``."""
        def counted(outcome: str) -> None:
            if outcome.startswith("dropped:"):
                self.dropped.labels(consumer, outcome.split(":", 1)[1]).inc()
            else:
                other(outcome)
        return counted

    def on_mismatch(self, consumer: str, mismatched: bool) -> None:
        self.mismatch.labels(consumer).set(1 if mismatched else 0)
