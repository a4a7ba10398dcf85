"""The account service's Prometheus metrics, reported through the application's Observer
hooks (the use cases never import prometheus_client). RPC counts and latencies come from
services.common.grpc_metrics."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter


class PrometheusObserver:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        registry = REGISTRY if registry is None else registry
        self.sign_ins = Counter("domino_account_sign_ins_total", "Sign-ins, by method (device, id_token) and outcome "
                                "(created, signed_in, refused, banned, invalid)", ["method", "outcome"],
                                registry=registry)
        self.refreshes = Counter("domino_account_refreshes_total", "Session refreshes, by outcome (rotated, unknown, "
                                 "expired, reused, banned, revoked)", ["outcome"], registry=registry)
        self.reuse = Counter("domino_account_refresh_reuse_total", "Retired refresh tokens presented again (a "
                             "stolen copy, or a client that lost a reply): each revoked its session",
                             registry=registry)
        self.deletions = Counter("domino_account_deletions_total", "Accounts deleted by their players",
                                 registry=registry)

    def signed_in(self, method: str, outcome: str) -> None:
        self.sign_ins.labels(method, outcome).inc()

    def refreshed(self, outcome: str) -> None:
        self.refreshes.labels(outcome).inc()
        if outcome == "reused":
            self.reuse.inc()

    def deleted(self) -> None:
        self.deletions.inc()
