"""Matchmaking's Prometheus metrics, reported through the application's Observer hooks so
the domain and the use cases never import prometheus_client. (RPC counts and latencies
come from services.common.grpc_metrics.)"""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram

from .plumbing import Observer

WAIT_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 15, 20, 25, 30, 45, 60, 120, 300)


class PrometheusObserver(Observer):
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        registry = REGISTRY if registry is None else registry
        self.queue_wait = Histogram("domino_matchmaking_queue_wait_seconds",
                                    "How long players waited for a public table until it was formed",
                                    buckets=WAIT_BUCKETS, registry=registry)
        self.tables_started = Counter("domino_matchmaking_tables_started_total",
                                      "Matches started, by kind (public, room, practice)", ["kind"], registry=registry)
        self.bot_seats = Counter("domino_matchmaking_bot_seats_total",
                                 "Seats filled by bots in the matches started, by kind", ["kind"], registry=registry)
        self.races_lost = Counter("domino_matchmaking_races_lost_total",
                                  "Commands retried because another writer (replica) saved first", registry=registry)
        self.ratings_unavailable = Counter("domino_matchmaking_ratings_unavailable_total",
                                           "Players seated at a public table first come, first seated because the "
                                           "match service could not tell their rating, by reason", ["reason"],
                                           registry=registry)
        self.notices = Counter("domino_matchmaking_invite_notices_total",
                               "Invite, rematch and answer notifications sent to the social service's inbox, by "
                               "outcome (posted; not_posted: the social service was away, posted again later; "
                               "refused: the social service called it invalid, dropped)",
                               ["outcome"], registry=registry)

    def queue_waited(self, seconds: float) -> None:
        self.queue_wait.observe(seconds)

    def match_started(self, kind: str, bot_seats: int) -> None:
        self.tables_started.labels(kind).inc()
        if bot_seats:
            self.bot_seats.labels(kind).inc(bot_seats)

    def race_lost(self) -> None:
        self.races_lost.inc()

    def rating_unavailable(self, reason: str) -> None:
        self.ratings_unavailable.labels(reason).inc()

    def notices_posted(self, count: int) -> None:
        self.notices.labels("posted").inc(count)

    def notices_not_posted(self, count: int) -> None:
        self.notices.labels("not_posted").inc(count)

    def notice_refused(self) -> None:
        self.notices.labels("refused").inc()
