"""Whether a player's app is open: this replica's count of open WatchNotifications streams
per player, written to the store as presence rows under this replica's lease
(presence_store.py), so every replica answers the same for friends (ListFriends).

Only the first stream of a player on this replica and the close of their last write a row;
the lease is one write every ``refresh_seconds`` whatever the number of streams. All
writes of this replica go through one lock and write the state the counts hold when they
run, so an open and a close racing each other cannot leave the wrong row behind. A write
that fails is repaired by the next refresh, which makes this replica's rows what the
counts say (a player is not left online, nor offline, until the replica stops)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from typing import Callable

from services.common.sql import Database

from .presence_store import PresenceStore

log = logging.getLogger("domino.social")
SWEEP_ROWS = 500


class Presence:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time, replica_id: str | None = None,
                 lease_seconds: float = 90.0, refresh_seconds: float = 30.0) -> None:
        self.db = db
        self.clock = clock
        self.replica_id = replica_id or str(uuid.uuid4())
        self.lease_seconds = lease_seconds
        self.refresh_seconds = refresh_seconds
        self.counts: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._leased = False
        self._writing: set[asyncio.Task] = set()
        self._store_lock = threading.Lock()  # held by each write; close() takes it for good
        self._closed = False
        self._rewrite = False  # a write failed: the next refresh writes every row from the counts
        self.failures = 0

    @property
    def online_here(self) -> int:
        return len(self.counts)

    async def opened(self, player_id: str) -> None:
        self.counts[player_id] = self.counts.get(player_id, 0) + 1
        if self.counts[player_id] == 1:
            await self._sync(player_id)

    def close_soon(self, player_id: str) -> None:
        """A stream of the player closed: counted now, written by a task of its own (a stream
        ends by cancellation, which must not cancel the write)."""
        left = self.counts.get(player_id, 0) - 1
        if left > 0:
            self.counts[player_id] = left
            return
        self.counts.pop(player_id, None)
        task = asyncio.get_running_loop().create_task(self._sync(player_id))
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def _sync(self, player_id: str) -> None:
        async with self._lock:
            try:
                await asyncio.to_thread(self._write, player_id, player_id in self.counts)
            except Exception:  # noqa: BLE001 - counted; the next refresh writes the rows again
                self._rewrite = True
                self.failures += 1
                log.exception("a presence row could not be written")

    def _write(self, player_id: str, online: bool) -> None:
        with self._store_lock:
            if not self._closed:
                self._write_row(player_id, online)

    def close(self) -> None:
        """No write after this (the store may close): waits for the one under way."""
        with self._store_lock:
            self._closed = True

    def _write_row(self, player_id: str, online: bool) -> None:
        now = self.clock()
        with self.db.transaction() as execute:
            if not self._leased:
                PresenceStore.lease(execute, self.replica_id, now, now + self.lease_seconds)
            if online:
                PresenceStore.online(execute, player_id, self.replica_id)
            else:
                PresenceStore.offline(execute, player_id, self.replica_id, now)
        self._leased = True

    def refresh(self) -> int:
        """Renews this replica's lease (writing its rows again from the counts if a sweep
        took them for a dead replica's, or a write failed since the last refresh) and sweeps
        those of dead replicas; how many rows were swept."""
        now = self.clock()
        rewrite, self._rewrite = self._rewrite, False
        try:
            with self.db.transaction() as execute:
                kept = PresenceStore.lease(execute, self.replica_id, now, now + self.lease_seconds)
                if rewrite or not kept:
                    PresenceStore.rewrite(execute, self.replica_id, set(self.counts), now)
                swept = PresenceStore.sweep_dead(execute, now, SWEEP_ROWS)
        except BaseException:
            self._rewrite = self._rewrite or rewrite
            raise
        self._leased = True
        return swept

    async def run(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            try:
                async with self._lock:
                    await asyncio.to_thread(self.refresh)
            except Exception:  # noqa: BLE001 - counted and logged; the lease has a margin of two misses
                self.failures += 1
                log.exception("the presence lease could not be refreshed")
            try:
                await asyncio.wait_for(stopping.wait(), self.refresh_seconds)
            except asyncio.TimeoutError:
                pass

    def leave(self) -> None:
        """On shutdown: this replica's players are offline now, not after the lease runs out."""
        now = self.clock()
        with self.db.transaction() as execute:
            for player in list(self.counts):
                PresenceStore.offline(execute, player, self.replica_id, now)
            execute("UPDATE domino_social_replicas SET lease_until = ? WHERE replica_id = ?", now, self.replica_id)

    def of(self, player_ids: list[str]) -> dict[str, tuple[bool, float | None]]:
        """player -> (an app of theirs is open on any replica, when one last was)."""
        with self.db.transaction() as execute:
            return PresenceStore.of(execute, player_ids, self.clock())
