"""What matchmaking's use cases share: loading and saving aggregates, retrying lost races,
and the injected clock, invite codes, observer, match starts and ratings.

RoomUseCases (room_use_cases.py) and TableUseCases (table_use_cases.py) build on this
class; MatchmakingApplication (application.py) combines them and sets the attributes
declared here. A use case saves every aggregate it changed in one call, which
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
from typing import TYPE_CHECKING, Callable, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import RecordConflictError

from .errors import ConcurrencyConflict
from .presence import Presence
from .seating import humans
from .tables import Queue, Table
from .standings import Standings

if TYPE_CHECKING:
    from .match_starts import MatchStarts
    from .table_choice import Ratings
    from .waiting_queues import WaitingQueues

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


class Plumbing(Application[UUID]):
    # Set by MatchmakingApplication.__init__: clocks, ids and invite codes are injected, so
    # tests need no sleeping.
    clock: Callable[[], float]
    code_source: Callable[[], str]
    table_wait_seconds: float
    table_rating_spread: float
    ratings: Ratings
    standings: Standings
    table_bot_strength: str
    observer: Observer
    on_change: Callable[[UUID], object]
    starts: MatchStarts
    waiting_queues: WaitingQueues
    _locks: list[threading.Lock]

    def load(self, cls: type[A], aggregate_id: UUID) -> A | None:
        """The aggregate, or None when it was never saved (or is not a ``cls``)."""
        try:
            aggregate: Aggregate = self.repository.get(aggregate_id)
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

    def presence(self, player_id: str) -> Presence:
        return self.load(Presence, Presence.create_id(player_id)) or Presence(player_id=player_id)

    def save_changes(self, *aggregates: Aggregate) -> None:
        self.save(*aggregates)
        changed: set[UUID] = set()
        for aggregate in aggregates:
            changed.add(aggregate.id)
            if isinstance(aggregate, Queue):  # the bot-fill timer looks at it again (waiting_queues.py)
                self.waiting_queues.changed(aggregate.id)
            if isinstance(aggregate, Table):  # ticket watchers wait on their presence
                changed.update(Presence.create_id(p) for p in humans(aggregate.seats))
        for aggregate_id in changed:
            self.on_change(aggregate_id)

    def retrying(self, attempt: Callable[[], T], lock: UUID | None = None) -> T:
        """Run ``attempt`` until it is not beaten to the store by another writer."""
        for tries in range(RACE_RETRIES):
            with self._lock(lock):
                try:
                    return attempt()
                except RecordConflictError:
                    self.observer.race_lost()
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2 ** tries)))
        raise ConcurrencyConflict("matchmaking changed under this request repeatedly; try again")

    def _lock(self, key: UUID | None) -> AbstractContextManager[object]:
        # Striped, so the number of locks stays fixed however many rooms there are.
        return nullcontext() if key is None else self._locks[key.int % LOCK_STRIPES]
