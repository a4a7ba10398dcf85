"""One store read for every WatchMatch stream of a match woken by the same change.

A move wakes each stream watching its match (the players, spectators); each would then ask
the store for the same new events, and the table talk, after the same version. Instead the
first asks and the others wait for its answer.

A stream may only take an answer whose read began after every change published before the
stream started waiting (``ChangeFeed.generation``): such a read has seen all of them, and
any change published later wakes the stream again. So sharing never makes a stream miss or
delay an event. Changes other processes stored are published by the change tail
(services/common/change_tail.py) once they are committed, so the same holds for them.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Hashable
from uuid import UUID

from services.common.changes import ChangeFeed, Waiter


class SharedReads:
    def __init__(self, changes: ChangeFeed) -> None:
        self._changes = changes
        # (watched key, what) -> (the key's generation when the read began, its answer)
        self._reading: dict[tuple[UUID, Hashable], tuple[int, asyncio.Future]] = {}

    @property
    def in_flight(self) -> int:
        return len(self._reading)

    async def read(self, waiter: Waiter, what: Hashable, fetch: Callable[[], Awaitable[Any]]) -> Any:
        """``fetch()``'s answer for ``what`` of the key ``waiter`` is registered for, shared
        with a read of the same begun at the waiter's generation or later."""
        key = (waiter.key, what)
        reading = self._reading.get(key)
        if reading is None or reading[0] < waiter.generation:
            reading = (self._changes.generation(waiter.key), asyncio.ensure_future(fetch()))
            self._reading[key] = reading
            reading[1].add_done_callback(lambda done: self._done(key, done))
        return await asyncio.shield(reading[1])  # a stream that goes away leaves the others their answer

    def _done(self, key: tuple[UUID, Hashable], done: asyncio.Future) -> None:
        if self._reading.get(key, (0, None))[1] is done:
            del self._reading[key]
        if not done.cancelled():
            done.exception()  # the askers got it; do not log it again as never retrieved
