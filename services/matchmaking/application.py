"""Matchmaking's application: private rooms, public tables, practice against bots.

The use cases live in room_use_cases.py and table_use_cases.py; this class wires them to
the store and holds the plumbing they share. A use case loads the aggregates, asks them to
act, and saves every aggregate that changed in one call, which eventsourcing records
atomically; on a lost race (RecordConflictError) it reloads and tries again after a short
random pause. Commands on one hot aggregate (a queue, a room) also take an in-process lock
on it, so the replicas of a deployment race each other but a replica's own threads do
not. Clocks, ids and invite codes are injected, so tests need no sleeping.
"""

from __future__ import annotations

import random
import threading
import time
from contextlib import nullcontext
from typing import Callable
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import RecordConflictError

from .errors import ConcurrencyConflict
from .match_starts import MatchCreator, MatchStarts, PendingStarts, Unavailable, release_match, release_players
from .options import check_strength
from .presence import MatchLink, Presence
from .room_use_cases import CODE_ALPHABET, CODE_LENGTH, RoomUseCases, new_invite_code, normalized_code
from .rooms import FailedJoins
from .seating import humans
from .table_use_cases import TableUseCases, TicketState
from .tables import Queue, Table

__all__ = ["MatchmakingApplication", "Observer", "TicketState", "CODE_ALPHABET", "CODE_LENGTH", "normalized_code"]

RACE_RETRIES = 60
LOCK_STRIPES = 64


class Observer:
    """What matchmaking reports to metrics (bootstrap injects a Prometheus one)."""

    def queue_waited(self, seconds: float) -> None:
        pass

    def match_started(self, kind: str, bot_seats: int) -> None:
        pass

    def race_lost(self) -> None:
        """Another writer saved first; the command is retried on the new state."""


class MatchmakingApplication(RoomUseCases, TableUseCases, Application[UUID]):
    name = "Matchmaking"  # PostgreSQL tables matchmaking_events, matchmaking_snapshots
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}
    snapshotting_intervals = {Queue: 100, Presence: 50, FailedJoins: 50}

    def __init__(self, env=None, matches: MatchCreator | None = None, clock: Callable[[], float] = time.time,
                 table_wait_seconds: float = 20.0, table_bot_strength: str = "greedy",
                 observer: Observer | None = None, on_change: Callable[[UUID], None] = lambda aggregate_id: None,
                 code_source: Callable[[], str] = new_invite_code) -> None:
        check_strength(table_bot_strength)
        super().__init__(env)
        self.clock = clock
        self.table_wait_seconds = table_wait_seconds
        self.table_bot_strength = table_bot_strength
        self.observer = observer or Observer()
        self.on_change = on_change
        self.code_source = code_source
        self.starts = MatchStarts(self, matches or Unavailable())
        self.pending_starts = PendingStarts(self)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ---- match lifecycle ---------------------------------------------------------------

    def release_players(self, match_id: str, players: list[str]) -> list[str]:
        """Players who left a match that goes on without them: free them."""
        return release_players(self, match_id, players)

    def release_match(self, match_id: str) -> bool:
        """A match ended: close its room or table and free its players (idempotent)."""
        return release_match(self, match_id)

    def match_link(self, match_id: str) -> MatchLink | None:
        return self.load(MatchLink, MatchLink.create_id(match_id))

    # ---- plumbing ----------------------------------------------------------------------

    def load(self, cls, aggregate_id: UUID):
        """The aggregate, or None when it was never saved."""
        try:
            aggregate = self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None
        if not isinstance(aggregate, cls):
            return None
        return aggregate

    def presence(self, player_id: str) -> Presence:
        return self.load(Presence, Presence.create_id(player_id)) or Presence(player_id=player_id)

    def save_changes(self, *aggregates) -> None:
        self.save(*aggregates)
        changed: set[UUID] = set()
        for aggregate in aggregates:
            changed.add(aggregate.id)
            if isinstance(aggregate, Table):  # ticket watchers wait on their presence
                changed.update(Presence.create_id(p) for p in humans(aggregate.seats))
        for aggregate_id in changed:
            self.on_change(aggregate_id)

    def retrying(self, attempt, lock: UUID | None = None):
        """Run ``attempt`` until it is not beaten to the store by another writer."""
        for tries in range(RACE_RETRIES):
            with self._lock(lock):
                try:
                    return attempt()
                except RecordConflictError:
                    self.observer.race_lost()
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2 ** tries)))
        raise ConcurrencyConflict("matchmaking changed under this request repeatedly; try again")

    def _lock(self, key: UUID | None):
        # Striped, so the number of locks stays fixed however many rooms there are.
        return nullcontext() if key is None else self._locks[key.int % LOCK_STRIPES]
