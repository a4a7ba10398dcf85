"""What matchmaking's use cases share: the `Store` they load and save aggregates through,
which retries a lost race, and the `Observer` they report to.

Every use case object (room_use_cases.py, table_use_cases.py, presence_use_cases.py,
match_starts.py) is given the one Store of its application, which owns the store itself
(application.py). A use case saves every aggregate it changed in one call, which
eventsourcing records atomically; on a lost race (RecordConflictError) it reloads and
tries again after a short random pause. Commands on one hot aggregate (a queue, a room)
also take an in-process lock on it, so the replicas of a deployment race each other but a
replica's own threads do not.
"""

from __future__ import annotations

import random
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable, Iterator, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import Aggregate, DomainEventProtocol
from eventsourcing.persistence import EventStore, RecordConflictError

from .errors import ConcurrencyConflict
from .presence import Presence
from .seating import humans
from .tables import Queue, Table

RACE_RETRIES = 60
LOCK_STRIPES = 64

A = TypeVar("A", bound=Aggregate)
T = TypeVar("T")


class Observer:
    """What matchmaking reports to metrics (bootstrap injects a Prometheus one)."""

    def queue_waited(self, seconds: float) -> None:
        pass

    def match_started(self, kind: str, bot_seats: int) -> None:
        pass

    def race_lost(self) -> None:
        """Another writer saved first; the command is retried on the new state."""

    def rating_unavailable(self, reason: str) -> None:
        """A player was seated first come, first seated: their rating could not be told
        ("deadline", "error", or "backoff": not asked, as it failed moments ago)."""

    def notices_posted(self, count: int) -> None:
        """The social service stored (or already had) this many invite notifications."""

    def notices_not_posted(self, count: int) -> None:
        """This many invite notifications wait: the social service was away (posted again later)."""

    def notice_refused(self) -> None:
        """The social service refused an invite notification; it was dropped (never posted again)."""


class Store:
    """The aggregates of one application: ``save`` is the application's own, which records
    its arguments atomically and takes the snapshots; what was saved is told to
    ``on_change`` (the watchers of rooms and tickets) and a changed queue to
    ``queue_changed`` (the bot-fill timer, waiting_queues.py)."""

    def __init__(self, repository: Repository[UUID], events: EventStore[UUID], save: Callable[..., Any],
                 observer: Observer, on_change: Callable[[UUID], object],
                 queue_changed: Callable[[UUID], None]) -> None:
        self._repository = repository
        self._events = events
        self._save = save
        self._observer = observer
        self._on_change = on_change
        self._queue_changed = queue_changed
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    def load(self, cls: type[A], aggregate_id: UUID, version: int | None = None) -> A | None:
        """The aggregate (at ``version``, or its latest), or None when it was never saved
        (or is not a ``cls``)."""
        try:
            aggregate: Aggregate = self._repository.get(aggregate_id, version=version)
        except AggregateNotFoundError:
            return None
        if not isinstance(aggregate, cls):
            return None
        return aggregate

    def load_saved(self, cls: type[A], aggregate_id: UUID) -> A:
        """An aggregate that a saved one names: saved in the same atomic call, so it exists."""
        aggregate = self.load(cls, aggregate_id)
        if aggregate is None:
            raise LookupError(f"{cls.__name__} {aggregate_id} is named in the store but is not there")
        return aggregate

    def events_after(self, aggregate_id: UUID, version: int) -> Iterator[DomainEventProtocol[UUID]]:
        return self._events.get(aggregate_id, gt=version)

    def presence(self, player_id: str) -> Presence:
        return self.load(Presence, Presence.create_id(player_id)) or Presence(player_id=player_id)

    def save_changes(self, *aggregates: Aggregate) -> None:
        """Records every aggregate given (each once, though named twice) in one atomic call."""
        aggregates = tuple({id(a): a for a in aggregates}.values())
        self._save(*aggregates)
        changed: set[UUID] = set()
        for aggregate in aggregates:
            changed.add(aggregate.id)
            if isinstance(aggregate, Queue):  # the bot-fill timer looks at it again (waiting_queues.py)
                self._queue_changed(aggregate.id)
            if isinstance(aggregate, Table):  # ticket watchers wait on their presence
                changed.update(Presence.create_id(p) for p in humans(aggregate.seats))
        for aggregate_id in changed:
            self._on_change(aggregate_id)

    def retrying(self, attempt: Callable[[], T], lock: UUID | None = None) -> T:
        """Run ``attempt`` until it is not beaten to the store by another writer."""
        for tries in range(RACE_RETRIES):
            with self._lock(lock):
                try:
                    return attempt()
                except RecordConflictError:
                    self._observer.race_lost()
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2 ** tries)))
        raise ConcurrencyConflict("matchmaking changed under this request repeatedly; try again")

    def _lock(self, key: UUID | None) -> AbstractContextManager[object]:
        # Striped, so the number of locks stays fixed however many rooms there are.
        return nullcontext() if key is None else self._locks[key.int % LOCK_STRIPES]
