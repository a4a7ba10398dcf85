"""The garbage collector's pauses are a metric of every process (services/common/gc_pauses.py)."""

from __future__ import annotations

import gc

from prometheus_client import CollectorRegistry

from services.common.gc_pauses import observe_pauses


def test_a_full_collection_is_observed_under_generation_2():
    registry = CollectorRegistry()
    callback = observe_pauses(registry)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
    count = registry.get_sample_value("domino_gc_pause_seconds_count", {"generation": "2"})
    seconds = registry.get_sample_value("domino_gc_pause_seconds_sum", {"generation": "2"})
    assert count >= 1 and seconds > 0
