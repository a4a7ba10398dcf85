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
meanwhile is read at once. The relay still reads every ``SAFETY_SECONDS`` when nothing woke
it, as a safety net that costs one query a second. An embedded store (SQLite, memory) has
no channel: ``listener_for`` gives None and the relay polls.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from services.common.logs import Warnings

log = logging.getLogger("domino.relay")
_warnings = Warnings(log)

SAFETY_SECONDS = 1.0  # longest an idle relay goes without reading the store while it listens
BACKOFF_SECONDS = (0.1, 5.0)  # first and longest wait before connecting again after a failure


class StoreListener:
    """LISTEN on ``channel`` through connections from ``connect`` until ``run`` is cancelled
    or ``stopping`` is set."""

    def __init__(self, connect: Callable[[], Awaitable[Any]], channel: str,
                 on_error: Callable[[], None] = lambda: None) -> None:
        self.connect = connect  # -> a new autocommitted psycopg.AsyncConnection
        self.channel = channel
        self.on_error = on_error
        self.listening = False
        self.notified = asyncio.Event()
        self.notifications = 0  # received since start (tests, and the curious)
        self.connections = 0  # LISTENs that succeeded: more than one means it reconnected

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

    async def run(self, stopping: asyncio.Event) -> None:
        from psycopg import sql

        backoff = BACKOFF_SECONDS[0]
        while not stopping.is_set():
            connection = None
            try:
                connection = await self.connect()
                await connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
                self.listening = True
                self.connections += 1
                self.notified.set()  # what was stored while not listening is read at once
                backoff = BACKOFF_SECONDS[0]
                while not stopping.is_set():  # wakes every second to see whether it should stop
                    async for _ in connection.notifies(timeout=1.0):
                        self.notifications += 1
                        self.notified.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - the store away: poll meanwhile, listen again soon
                self.on_error()
                _warnings.warn("listen", "the relay lost its LISTEN connection to the store; polling until it is "
                                         "back", error=str(error)[:300])
            finally:
                self.listening = False
                if connection is not None:
                    try:
                        await connection.close()
                    except Exception:  # noqa: BLE001 - it is gone either way
                        pass
            if not stopping.is_set():
                try:
                    await asyncio.wait_for(stopping.wait(), backoff)
                except asyncio.TimeoutError:
                    pass
                backoff = min(2 * backoff, BACKOFF_SECONDS[1])


def listener_for(recorder: Any, on_error: Callable[[], None] = lambda: None) -> StoreListener | None:
    """A listener on the recorder's notification channel if it is PostgreSQL's, else None."""
    channel = getattr(recorder, "channel_name", None)
    datastore = getattr(recorder, "datastore", None)
    kwargs = getattr(getattr(datastore, "pool", None), "kwargs", None)
    if not channel or not isinstance(kwargs, dict):
        return None
    params = {k: kwargs[k] for k in ("dbname", "host", "port", "user", "password") if k in kwargs}

    async def connect() -> Any:
        from services.common.postgres_store import QuietAsyncConnection

        return await QuietAsyncConnection.connect(autocommit=True, connect_timeout=2, **params)

    return StoreListener(connect, channel, on_error)
