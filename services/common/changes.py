"""Wakes WatchMatch (and WatchRoom, WatchTicket) streams when what they watch changes.

Commands on this replica publish at once; changes made elsewhere (another replica, the
turn timer of another process) are caught by the stream's periodic re-read, so a waiter
only ever shortens the wait, it is never needed for correctness. On shutdown ``close``
wakes every stream for good, so streams end at once instead of holding the server's
drain for its whole grace period (clients reconnect to another replica, or after the
restart, from the version they have).
"""

from __future__ import annotations

import asyncio
from uuid import UUID


class Waiter:
    """One stream's registration for the next change of a key: ``with feed.waiter(key) as
    waiter: ...read...; await waiter.wait(timeout)``. Leaving the block (a stream that ends,
    fails or is cancelled while it reads) unregisters it, so ended streams leave nothing
    behind."""

    def __init__(self, feed: "ChangeFeed", key: UUID, event: asyncio.Event, waiting: set,
                 generation: int = 0) -> None:
        self._feed = feed
        self.key = key
        self._event = event
        self._waiting = waiting
        self.generation = generation  # where the key's changes stood when it registered (``ChangeFeed.generation``)

    def __enter__(self) -> "Waiter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._waiting.discard(self._event)
        if not self._waiting:
            self._feed._forget(self.key, self._waiting)

    async def wait(self, timeout: float) -> bool:
        """True when a change woke it, False when the timeout did (time for a re-read that
        catches what other replicas changed)."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False


class ChangeFeed:
    def __init__(self) -> None:
        self._waiting: dict[UUID, set[asyncio.Event]] = {}  # keys with streams registered, and theirs
        # Per key with streams registered: a number that grows with each change published.
        # A key registered anew starts above every number given out before (``_next``), so
        # a read begun before its streams went away is never taken for a newer one.
        self._generations: dict[UUID, int] = {}
        self._next = 1
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False  # the server is stopping: streams end instead of waiting

    @property
    def waiting(self) -> int:
        """Streams waiting for a change now."""
        return sum(len(events) for events in self._waiting.values())

    def close(self) -> None:
        """Wake every stream, now and from now on (call on the event loop)."""
        self.closed = True
        for match_id in list(self._waiting):
            self._wake(match_id)

    def waiter(self, match_id: UUID) -> Waiter:
        """Register before reading, so a change between the read and the wait is not missed."""
        self._loop = asyncio.get_running_loop()
        event = asyncio.Event()
        if self.closed:
            event.set()
        waiting = self._waiting.get(match_id)
        if waiting is None:
            waiting = self._waiting[match_id] = set()
            self._generations[match_id] = self._issue()
        waiting.add(event)
        return Waiter(self, match_id, event, waiting, self._generations[match_id])

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

    def publish(self, match_id: UUID) -> None:
        """Safe to call from any thread."""
        loop = self._loop
        if loop is None or not self._waiting.get(match_id):
            return  # nobody waits, so nobody is reading either (streams register first)
        self._generations[match_id] = self._issue()
        try:
            loop.call_soon_threadsafe(self._wake, match_id)
        except RuntimeError:
            pass  # the loop has closed: nobody is waiting

    def _wake(self, match_id: UUID) -> None:
        for event in self._waiting.get(match_id, ()):
            event.set()
