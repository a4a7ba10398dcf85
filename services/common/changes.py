"""Wakes WatchMatch (and WatchRoom, WatchTicket) streams when what they watch changes.

Commands on this replica publish at once (cause ``local``). Changes made elsewhere (another
replica, another worker process, a tool writing to the store) are published by the change
tail (services/common/change_tail.py), which follows the store (cause ``push``, or
``safety`` for what its rare safety-net read found), so a stream waits for a wake alone and
never re-reads the store on a timer. A waiter tells its stream why it was woken: a stream
woken only by this replica's own changes may take them from what the replica kept; any
other wake sends it to the store. On shutdown ``close`` wakes every stream for good, so
streams end at once instead of holding the server's drain for its whole grace period
(clients reconnect to another replica, or after the restart, from the version they have).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, Iterable
from uuid import UUID

LOCAL, PUSH, SAFETY, CLOSED = "local", "push", "safety", "closed"  # why a waiter was woken


class Waiter:
    """One stream's registration for the next change of a key: ``with feed.waiter(key) as
    waiter: ...read...; await waiter.wait(timeout)``. Leaving the block (a stream that ends,
    fails or is cancelled while it reads) unregisters it, so ended streams leave nothing
    behind."""

    __slots__ = ("_feed", "key", "_event", "_waiting", "generation", "causes", "through_alias")

    def __init__(self, feed: "ChangeFeed", key: UUID, event: asyncio.Event, waiting: set,
                 generation: int = 0) -> None:
        self._feed = feed
        self.key = key
        self._event = event
        self._waiting = waiting
        self.generation = generation  # where the key's changes stood when it registered (``ChangeFeed.generation``)
        self.causes: set[str] = set()  # why it was woken: LOCAL, PUSH, SAFETY, CLOSED (empty until then)
        self.through_alias = False  # some change was published under an alias of its key (a phrase)

    def __enter__(self) -> "Waiter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._waiting.discard(self)
        if not self._waiting:
            self._feed._forget(self.key, self._waiting)

    @property
    def local_only(self) -> bool:
        """Woken by changes made through this replica alone (it may hold what they stored)."""
        return bool(self.causes) and self.causes <= {LOCAL}

    async def wait(self, timeout: float | None = None) -> bool:
        """True when a change (or the feed's close) woke it, False when the timeout did."""
        if self._event.is_set():
            return True
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    def _wake(self, cause: str, through_alias: bool = False) -> None:
        self.causes.add(cause)
        self.through_alias = self.through_alias or through_alias
        self._event.set()


class ChangeFeed:
    def __init__(self) -> None:
        self._waiting: dict[UUID, set[Waiter]] = {}  # keys with streams registered, and theirs
        # Per key with streams registered: a number that grows with each change published.
        # A key registered anew starts above every number given out before (``_next``), so
        # a read begun before its streams went away is never taken for a newer one.
        self._generations: dict[UUID, int] = {}
        self._next = 1
        self._aliases: Callable[[UUID], Iterable[UUID]] | None = None
        self._alias_of: dict[UUID, UUID] = {}  # alias -> the watched key it stands for
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.closed = False  # the server is stopping: streams end instead of waiting

    def watch_aliases(self, aliases: Callable[[UUID], Iterable[UUID]]) -> None:
        """``aliases(key)``: other keys whose changes are changes of ``key`` too (a match's
        table talk, stored as an aggregate of its own), so what is published under them (by
        the change tail, which knows only the stored aggregate) wakes the streams of ``key``.
        Set before the first stream registers."""
        self._aliases = aliases

    @property
    def waiting(self) -> int:
        """Streams waiting for a change now."""
        return sum(len(waiters) for waiters in self._waiting.values())

    @property
    def watched(self) -> int:
        """Keys (matches, rooms) with streams registered now."""
        return len(self._waiting)

    def close(self) -> None:
        """Wake every stream, now and from now on (call on the event loop)."""
        self.closed = True
        for match_id in list(self._waiting):
            self._wake(match_id, CLOSED)

    def waiter(self, match_id: UUID) -> Waiter:
        """Register before reading, so a change between the read and the wait is not missed."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        waiting = self._waiting.get(match_id)
        if waiting is None:
            waiting = self._waiting[match_id] = set()
            self._generations[match_id] = self._issue()
            for alias in self._aliases(match_id) if self._aliases else ():
                self._alias_of[alias] = match_id
        waiter = Waiter(self, match_id, asyncio.Event(), waiting, self._generations[match_id])
        if self.closed:
            waiter._wake(CLOSED)
        waiting.add(waiter)
        return waiter

    def generation(self, match_id: UUID) -> int:
        """Grows with every change of ``match_id`` published while streams are registered for
        it: a read begun at generation g has seen every change published before g was reached."""
        return self._generations.get(match_id, self._next)

    def _issue(self) -> int:
        number = self._next
        self._next += 1
        return number

    def _forget(self, match_id: UUID, waiting: set) -> None:
        if self._waiting.get(match_id) is waiting:
            del self._waiting[match_id]
            self._generations.pop(match_id, None)
            for alias in self._aliases(match_id) if self._aliases else ():
                self._alias_of.pop(alias, None)

    def publish(self, match_id: UUID, cause: str = LOCAL) -> bool:
        """Wake the streams of ``match_id`` (or of the key it is an alias of); whether any
        was registered. Safe to call from any thread."""
        key = self._alias_of.get(match_id, match_id)
        loop = self._loop
        if loop is None or not self._waiting.get(key):
            return False  # nobody waits, so nobody is reading either (streams register first)
        self._generations[key] = self._issue()
        try:
            if threading.get_ident() == self._loop_thread:  # a command on the loop: no wake-up write needed
                loop.call_soon(self._wake, key, cause, key != match_id)
            else:
                loop.call_soon_threadsafe(self._wake, key, cause, key != match_id)
        except RuntimeError:
            return False  # the loop has closed: nobody is waiting
        return True

    def _wake(self, match_id: UUID, cause: str, through_alias: bool = False) -> None:
        for waiter in self._waiting.get(match_id, ()):
            waiter._wake(cause, through_alias)
