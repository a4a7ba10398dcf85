"""How late a service's event loop runs: every call and stream of a process waits behind
whatever the loop is doing, and a handler's own timing (``domino_match_rpc_seconds``) never
sees the wait before it starts. A task wakes every ``PERIOD`` seconds and observes how late
it woke: a replica whose lag grows is saturated (docs/operations.md, "Capacity")."""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY, CollectorRegistry, Histogram

PERIOD = 0.5
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def watch_loop_lag(registry: CollectorRegistry = REGISTRY, period: float = PERIOD) -> asyncio.Task:
    """Start observing this loop's lag; the task runs until the loop ends or is cancelled."""
    lag = Histogram("domino_event_loop_lag_seconds", "How late this process's event loop ran a task woken "
                    "every 0.5 s: what every call and stream waits before its handler runs", buckets=BUCKETS,
                    registry=registry)

    async def tick() -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + period
            await asyncio.sleep(period)
            lag.observe(max(0.0, loop.time() - due))

    return asyncio.get_running_loop().create_task(tick(), name="loop-lag")
