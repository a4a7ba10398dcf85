"""Turn timers that survive restarts: deadlines are data, re-read from the store.

The timer follows the store's notification log from the beginning, reading the deadline
each event carries, so at start-up it re-arms every unfinished match's current turn, and
afterwards it also sees changes made by other replicas. Expiring a turn is an ordinary command that names the turn it expires
(round, turn number): when two replicas race, or the player moved just in time, the stale
timeout is refused by the aggregate, not by luck. ``step`` depends on nothing but the clock
and the store; the loop around it only sleeps.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from typing import Callable
from uuid import UUID

from services.common.wakes import first_set

from .application import MatchApplication
from .domainmodel import Match
from .errors import CorruptLog, StaleTimeout, UnknownMatch

log = logging.getLogger(__name__)


class TurnTimer:
    def __init__(self, app: MatchApplication, clock: Callable[[], float] | None = None,
                 on_expired: Callable[[UUID], object] = lambda match_id: None,
                 abandon_after_seconds: float = 1800.0) -> None:
        self.app = app
        self.clock = clock or app.clock
        self.on_expired = on_expired
        self.abandon_after_seconds = abandon_after_seconds
        self._heap: list[tuple[float, str]] = []
        # match id -> the deadline its newest event carries: an entry of the heap that is not
        # its match's newest was superseded by a move in time, and is dropped unread.
        self._newest: dict[str, float | None] = {}
        self.reads = 0  # matches read to expire a turn (docs/operations.md: idle reads nothing)
        self._due: float | None = None  # the earliest live deadline after the last pass
        self._idle: list[tuple[float, str]] = []  # (when to look again, match id): one entry per match
        self._last_seen: dict[str, tuple[int, float]] = {}  # match id -> (version, when it was seen)
        self.abandoned = 0
        self._position = 0  # last notification id read
        self.expired = 0
        self.failed_passes = 0
        self.active: set[UUID] = set()  # unfinished matches seen in the store

    def follow_store(self, batch: int = 500) -> int:
        """Arm the deadlines that the events stored since the last call carry; returns how
        many events were read. Deadlines are data in the events, so nothing is loaded."""
        read = 0
        while True:
            notes = self.app.recorder.select_notifications(self._position, batch, inclusive_of_start=False)
            for note in notes:
                self._position = note.id
                event = self.app.mapper.to_domain_event(note)
                if isinstance(event, Match.MatchStarted):
                    self.active.add(event.originator_id)
                elif isinstance(event, Match.MatchEnded):
                    self.active.discard(event.originator_id)
                    self._last_seen.pop(str(event.originator_id), None)
                    self._newest.pop(str(event.originator_id), None)
                if event.originator_id in self.active:
                    match_id = str(event.originator_id)
                    if match_id not in self._last_seen:
                        heapq.heappush(self._idle, (self.clock() + self.abandon_after_seconds, match_id))
                    self._last_seen[match_id] = (event.originator_version, self.clock())
                if hasattr(event, "deadline"):
                    self._arm(str(event.originator_id), event.deadline)
            read += len(notes)
            if len(notes) < batch:
                self._due = self.next_deadline()
                return read

    def _arm(self, match_id: str, deadline: float | None) -> None:
        """A match's newest deadline (None: no turn is timed); the heap gets it once, however
        many events repeat it (a draw keeps the turn's)."""
        if self._newest.get(match_id, -1.0) == deadline:
            return
        self._newest[match_id] = deadline
        if deadline is not None:
            heapq.heappush(self._heap, (deadline, match_id))

    def _drop_superseded(self) -> None:
        while self._heap and self._newest.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)

    async def step(self) -> int:
        """Expire every turn whose deadline has passed; returns how many were played. Only a
        match whose newest deadline has passed is read: the ones a move superseded are not."""
        now = self.clock()
        played = 0
        while (deadline := self.next_deadline()) is not None and deadline <= now:
            _, match_id = heapq.heappop(self._heap)
            try:
                self.reads += 1
                match = await self.app.read(self.app.get_match, UUID(match_id))
                if match.finished or match.deadline != deadline:
                    continue  # that turn was played in time; a later deadline is armed
                await self.app.expire_turn(match.id, match.round_number, match.turn_no)
            except (StaleTimeout, UnknownMatch, CorruptLog):
                continue  # a frozen match's timer stops with it
            played += 1
            self.expired += 1
            self.on_expired(match.id)
        self._due = self.next_deadline()
        return played + await self._abandon_idle(now)

    async def _abandon_idle(self, now: float) -> int:
        """End the matches in which nothing at all has happened for ``abandon_after_seconds``
        (a player holding the turn with no timer, say): everyone else gets out."""
        ended = 0
        while self._idle and self._idle[0][0] <= now:
            _, match_id = heapq.heappop(self._idle)
            seen = self._last_seen.get(match_id)
            if seen is None:
                continue  # ended
            version, seen_at = seen
            if seen_at + self.abandon_after_seconds > now:  # something happened since: look again later
                heapq.heappush(self._idle, (seen_at + self.abandon_after_seconds, match_id))
                continue
            try:
                await self.app.abandon_match(UUID(match_id), version, self.abandon_after_seconds)
            except (StaleTimeout, UnknownMatch, CorruptLog):
                self._last_seen.pop(match_id, None)
                continue
            log.warning("match abandoned: nothing happened for a long time",
                        extra={"match_id": match_id, "idle_seconds": self.abandon_after_seconds})
            self._last_seen.pop(match_id, None)
            self.abandoned += 1
            ended += 1
            self.on_expired(UUID(match_id))
        return ended

    def next_deadline(self) -> float | None:
        self._drop_superseded()
        return self._heap[0][0] if self._heap else None

    def overdue_seconds(self) -> float:
        """How long the earliest armed deadline has been due (0: none is): after a working
        pass nothing is left due, so a growing value means the timer is failing or stuck."""
        nxt = self._due  # as the last pass left it: the metrics thread must not touch the heap
        return 0.0 if nxt is None else max(0.0, self.clock() - nxt)

    async def run(self, stopping: asyncio.Event, poll_seconds: float = 0.5, stored: asyncio.Event | None = None,
                  safety_seconds: float = 5.0) -> None:
        """Follow the store and expire what is due. With ``stored`` (the change tail's flag,
        raised by every append) it follows the store only when something was stored, at
        most every ``poll_seconds``, and otherwise sleeps until the next deadline, looking
        anyway every ``safety_seconds`` (a tail that lost its connection): while nobody
        moves it does nothing. Without, it looks every ``poll_seconds``."""
        loop = asyncio.get_running_loop()
        while not stopping.is_set():
            followed = loop.time()
            if stored is not None:
                stored.clear()
            try:
                await asyncio.to_thread(self.follow_store)
                await self.step()
            except Exception:  # a fault in one pass must not stop the timers of every match
                self.failed_passes += 1
                log.exception("turn timer pass failed")
            nxt = self.next_deadline()
            longest = poll_seconds if stored is None else safety_seconds
            delay = longest if nxt is None else min(longest, max(0.0, nxt - self.clock()))
            if await first_set(stopping, stored, delay) is stored:  # one pass every poll_seconds at most
                await first_set(stopping, None, followed + poll_seconds - loop.time())
