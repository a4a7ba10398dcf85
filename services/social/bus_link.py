"""The social service's link to NATS (its user `social`): the outbox publisher and the
notice subscription that wakes this replica's streams, for as long as the service runs.

The service serves without NATS: a first connection that fails is tried again with a
doubling backoff (logged and counted), while notifications wait in the outbox and streams
wake in-process and by their slow poll; nats-py reconnects by itself once connected."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from prometheus_client import Counter

from services.common import bus
from services.common.changes import ChangeFeed

from . import notice_wakeups
from .inbox import Inbox
from .outbox import Outbox

log = logging.getLogger("domino.social")
CONNECT_FAILURES = Counter("domino_social_bus_connect_failures_total", "failed first connections to NATS")
LONGEST_WAIT = 30.0


async def run_bus_link(settings: Any, inbox: Inbox, wakes: ChangeFeed, stopping: asyncio.Event) -> None:
    nc = await _connected(settings, stopping)
    if nc is None:
        return
    try:
        outbox = Outbox(inbox.store, nc.jetstream(), inbox.clock, poll_seconds=settings.social_outbox_poll_seconds)
        inbox.listeners.append(outbox.wake)
        await notice_wakeups.subscribe(nc, wakes)
        await outbox.run(stopping)
    finally:
        await nc.close()


async def _connected(settings: Any, stopping: asyncio.Event) -> Any:
    """A connection, or None once ``stopping`` (a first connection may wait for NATS for long)."""
    wait = 0.5
    while not stopping.is_set():
        connecting = asyncio.ensure_future(bus.connect(settings, "social"))
        stop = asyncio.ensure_future(stopping.wait())
        await asyncio.wait({connecting, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not connecting.done():
            connecting.cancel()
            return None
        try:
            return connecting.result()
        except Exception as error:  # noqa: BLE001 - counted and retried; the outbox keeps what waits
            CONNECT_FAILURES.inc()
            log.warning("cannot reach NATS: notifications wait in the outbox", extra={
                "error": type(error).__name__, "retry_in": wait})
        try:
            await asyncio.wait_for(stopping.wait(), wait)
        except asyncio.TimeoutError:
            pass
        wait = min(LONGEST_WAIT, wait * 2)
    return None
