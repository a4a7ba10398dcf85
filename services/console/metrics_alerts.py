"""The alerts firing, for the Now page.

With a Prometheus configured (the console's Prometheus URL), its own ``/api/v1/alerts`` is
the answer: the rules of deploy/monitoring/alerts.yaml as Prometheus evaluates them, ``for:``
durations included. Without one (a local run), the console evaluates the thresholds of those
rules it can on its own scrapes, over its last five minutes (at most), with no ``for:``
duration, so an alert here fires as soon as its threshold is passed:

- DominoServiceDown: every target of a service failed its last scrape;
- DominoRpcServerErrors: over 2% of a service's RPCs failed on the server side, at more than
  0.5 RPC/s (match, matchmaking) or 0.2 (account, social);
- DominoRpcLatencyHigh: the p99 of unary RPCs past 0.5 s (match) or 1 s (matchmaking,
  account, social), at the same rates;
- DominoRelayLagging: relay lag past 10 s or 5000 events;
- DominoTurnTimersOverdue: a turn deadline due for over 30 s;
- DominoMatchLogCorrupt: a frozen match;
- DominoHistoryLagging: the history projection over 1000 events behind;
- DominoBusConsumerMisconfigured: a consumer refusing to consume;
- DominoSocialOutboxLagging: a notification unpublished for over 60 s;
- DominoAccountErasurePending: a deleted account not yet erased everywhere;
- DominoRevocationListStale: the revocation list unread for over 20 s.
The others need a longer history (increase over an hour) or Prometheus's own ``up`` series
of targets the console does not scrape; they show only with a Prometheus.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from . import metrics_arithmetic as m
from .metrics_figures import CALLER_CODES, FigureRing
from .metrics_scrape import Scrapes, label_is_not

WINDOW = 300.0  # rate(...[5m])
# service -> (least RPC/s, most server error share, most unary p99 seconds), as the rules
RPC_THRESHOLDS = {"match": (0.5, 0.02, 0.5), "matchmaking": (0.5, 0.02, 1.0),
                  "account": (0.2, 0.02, 1.0), "social": (0.2, 0.02, 1.0)}
GAUGE_RULES = (  # (alert, gauge, more than this fires, what it says)
    ("DominoRelayLagging", "domino_relay_lag_seconds", 10, "relay: events reach NATS {:.0f} s after they were stored"),
    ("DominoRelayLagging", "domino_relay_lag_events", 5000, "relay: {:.0f} stored events are not yet published"),
    ("DominoTurnTimersOverdue", "domino_match_timer_overdue_seconds", 30,
     "match: a turn deadline has been due for {:.0f} s without being played"),
    ("DominoMatchLogCorrupt", "domino_match_frozen_matches", 0, "match: {:.0f} match(es) frozen"),
    ("DominoHistoryLagging", "domino_history_lag_events", 1000, "relay: the history projection is {:.0f} events behind"),
    ("DominoBusConsumerMisconfigured", "domino_bus_consumer_config_mismatch", 0,
     "a consumer refuses to consume: its NATS consumer is missing or not as the setup made it"),
    ("DominoSocialOutboxLagging", "domino_social_outbox_lag_seconds", 60,
     "social: notifications wait {:.0f} s to be published"),
    ("DominoAccountErasurePending", "domino_account_erasures_pending", 0,
     "account: {:.0f} deleted account(s) not yet erased everywhere"),
    ("DominoRevocationListStale", "domino_revocations_seconds_since_poll", 20,
     "the revocation list has not been read for {:.0f} s"),
)
PAGE = {"DominoServiceDown", "DominoRpcServerErrors", "DominoRpcLatencyHigh", "DominoRelayLagging",
        "DominoTurnTimersOverdue", "DominoMatchLogCorrupt", "DominoBusConsumerMisconfigured",
        "DominoSocialOutboxLagging", "DominoRevocationListStale"}


@dataclass(frozen=True)
class Alert:
    name: str
    severity: str  # page, ticket
    summary: str
    state: str = "firing"  # or pending (Prometheus, within its `for:`)

    @property
    def anchor(self) -> str:
        """The runbook's section in docs/operations.md."""
        return self.name.lower()


def evaluate(ring: FigureRing) -> list[Alert]:
    """The rules above on the ring's newest scrapes and its last five minutes."""
    if not ring.rounds:
        return []
    newest = ring.rounds[-1]
    alerts = _down(newest)
    for alert, gauge, limit, words in GAUGE_RULES:
        value = m.gauge(newest, gauge, "max")
        if value is not None and value > limit:
            alerts.append(Alert(alert, "page" if alert in PAGE else "ticket", words.format(value)))
    window = ring.window(WINDOW)
    if window is not None:
        alerts.extend(_rpc(*window))
    return alerts


def _down(newest: Scrapes) -> list[Alert]:
    services: dict[str, bool] = {}
    for s in newest.values():
        services[s.target.service] = services.get(s.target.service, False) or s.up
    return [Alert("DominoServiceDown", "page", f"{service}: every target is down")
            for service, up in sorted(services.items()) if not up]


# Calls that stay open by design and are no one's wait: the streams, and the revocation
# list's held read (up to 10 s), as the alert rules leave them out.
HELD = "Watch.*|ListRevokedSessions"


def _rpc(before: Scrapes, after: Scrapes) -> list[Alert]:
    alerts = []
    for service, (least_rate, most_errors, most_p99) in RPC_THRESHOLDS.items():
        total = m.rate(before, after, f"domino_{service}_rpcs_total", service=service)
        if total is None or total <= least_rate:
            continue
        failed = m.rate(before, after, f"domino_{service}_rpcs_total", label_is_not(code=CALLER_CODES),
                        service=service) or 0.0
        if failed / total > most_errors:
            alerts.append(Alert("DominoRpcServerErrors", "page",
                                f"{service}: {failed / total:.1%} of RPCs fail on the server side"))
        unary = label_is_not(method=HELD)
        if (m.rate(before, after, f"domino_{service}_rpc_seconds_count", unary, service=service) or 0.0) > least_rate:
            p99 = m.quantile(0.99, before, after, f"domino_{service}_rpc_seconds", unary, service=service)
            if p99 is not None and p99 > most_p99:
                alerts.append(Alert("DominoRpcLatencyHigh", "page", f"{service}: p99 of unary RPCs is {p99:.2f} s"))
    return alerts


async def from_prometheus(client: httpx.AsyncClient, prometheus_url: str, deadline: float) -> list[Alert] | None:
    """Prometheus's alerts, firing and pending; None when it does not answer in time."""
    try:
        response = await client.get(prometheus_url.rstrip("/") + "/api/v1/alerts", timeout=deadline)
        response.raise_for_status()
        found = response.json()["data"]["alerts"]
        return [Alert(name=a["labels"].get("alertname", "?"), severity=a["labels"].get("severity", ""),
                      summary=a.get("annotations", {}).get("summary", ""), state=a.get("state", "firing"))
                for a in found if a.get("state") in ("firing", "pending")]
    except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError):
        return None
