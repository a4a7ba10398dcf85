"""The store as the match use cases see it: load a match, append what it did.

Two implementations, chosen by where the events live:

- ``EmbeddedStore`` (SQLite, memory) answers in well under a millisecond, so it answers
  right on the event loop: a worker thread's hand-off would cost more than the call.
- ``NetworkStore`` (PostgreSQL) waits on a network: reads run in worker threads so their
  waits overlap, and appends go through the recorder's grouped asynchronous append
  (services/common/postgres_store.py), which needs no thread at all.

A store that fails (PostgreSQL down, a disk full) raises ``StoreUnavailable``: the caller
gets UNAVAILABLE and may retry, nothing was half-written (an append is one transaction),
and the failure is logged (at most once every 10 s per kind). A lost race is not a failure:
``RecordConflictError`` goes to the unit of work (services/common/unit_of_work.py), which
runs the command again on the new state.

Both keep the library's aggregate cache current after an append: the library refreshes it
only without fast-forward, and fast-forward (which keeps several replicas honest) would
otherwise re-read and re-apply a command's own events on the next load.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import PersistenceError, RecordConflictError

from services.common.logs import Warnings

from .domainmodel import Match
from .errors import CorruptLog, StoreUnavailable, UnknownMatch

STORE_SECONDS = 3.0  # a network store's deadline for one read or append
RECENT_EVENTS = 64  # per match: a round or two
RECENT_MATCHES = 5000  # the matches most recently stored to
log = logging.getLogger("domino.match.store")
_warnings = Warnings(log)

T = TypeVar("T")


class EmbeddedStore:
    """The unit of work's store (cached, load, append: unit_of_work.AggregateStore) and the
    queries' reads (read, recent)."""

    def __init__(self, app: Application[UUID]) -> None:
        self._app = app
        # Told the notification ids of each append (the change tail skips what this process
        # stored: the command that stored it has published it already).
        self.on_stored: Callable[[list[int]], None] | None = None

    def cached(self, match_id: UUID) -> Match | None:
        repository = self._app.repository
        if repository.cache is None or match_id in FROZEN:
            return None
        # A worker thread's read fast-forwards the cached copy in place, holding the library's
        # lock for that match: copy it only under that lock, or not at all (never wait on a read).
        lock = repository._use_fastforward_lock(match_id)
        try:
            if not lock.acquire(blocking=False):
                return None
            try:
                return cast(Match, copy.deepcopy(repository.cache.get(match_id)))
            finally:
                lock.release()
        except KeyError:
            return None
        finally:
            repository._disuse_fastforward_lock(match_id)

    def get(self, match_id: UUID, version: int | None = None) -> Match:
        frozen = FROZEN.get(match_id)
        if frozen is not None:
            raise frozen
        try:
            with unavailable("read"):
                return cast(Match, self._app.repository.get(match_id, version=version))
        except AggregateNotFoundError:
            raise UnknownMatch(f"no match {match_id}" + ("" if version is None else f" at version {version}")) \
                from None
        except (StoreUnavailable, RecordConflictError):
            raise
        except Exception as error:  # noqa: BLE001 - the engine (or the decoder) refused a stored event
            raise self._frozen(match_id, error) from error

    def _frozen(self, match_id: UUID, error: Exception) -> CorruptLog:
        """Find the stored event replay refuses, freeze the match, and say so loudly, once."""
        corrupt = first_refused(self._app, match_id) or CorruptLog(match_id, -1, "?", repr(error)[:300])
        if match_id not in FROZEN:
            FROZEN[match_id] = corrupt
            log.error("a match's stored log is refused on replay: the match is frozen", extra={
                "match": str(match_id), "version": corrupt.version, "topic": corrupt.topic,
                "reason": corrupt.reason[:300]})
        return corrupt

    async def load(self, match_id: UUID) -> Match:
        return self.get(match_id)

    async def append(self, match: Match) -> None:
        with unavailable("append"):
            recordings = self._app.events.put(match.collect_events())
        if self.on_stored is not None:
            self.on_stored([r.notification.id for r in recordings])
        self._remember(match)

    async def read(self, call: Callable[..., T], *args: Any) -> T:
        with unavailable("read"):
            return call(*args)

    def recent(self, match_id: UUID, after: int) -> list[Match.Event] | None:
        return None  # the embedded store answers in microseconds, on the event loop

    def _remember(self, match: Match) -> None:
        if self._app.repository.cache is not None:
            self._app.repository.cache.put(match.id, copy.deepcopy(match))


