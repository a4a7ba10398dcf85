"""Prometheus' text format as the benches read it: a service's /metrics scraped into
{(name, labels): value}, sums over labels, and histogram_quantile over the increase between
two scrapes (as Prometheus computes it, so a bench's quantile is the one a dashboard shows)."""

from __future__ import annotations

import math
import re
import urllib.request
from collections import defaultdict

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Prometheus text from a metrics port: {(name, labels): value}; {} if unreachable."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
            text = r.read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if m:
            labels = frozenset(_LABEL.findall(m.group(2) or ""))
            try:
                out[(m.group(1), labels)] = float(m.group(3))
            except ValueError:
                pass
    return out


def metric_sum(sample: dict, name: str, **labels: str) -> float:
    want = set(labels.items())
    return sum(v for (n, ls), v in sample.items() if n == name and want <= set(ls))


def histogram_quantile(before: dict, after: dict, name: str, q: float) -> float | None:
    """Prometheus' histogram_quantile over the increase between two scrapes, all labels
    summed (linear within the bucket)."""
    buckets: dict[float, float] = defaultdict(float)
    for (n, ls), v in after.items():
        if n == name + "_bucket":
            le = dict(ls)["le"]
            buckets[float("inf") if le == "+Inf" else float(le)] += v - before.get((n, ls), 0.0)
    if not buckets:
        return None
    bounds = sorted(buckets)
    total = buckets[bounds[-1]]
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for b in bounds:
        if buckets[b] >= rank:
            if math.isinf(b):
                return lower
            return lower + (b - lower) * ((rank - below) / max(buckets[b] - below, 1e-12))
        lower, below = b, buckets[b]
    return lower
