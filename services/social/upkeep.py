"""The inbox's upkeep: expired notifications are deleted in bounded batches, a few each
minute, so a backlog never makes one long transaction."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import Counter

from .inbox import Inbox

log = logging.getLogger("domino.social")
SWEPT = Counter("domino_social_notifications_expired_total", "expired notifications deleted from the inbox")
FAILURES = Counter("domino_social_sweep_failures_total", "sweeps of expired notifications that failed")
BATCH = 500
BATCHES_PER_PASS = 10


async def sweep_expired(inbox: Inbox, stopping: asyncio.Event, every: float = 60.0) -> None:
    while not stopping.is_set():
        try:
            for _ in range(BATCHES_PER_PASS):
                swept = await asyncio.to_thread(inbox.sweep, BATCH)
                SWEPT.inc(swept)
                if swept < BATCH:
                    break
        except Exception:  # noqa: BLE001 - counted and logged; the next pass tries again
            FAILURES.inc()
            log.exception("expired notifications could not be swept")
        try:
            await asyncio.wait_for(stopping.wait(), every)
        except asyncio.TimeoutError:
            pass
