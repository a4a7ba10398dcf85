"""The notifier's Prometheus series, one place, so the alerts (deploy/k8s) and the runbooks
(docs/operations.md) name what exists. Dropped messages and consumers that differ from the
setup are counted by services/common/bus_metrics.py, as for the bots."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

SENDS = Counter("domino_push_sends_total", "pushes to one phone, by provider (apns, fcm) and outcome (ok, "
                "unregistered, dropped, failed, provider_off)", ["provider", "outcome"])
SEND_SECONDS = Histogram("domino_push_send_seconds", "time to hand one push to its provider, retries included",
                         ["provider"], buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20))
RETRIES = Counter("domino_push_retries_total", "provider answers that were tried again (429, 5xx, no answer)",
                  ["provider", "reason"])
CLAIMS = Counter("domino_push_claims_total", "ClaimPush decisions the social service answered", ["decision"])
MESSAGES = Counter("domino_notifier_messages_total", "bus messages the notifier handled, by consumer and outcome",
                   ["consumer", "outcome"])
POSTED = Counter("domino_notifier_posted_total", "notifications the notifier posted to the inbox, by kind",
                 ["kind"])
FORGOTTEN = Counter("domino_push_tokens_forgotten_total", "tokens a provider called unregistered or invalid, "
                    "forgotten through the social service", ["provider"])
