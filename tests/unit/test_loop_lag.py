"""A service's event-loop lag is a metric (services/common/loop_lag.py)."""

from __future__ import annotations

import asyncio
import time

from prometheus_client import CollectorRegistry

from services.common.loop_lag import watch_loop_lag


def test_a_loop_held_busy_shows_as_lag():
    registry = CollectorRegistry()

    async def scenario() -> None:
        task = watch_loop_lag(registry, period=0.01)
        await asyncio.sleep(0.005)
        time.sleep(0.06)  # the loop is held: the ticker wakes late
        await asyncio.sleep(0.03)
        task.cancel()

    asyncio.run(scenario())
    count = registry.get_sample_value("domino_event_loop_lag_seconds_count")
    late = count - registry.get_sample_value("domino_event_loop_lag_seconds_bucket", {"le": "0.025"})
    assert count >= 2 and late >= 1
