"""A process's revocation list as the services wire it: read from the account service
(DOMINO_ACCOUNT_ADDRESS), kept to DOMINO_REVOCATIONS_MAX entries, and its metrics; the match
service and matchmaking each build one (services/common/revocations.py says why)."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge

from .revocations import Revocations
from .revocations_client import GrpcRevocationSource


def poll_revocations(settings, registry: CollectorRegistry = REGISTRY) -> tuple[Revocations, GrpcRevocationSource]:
    """(the list, its source: close it when the process stops)."""
    source = GrpcRevocationSource(settings.account_address)
    errors = Counter("domino_revocations_poll_errors_total", "Reads of the account service's revocation list that "
                     "failed (away, slow past its 1 s deadline, refusing): tokens of sessions revoked meanwhile are "
                     "accepted until they expire", registry=registry)
    dropped = Counter("domino_revocations_dropped_total", "Revoked sessions forgotten before they expired because "
                      "the list held DOMINO_REVOCATIONS_MAX (those expiring soonest go first)", registry=registry)
    revocations = Revocations(source, cap=settings.revocations_max, on_error=errors.inc, on_dropped=dropped.inc)
    Gauge("domino_revocations_known", "Revoked sessions whose tokens this process refuses now",
          registry=registry).set_function(lambda: revocations.known)
    Gauge("domino_revocations_seconds_since_poll", "Seconds since this process last read the revocation list "
          "(since it started, if never)", registry=registry).set_function(revocations.seconds_since_success)
    return revocations, source
