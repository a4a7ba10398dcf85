"""Wakes the relay when PostgreSQL has stored events, so an idle relay stops asking the store
twenty times a second whether anything is new.

Each append NOTIFYs the events table's channel as its transaction commits
(services/common/postgres_store.py); one connection per relay LISTENs on it and sets a
flag. The payload is not read: a notification only says "read again". The relay lowers the
flag before each read (``clear``), so a notification that arrives while it reads is not
lost: its next ``wait`` returns at once.

A notification can be lost only with the connection, and while the listener is not
listening (``listening`` false: before the first LISTEN, while reconnecting) the relay
polls as before; after every (re)connection the flag is raised, so whatever was stored
meanwhile is read at once. The relay still reads every ``SAFETY_SECONDS`` (10) when nothing
woke it, a safety net for a notification lost on a connection that stayed up. An embedded
store (SQLite, memory) has no channel: ``listener_for`` gives None and the relay polls.

The connection is the change tail's ``Listener`` (services/common/change_tail.py); what
stays here is the flag. The tail's bookkeeping (payloads, a position, catch-up reads,
skipping its own process's appends) is of no use to the relay, which reads the store itself
and must wake for its own process's appends too.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from services.common.change_tail import Listener, listens
from services.common.logs import Warnings

log = logging.getLogger("domino.relay")
_warnings = Warnings(log)

SAFETY_SECONDS = 10.0  # longest an idle relay goes without reading the store while it listens


class StoreListener(Listener):
    """LISTEN on ``channel`` through connections from ``connect`` until ``run`` is cancelled
    or ``stopping`` is set, raising ``notified`` at each notification and (re)connection."""

    def __init__(self, connect: Callable[[], Awaitable[Any]], channel: str,
                 on_error: Callable[[], None] = lambda: None) -> None:
        # quiet_seconds: with nothing told, how often it looks whether it should stop (the
        # relay cancels it when it stops, so seldom)
        super().__init__(connect, channel, self._notified, connected=self._notified, lost=self._lost,
                         quiet_seconds=SAFETY_SECONDS)
        self.on_error = on_error
        self.notified = asyncio.Event()

    def clear(self) -> None:
        """Called before each read of the store: what is stored from now on wakes ``wait``."""
        self.notified.clear()

    async def wait(self, timeout: float) -> bool:
        """True when a notification (or a reconnection) came since ``clear``, False after
        ``timeout``."""
        try:
            await asyncio.wait_for(self.notified.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def _notified(self, *_: Any) -> None:
        self.notified.set()

    async def _lost(self, error: Exception) -> None:  # the store away: poll meanwhile, listen again soon
        self.on_error()
        _warnings.warn("listen", "the relay lost its LISTEN connection to the store; polling until it is "
                                 "back", error=str(error)[:300])


def listener_for(recorder: Any, on_error: Callable[[], None] = lambda: None) -> StoreListener | None:
    """A listener on the recorder's notification channel if it is PostgreSQL's, else None."""
    if not listens(recorder):
        return None
    return StoreListener(recorder.connect_async, recorder.channel_name, on_error)
