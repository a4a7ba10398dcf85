"""What matchmaking's use cases share: the `Store` they load and save aggregates through,
whose ``run`` is their unit of work, and the `Observer` they report to.

Every use case object (room_use_cases.py, table_use_cases.py, presence_use_cases.py,
match_starts.py) is given the one Store of its application, which owns the store itself
(application.py). A use case is one attempt closure run by ``Store.run``: it loads what it
needs, acts, and saves every aggregate it changed in one call, which eventsourcing records
atomically. The attempt loads and saves for itself, unlike the match service's unit, because
one command acts on several aggregates (a room, its players' presences, the seats a match
frees). ``Store.run`` adds what every attempt needs around that (services/common/unit_of_work.py's
``ThreadedUnits``): the attempt runs again on a lost race (RecordConflictError) after a short
random pause, and commands on one hot aggregate (a queue, a room) take turns on it in this
process, so the replicas of a deployment race each other but a replica's own threads do not
(the use cases run in worker threads: the gRPC adapter's, the bot-fill timer's). It stays a
method of the Store, so a use case is given one port, not a store and a retry beside it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import Aggregate, DomainEventProtocol
from eventsourcing.persistence import EventStore

from services.common.unit_of_work import ThreadedUnits

from .errors import ConcurrencyConflict
from .presence import Presence
from .seating import humans
from .tables import Queue, Table

RACE_RETRIES = 60

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
        self._on_change = on_change
        self._queue_changed = queue_changed
        self._units = ThreadedUnits(lambda: ConcurrencyConflict(
            "matchmaking changed under this request repeatedly; try again"), RACE_RETRIES, observer.race_lost)

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

    def run(self, attempt: Callable[[], T], lock: UUID | None = None) -> T:
        """Run ``attempt`` (load, act, ``save_changes``) until no other writer beats it to the
        store; ``lock``: the aggregate this replica's threads take turns on."""
        return self._units.run(attempt, lock)
