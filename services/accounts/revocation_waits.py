"""ListRevokedSessions calls held until a session is revoked (``wait_seconds``).

Every match service, matchmaking and social process reads the revocation list. Asked once
a second each, that was a gRPC call a second per process, and a database read for each on
the account service, whether or not anything was revoked: the largest part of what an idle
match replica cost (docs/operations.md, "Capacity"). Now each reader holds one call, which
this answers when the newest cursor moves past the reader's, or empty when its wait ends.

One check of the newest cursor per account process every ``check_seconds`` while any call
waits, however many wait: a revocation through any account replica is answered within
about that. At most ``most`` calls wait at once; past that a call is answered at once, as
before (a reader then asks again a poll later), so waiting calls cost bounded memory.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

log = logging.getLogger("domino.accounts.revocations")

CHECK_SECONDS = 0.5
MOST_WAITING = 1000
LONGEST_WAIT_SECONDS = 30


class RevocationWaits:
    def __init__(self, newest: Callable[[], Awaitable[int]], check_seconds: float = CHECK_SECONDS,
                 most: int = MOST_WAITING) -> None:
        self.newest = newest  # the newest cursor given out (a read of the store)
        self.check_seconds = check_seconds
        self.most = most
        self.waiting = 0
        self.checks = 0
        self._seen: int | None = None
        self._moved = asyncio.Event()
        self._checker: asyncio.Task | None = None

    async def past(self, cursor: int, seconds: float) -> bool:
        """Wait at most ``seconds`` until a cursor newer than ``cursor`` is given out; whether
        one was (False: the wait ended, or too many wait already)."""
        if seconds <= 0 or self.waiting >= self.most:
            return False
        self.waiting += 1
        try:
            if self._checker is None or self._checker.done():
                self._checker = asyncio.create_task(self._check())
            loop = asyncio.get_running_loop()
            until = loop.time() + seconds
            while self._seen is None or self._seen <= cursor:
                left = until - loop.time()
                if left <= 0:
                    return False
                moved = self._moved
                try:
                    await asyncio.wait_for(moved.wait(), left)
                except asyncio.TimeoutError:
                    return False
            return True
        finally:
            self.waiting -= 1

    async def _check(self) -> None:
        """While calls wait: read the newest cursor, wake them all when it moved."""
        while self.waiting:
            try:
                newest = await self.newest()
                self.checks += 1
                if newest != self._seen:
                    self._seen = newest
                    moved, self._moved = self._moved, asyncio.Event()
                    moved.set()
            except Exception:  # noqa: BLE001 - the store away: the waiting calls end empty, readers ask again
                log.warning("cannot read the newest revocation; waiting ListRevokedSessions calls end empty",
                            exc_info=True)
            await asyncio.sleep(self.check_seconds)
