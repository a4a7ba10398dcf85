"""PromQL's few functions the Now page needs, over two scrapes of the same targets: a
counter's rate, a histogram's quantile, a gauge's sum or max.

Each takes the earlier and the later scrapes of every target (by target name); a target
down in either is left out, and a figure with no target left is None (shown as unknown).
A counter that went down between the two was reset (its process restarted): as Prometheus
does, its later value is all of the increase. A series absent from the earlier scrape
started from zero.
"""

from __future__ import annotations

import math
from typing import Mapping

from .metrics_scrape import LabelTest, Scrape, Scrapes


def _pairs(before: Scrapes, after: Scrapes, service: str | None):
    for name, later in after.items():
        earlier = before.get(name)
        if earlier is None or not (earlier.up and later.up) or later.at <= earlier.at:
            continue
        if service is None or later.target.service == service:
            yield earlier, later


def _increase(earlier: Scrape, later: Scrape, name: str, where: LabelTest | None) -> dict:
    old = earlier.series(name, where)
    increases = {}
    for labels, value in later.series(name, where).items():
        previous = old.get(labels, 0.0)
        increases[labels] = value - previous if value >= previous else value
    return increases


def increase(before: Scrapes, after: Scrapes, name: str, where: LabelTest | None = None,
             service: str | None = None) -> float | None:
    """How much the counter ``name`` grew between the scrapes, summed over series and targets."""
    pairs = list(_pairs(before, after, service))
    if not pairs:
        return None
    return sum(sum(_increase(a, b, name, where).values()) for a, b in pairs)


def rate(before: Scrapes, after: Scrapes, name: str, where: LabelTest | None = None,
         service: str | None = None) -> float | None:
    """Per second, summed over targets (each over its own interval)."""
    pairs = list(_pairs(before, after, service))
    if not pairs:
        return None
    return sum(sum(_increase(a, b, name, where).values()) / (b.at - a.at) for a, b in pairs)


def quantile(q: float, before: Scrapes, after: Scrapes, histogram: str, where: LabelTest | None = None,
             service: str | None = None) -> float | None:
    """``histogram_quantile(q, sum by (le) (increase(histogram_bucket[...])))``: None when
    nothing was observed between the scrapes."""
    pairs = list(_pairs(before, after, service))
    buckets: dict[float, float] = {}
    for a, b in pairs:
        for labels, grown in _increase(a, b, f"{histogram}_bucket", where).items():
            le = float(dict(labels)["le"])
            buckets[le] = buckets.get(le, 0.0) + grown
    return bucket_quantile(q, buckets)


def bucket_quantile(q: float, buckets: Mapping[float, float]) -> float | None:
    """Prometheus's interpolation in cumulative buckets ``{upper bound: count}``: linear
    within the bucket the rank falls in; the highest finite bound if it falls in +Inf."""
    bounds = sorted(buckets)
    if not bounds or not math.isinf(bounds[-1]):
        return None
    total = buckets[bounds[-1]]
    if total <= 0:
        return None
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if math.isinf(bound):
                return bounds[-2] if len(bounds) > 1 else None
            if count == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (count - lower_count)
        lower_bound, lower_count = bound, count
    return None


def gauge(after: Scrapes, name: str, how: str = "sum", where: LabelTest | None = None,
          service: str | None = None) -> float | None:
    """The gauge's ``sum`` or ``max`` over the targets up in the later scrapes; None when
    no target that is up exports it."""
    values = [value for s in after.values() if s.up and (service is None or s.target.service == service)
              for value in s.series(name, where).values()]
    if not values:
        return None
    return max(values) if how == "max" else sum(values)


def gauge_by(after: Scrapes, name: str, label: str, where: LabelTest | None = None) -> dict[str, float]:
    """The gauge summed over targets, by one label's value."""
    totals: dict[str, float] = {}
    for s in after.values():
        if s.up:
            for labels, value in s.series(name, where).items():
                key = dict(labels).get(label, "")
                totals[key] = totals.get(key, 0.0) + value
    return totals
