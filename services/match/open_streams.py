"""This replica's seated players' open WatchMatch streams, and what it tells the shared
record of them (stream_record.py) for GetTurnAttention on every replica.

A stream that opens or closes changes a count in memory and marks it for the writer: one
task per replica that writes what changed, coalesced, in one transaction per pass, so the
stream itself never waits on the store and a close (in a stream's ``finally``) never awaits.
Waiting costs nothing: no timer per stream, only the replica's lease renewal every
``REFRESH_SECONDS``. A write that fails (the store away, past its deadline) is logged and
counted, and the next renewal rewrites the replica's rows from memory, so nothing stays
wrong for longer than a refresh once the store is back.

Without a record (a store in memory, unit and component tests) the counts in memory are
the answer: one process is every replica there is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from services.common.logs import Warnings

from .errors import StoreUnavailable
from .stream_record import REFRESH_SECONDS, StreamRecord

log = logging.getLogger("domino.match")
WRITE_SECONDS = 5.0  # each write or read of the record has this long


class OpenStreams:
    def __init__(self, record: StreamRecord | None = None, replica: str = "local",
                 clock: Callable[[], float] = time.time, seconds: float = WRITE_SECONDS) -> None:
        self.record = record
        self.replica = replica
        self.clock = clock
        self.seconds = seconds
        self.counts: dict[tuple[str, str], int] = {}  # (match, player) -> streams open here
        self.failures = 0  # writes, renewals and reads of the record that failed, since start
        self._dirty: set[tuple[str, str]] = set()
        self._writer: asyncio.Task | None = None
        self._rewrite = False  # a write failed: the next renewal rewrites every row of this replica
        self._working: set[asyncio.Future] = set()  # calls in worker threads, those past their deadline too
        self.warnings = Warnings(log)  # the store away fails every read: one line in ten seconds a kind

    # ---- the streams' side (on the event loop, never waiting) -------------------------------

    def opened(self, match_id: str, player_id: str) -> None:
        key = (match_id, player_id)
        self.counts[key] = self.counts.get(key, 0) + 1
        self._changed(key)

    def closed(self, match_id: str, player_id: str) -> None:
        key = (match_id, player_id)
        left = self.counts.get(key, 0) - 1
        if left > 0:
            self.counts[key] = left
        else:
            self.counts.pop(key, None)
        self._changed(key)

    def _changed(self, key: tuple[str, str]) -> None:
        if self.record is None:
            return
        self._dirty.add(key)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        assert self.record is not None
        while self._dirty:
            keys, self._dirty = self._dirty, set()
            counts = [(m, p, self.counts.get((m, p), 0)) for m, p in keys]
            try:
                await self._call(self.record.write, self.replica, counts)
            except Exception as error:  # noqa: BLE001 - the store away: the next renewal rewrites
                self._failed("write", error)
                self._rewrite = True
                return

    async def settled(self) -> None:
        """Until what changed so far is written (or its write failed)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    # ---- the readers' side --------------------------------------------------------------------

    async def streaming(self, match_id: str, player_id: str) -> bool:
        """Whether the player has a stream of the match open on any replica whose lease holds
        (StoreUnavailable when the record cannot say)."""
        if self.counts.get((match_id, player_id), 0) > 0 or self.record is None:
            return self.counts.get((match_id, player_id), 0) > 0
        try:
            return await self._call(self.record.streaming, match_id, player_id, self.clock())
        except Exception as error:  # noqa: BLE001 - the record's store away or late: counted, logged
            self._failed("read", error)
            raise StoreUnavailable("whether the player is watching cannot be read now; try again shortly") \
                from error

    # ---- the replica's lease ----------------------------------------------------------------

    async def start(self) -> None:
        """Create the record's tables, clear what this replica recorded before, take the lease."""
        if self.record is not None:
            await self._call(self.record.create)
            await self._call(self.record.start, self.replica, self.clock())

    async def renew(self) -> None:
        """Renew the lease (rewriting every row after a failed write); failures are logged."""
        if self.record is None:
            return
        try:
            if self._rewrite:
                self._rewrite = False
                await self.settled()
                await self._quiet()  # a write past its deadline may still land: before the rewrite, not after
                rows = [(m, p, n) for (m, p), n in self.counts.items()]
                await self._call(self.record.replace, self.replica, rows, self.clock())
            else:
                forgotten = await self._call(self.record.renew, self.replica, self.clock())
                if forgotten:
                    log.info("open streams of replicas long gone forgotten", extra={"replicas": forgotten})
        except Exception as error:  # noqa: BLE001 - tried again at the next renewal
            self._rewrite = True
            self._failed("renew", error)

    async def run(self, stopping: asyncio.Event, seconds: float = REFRESH_SECONDS) -> None:
        while not stopping.is_set():
            try:
                await asyncio.wait_for(stopping.wait(), seconds)
            except asyncio.TimeoutError:
                await self.renew()

    async def aclose(self) -> None:
        """A clean stop: this replica's rows and lease are deleted."""
        if self.record is None:
            return
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        try:
            await self._quiet()
            await self._call(self.record.stop, self.replica)
        except Exception as error:  # noqa: BLE001 - its lease lapses instead
            self._failed("stop", error)
        await self._quiet()  # a connection is never closed under a call still using it
        await asyncio.to_thread(self.record.close)

    async def _call(self, call, *args):
        """``call(*args)`` in a worker thread, awaited until ``seconds``; past them the caller
        hears TimeoutError, and the call runs on to the store's own timeout (SQLite's busy
        wait, the pool's), kept in ``_working`` until it ends."""
        work = asyncio.ensure_future(asyncio.to_thread(call, *args))
        self._working.add(work)
        work.add_done_callback(self._working.discard)
        async with asyncio.timeout(self.seconds):
            return await asyncio.shield(work)

    async def _quiet(self) -> None:
        """Until every call in a worker thread has ended (however it ended)."""
        await asyncio.gather(*self._working, return_exceptions=True)

    def _failed(self, what: str, error: Exception) -> None:
        self.failures += 1
        self.warnings.warn(what, "the open streams record failed", what=what, replica=self.replica,
                           error=(str(error) or type(error).__name__)[:300])
