"""The outbox publisher: every stored notification goes to JetStream once, in the order it
was stored, as `domino.v1.notice.<kind>` with {notification_id, player_id (the recipient),
kind} and `Nats-Msg-Id: notice:<id>`, and is marked published only after the stream
acknowledged it (services/common/bus.py).

It is woken in-process by each post on this replica and otherwise looks every
``poll_seconds`` (for what another replica stored while its publisher was down, or what
failed): waiting costs nothing. While NATS is away it retries with a doubling backoff;
two replicas publishing the same row are de-duplicated by the stream (its Msg-Id)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Callable

from prometheus_client import Counter, Gauge

from services.common import bus

from .inbox_store import InboxStore
from .store import SocialStore

log = logging.getLogger("domino.social")
PUBLISHED = Counter("domino_social_notices_published_total", "notifications the social service published to the bus")
FAILURES = Counter("domino_social_outbox_failures_total", "outbox passes that failed (the bus or the store away)")
LAG = Gauge("domino_social_outbox_lag_seconds", "age of the oldest notification not yet published (0: none)")
ACK_SECONDS = 5.0
LONGEST_BACKOFF = 30.0


def payload(notification_id: str, recipient_id: str, kind: str) -> bytes:
    return json.dumps({"notification_id": notification_id, "player_id": recipient_id, "kind": kind},
                      separators=(",", ":")).encode()


class Outbox:
    def __init__(self, store: SocialStore, js: Any, clock: Callable[[], float] = time.time, batch: int = 100,
                 poll_seconds: float = 5.0) -> None:
        self.store = store
        self.js = js
        self.clock = clock
        self.batch = batch
        self.poll_seconds = poll_seconds
        self._woken = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.backoff = 0.0

    def wake(self, *_: Any) -> None:
        """From any thread (a listener of stored notifications)."""
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._woken.set)
            except RuntimeError:
                pass  # the loop closed: shutting down

    async def run(self, stopping: asyncio.Event) -> None:
        self._loop = asyncio.get_running_loop()
        while not stopping.is_set():
            self._woken.clear()
            try:
                more = await self.publish_once()
                self.backoff = 0.0
            except Exception as error:  # noqa: BLE001 - counted, logged, retried after a backoff
                FAILURES.inc()
                self.backoff = min(LONGEST_BACKOFF, max(0.5, self.backoff * 2))
                log.warning("the outbox could not publish; trying again", extra={
                    "error": type(error).__name__, "retry_in": self.backoff})
                await _first(stopping, None, self.backoff)
                continue
            if not more:
                await _first(stopping, self._woken, self.poll_seconds)

    async def publish_once(self) -> bool:
        """Publishes one batch; whether a full batch was found (more may wait)."""
        rows = await asyncio.to_thread(self._unpublished)
        LAG.set(max(0.0, self.clock() - rows[0][3]) if rows else 0.0)
        acked: list[str] = []
        try:
            for notification_id, recipient_id, kind, _ in rows:
                await self.js.publish(bus.notice_subject(kind), payload(notification_id, recipient_id, kind),
                                      timeout=ACK_SECONDS, headers={"Nats-Msg-Id": bus.notice_msg_id(notification_id)})
                acked.append(notification_id)
        finally:
            if acked:
                await asyncio.to_thread(self._mark, acked)
                PUBLISHED.inc(len(acked))
        return len(rows) == self.batch

    def _unpublished(self) -> list[tuple[str, str, str, float]]:
        with self.store.transaction() as execute:
            return InboxStore.unpublished(execute, self.batch)

    def _mark(self, ids: list[str]) -> None:
        with self.store.transaction() as execute:
            InboxStore.mark_published(execute, ids)


async def _first(stopping: asyncio.Event, woken: asyncio.Event | None, seconds: float) -> None:
    """Until ``stopping``, ``woken`` or ``seconds``, whichever comes first."""
    waits = [asyncio.ensure_future(stopping.wait())]
    if woken is not None:
        waits.append(asyncio.ensure_future(woken.wait()))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
