"""One unit of work for every use case: load the aggregate, act on it, append what it did.

The anchors' use case is three lines (eventsourcing's bank accounts: get the account, debit
it, save it; cosmicpython's ``with uow: ...; uow.commit()``). What a command needs around
those lines lives here once, for the match service and matchmaking alike:

- A lost race (the store's ``RecordConflictError``: another writer took those versions
  first) runs the whole act again on what is stored now, a bounded number of times; then
  the caller hears its service's ``ConcurrencyConflict`` (ABORTED), and nothing was stored.
- A replica's kept copy may be behind the store. It is used first (most commands find it
  current), and cannot store anything stale (its events' versions are taken, so the append
  conflicts); what it refuses is asked again of the stored aggregate before it is believed.
- Commands on one aggregate in this process wait for each other, so only replicas race: a
  replica's own commands (four seeds sent at once) would otherwise race and retry.
- A retried request is answered, not applied again: the aggregate keeps what each request
  did, and the ``done`` test finds it before the act runs (a reused id for another request is
  refused by that test, as the aggregate says).

``Units`` is the asyncio one (the match service serves on one event loop). ``ThreadedUnits``
is only the retry and the lock, for use cases that run in worker threads on a blocking store
and load and save for themselves (matchmaking's act on several aggregates at once; social's
are SQL transactions). Both take their clock-like parts (a pause between tries) injected, so tests
need no sleeping.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from typing import AsyncIterator, Callable, Generic, Hashable, Protocol, TypeVar
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import RecordConflictError

__all__ = ["AggregateStore", "ThreadedUnits", "Units"]

A = TypeVar("A", bound=Aggregate)
T = TypeVar("T")


class AggregateStore(Protocol[A]):
    """What a unit needs of a store (services/match/store.py has the match service's)."""

    def cached(self, aggregate_id: UUID) -> A | None:
        """This replica's own copy (maybe behind the store), without I/O; None if it has none."""

    async def load(self, aggregate_id: UUID) -> A:
        """The aggregate as stored now; the unit's ``unknown`` error when there is none."""

    async def append(self, aggregate: A) -> None:
        """Store the aggregate's new events at once, or raise RecordConflictError and store none."""


class Units(Generic[A]):
    """Load, act, append on one aggregate at a time per id, for asyncio use cases."""

    def __init__(self, store: AggregateStore[A], conflict: Callable[[], Exception],
                 refusals: tuple[type[Exception], ...] = (), unknown: type[Exception] = LookupError,
                 tries: int = 5) -> None:
        self.store = store
        self.conflict = conflict  # what the caller hears after ``tries`` lost races
        self.refusals = refusals  # what a stale copy may refuse that the stored one might not
        self.unknown = unknown  # the store's "no such aggregate"
        self.tries = tries
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}  # id -> (its lock, commands using it)

    async def run(self, aggregate_id: UUID, act: Callable[[A], object], done: Callable[[A], bool] | None = None,
                  start: Callable[[], A] | None = None) -> A:
        """The aggregate once ``act`` has acted on it and its events are stored. ``done``: the
        request was carried out already (nothing is acted or stored again). ``start``: the new
        aggregate to act on when none is stored."""
        async with self.one_at_a_time(aggregate_id):
            may_use_copy = True
            for _ in range(self.tries):
                aggregate = self.store.cached(aggregate_id) if may_use_copy else None
                from_copy = aggregate is not None
                if aggregate is None:
                    aggregate = await self._load(aggregate_id, start)
                try:
                    if done is None or not done(aggregate):
                        act(aggregate)
                        if aggregate.pending_events:
                            await self.store.append(aggregate)
                    return aggregate
                except RecordConflictError:
                    may_use_copy = False
                except self.refusals:
                    if not from_copy:
                        raise  # the stored aggregate refused: reading it again would only repeat that
                    may_use_copy = False
            raise self.conflict()

    async def _load(self, aggregate_id: UUID, start: Callable[[], A] | None) -> A:
        if start is None:
            return await self.store.load(aggregate_id)
        try:
            return await self.store.load(aggregate_id)
        except self.unknown:
            return start()

    @asynccontextmanager
    async def one_at_a_time(self, key: Hashable) -> AsyncIterator[None]:
        """Hold ``key``'s lock; it is forgotten when no command uses it."""
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


LOCK_STRIPES = 64


class ThreadedUnits:
    """Run a use case's attempt until no other writer beats it to the store, for use cases that
    run in threads on a blocking store. Unlike ``Units`` it neither loads nor saves: the
    attempt does both, because matchmaking's use cases act on several aggregates at once (a
    room, its players' presences, the seats a match frees) and save them all in one atomic
    call, and social's are SQL transactions. What it adds is the retry (``conflicts``: what a
    lost race raises) and the lock this replica's threads take turns on. A short random pause
    between tries (up to ``max_pause`` seconds, doubling from ``first_pause``) keeps replicas
    that race on one hot aggregate from racing again in step."""

    def __init__(self, conflict: Callable[[], Exception], tries: int, lost: Callable[[], None] = lambda: None,
                 sleep: Callable[[float], None] = time.sleep, jitter: Callable[[float, float], float] = random.uniform,
                 max_pause: float = 0.05, first_pause: float = 0.001,
                 conflicts: tuple[type[Exception], ...] = (RecordConflictError,)) -> None:
        self.conflict = conflict  # what the caller hears after ``tries`` lost races
        self.tries = tries
        self.lost = lost  # told of each lost race (a metric)
        self.sleep = sleep
        self.jitter = jitter
        self.max_pause = max_pause
        self.first_pause = first_pause
        self.conflicts = conflicts
        # Striped, so the number of locks stays fixed however many aggregates there are.
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    def run(self, attempt: Callable[[], T], lock: UUID | None = None) -> T:
        """What ``attempt`` returns once it stored its changes; ``lock``: the aggregate that
        this replica's threads take turns on."""
        for tries in range(self.tries):
            with self._lock(lock):
                try:
                    return attempt()
                except self.conflicts:
                    self.lost()
            self.sleep(self.jitter(0, min(self.max_pause, self.first_pause * 2 ** tries)))
        raise self.conflict()

    def _lock(self, key: UUID | None) -> AbstractContextManager[object]:
        return nullcontext() if key is None else self._locks[key.int % LOCK_STRIPES]