class NetworkStore(EmbeddedStore):
    """Every call has a deadline: with the database away a caller hears so in seconds
    (a late append may still commit; its retry, with the same request id, finds it)."""

    def __init__(self, app: Application[UUID], seconds: float = STORE_SECONDS) -> None:
        super().__init__(app)
        self._append_async = app.recorder.append_async  # type: ignore[attr-defined]
        self.seconds = seconds
        # match -> the last events this replica stored, for WatchMatch streams woken by them
        self._recent: OrderedDict[UUID, list[Match.Event]] = OrderedDict()

    async def load(self, match_id: UUID) -> Match:
        with unavailable("read"):
            async with asyncio.timeout(self.seconds):
                return await asyncio.to_thread(self.get, match_id)

    async def append(self, match: Match) -> None:
        stored = [self._app.mapper.to_stored_event(e) for e in match.collect_events()]
        with unavailable("append"):
            async with asyncio.timeout(self.seconds):  # a timer, not a task: cheaper than wait_for
                await self._append_async(stored)
        self._remember(match)
        self._recent_stored(match.id, stored)

    def recent(self, match_id: UUID, after: int) -> list[Match.Event] | None:
        events = self._recent.get(match_id)
        if not events or events[0].originator_version > after + 1:
            return None
        return [e for e in events if e.originator_version > after]

    def _recent_stored(self, match_id: UUID, stored: list) -> None:
        """Keep what was just stored as a read of the store would return it (decoded from
        the same records), after the events before it only if they are its predecessors."""
        events = [cast(Match.Event, self._app.mapper.to_domain_event(s)) for s in stored]
        if not events:
            return
        kept = self._recent.pop(match_id, [])
        if kept and kept[-1].originator_version != events[0].originator_version - 1:
            kept = []
        self._recent[match_id] = (kept + events)[-RECENT_EVENTS:]
        while len(self._recent) > RECENT_MATCHES:
            self._recent.popitem(last=False)

    async def read(self, call: Callable[..., T], *args: Any) -> T:
        with unavailable("read"):
            async with asyncio.timeout(self.seconds):
                return await asyncio.to_thread(call, *args)


# Matches whose stored log replay refuses, in this process: frozen until an operator has
# decided and the process restarts (docs/operations.md, "A match's log is corrupt").
FROZEN: dict[UUID, CorruptLog] = {}


def first_refused(app: Application[UUID], match_id: UUID) -> CorruptLog | None:
    """The first stored event of the match that cannot be read or applied, one at a time."""
    aggregate = None
    for stored in app.recorder.select_events(match_id):
        try:
            event = app.mapper.to_domain_event(stored)
        except Exception as error:  # noqa: BLE001 - unreadable is as refused as illegal
            return CorruptLog(match_id, stored.originator_version, stored.topic, f"unreadable: {error!r}"[:500])
        try:
            aggregate = cast(Any, event).mutate(aggregate)
        except Exception as error:  # noqa: BLE001
            return CorruptLog(match_id, stored.originator_version, stored.topic, f"{type(error).__name__}: {error}"[:500])
    return None


def store_of(app: Application[UUID]) -> EmbeddedStore:
    """The store for the application's recorder: a network one when it appends asynchronously."""
    return NetworkStore(app) if hasattr(app.recorder, "append_async") else EmbeddedStore(app)


@contextmanager
def unavailable(what: str) -> Iterator[None]:
    """A store failure as ``StoreUnavailable`` (logged); a lost race passes through."""
    try:
        yield
    except RecordConflictError:
        raise
    except (PersistenceError, asyncio.TimeoutError) as error:
        _warnings.warn(f"store-{what}", f"the match store failed to {what}", error=(str(error) or type(error).__name__)[:300])
        raise StoreUnavailable("the match store is unavailable; nothing was changed, try again shortly") from error
