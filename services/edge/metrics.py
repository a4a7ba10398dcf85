"""The edge's Prometheus metrics, on its own port like every service's."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram


class EdgeMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        registry = REGISTRY if registry is None else registry
        self.requests = Counter("domino_edge_requests_total", "Calls the edge answered, by method, browser protocol "
                                "and gRPC status name", ["method", "protocol", "code"], registry=registry)
        self.latency = Histogram("domino_edge_request_seconds", "Time from a call's headers to its status (streams: "
                                 "their whole life)", ["method", "protocol"],
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60),
                                 registry=registry)
        self.open_calls = Gauge("domino_edge_open_calls", "Calls in flight through the edge, streams included",
                                registry=registry)
        self.open_streams = Gauge("domino_edge_open_streams", "Server streams (WatchMatch, WatchRoom, ...) open "
                                  "through the edge", registry=registry)
        self.refused = Counter("domino_edge_refused_total", "Calls refused before they were forwarded: `edge` (the "
                               "process's bound), `client` (one client's bound)", ["reason"], registry=registry)

    def observe(self, method: str, protocol: str, code: str, seconds: float) -> None:
        self.requests.labels(method, protocol, code).inc()
        self.latency.labels(method, protocol).observe(seconds)
