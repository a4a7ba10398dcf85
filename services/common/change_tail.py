"""Tells this process's ChangeFeed of the changes other processes stored, so a WatchMatch
stream waits for a wake alone and never re-reads the store on a timer.

A change made through this process (a command, the turn timer) is published by its caller
the moment it is stored. What another replica or worker stored reaches the streams here:

- On PostgreSQL (``ListeningTail``) one connection per process LISTENs on the events
  table's channel. The append function notifies once per committed group, with the group's
  first and last notification ids and the ids of the aggregates it changed
  (services/common/postgres_store.py); the tail publishes those that streams here watch.
  Notification ids are gap-free in commit order, so the tail knows it has missed nothing
  as long as each group begins where the last ended. When one does not (a notification
  lost, a group refused whole, a payload too long to carry its ids), and after every
  (re)connection, it reads what changed since the last id it accounted for: one query,
  whatever the number of streams. Its own appends' notifications (their sender is its
  append connection) are skipped: their callers published them already.
- A rare safety net: after ``safety_seconds`` with no notification at all, the same
  catch-up read, one per process, covering a notification lost with nothing after it
  (while notifications flow, the next one's gap reveals a lost one).
- On an embedded store (SQLite, memory; ``PollingTail``) there is nothing to listen to:
  every ``poll_seconds`` one query asks for the newest notification id, and only when it
  moved are the new notifications read. Those this process stored itself (the store
  reports them, ``OwnWrites``) are skipped. With one worker that is one cheap query five
  times a second per process, and worker processes sharing one SQLite file see each other.

Nothing here is per stream: however many streams are open, the tail's reads are per
process, and a stream wakes only when its match changed.

The LISTEN connection itself (``Listener``: connect, LISTEN, hand on what arrives, connect
again with backoff) also wakes the relay (services/match/store_listener.py). Only that is
shared: the relay reads no payload and no position, it needs a flag that says "read again",
raised by its own process's appends too, for as long as its run lasts; the tail lives from a
server's first stream to its end and reads the store itself when a notification is missing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, Iterable
from uuid import UUID

from .changes import PUSH, SAFETY, ChangeFeed
from .logs import Warnings

log = logging.getLogger("domino.change_tail")
_warnings = Warnings(log)

READY_SECONDS = 2.0  # longest a new stream waits for the tail to learn where the store stands
POLL_SECONDS = 0.2  # an embedded store's tail asks this often whether anything was stored
BACKOFF_SECONDS = (0.1, 5.0)  # first and longest wait before trying again after a failure
BATCH = 5000  # notifications read at a time when catching up
OWN_WRITES_KEPT = 20_000  # ids an embedded store reported that no tail has taken yet


def _uuid(value: Any) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))


async def _nothing(*_: Any) -> None:
    pass


class Listener:
    """One LISTEN connection on ``channel``, kept open until ``run`` is cancelled or
    ``stopping`` is set: a connection lost is made again, backing off. Each batch of
    notifications goes to ``heard`` as it arrives, each ``quiet_seconds`` without one to
    ``quiet``; ``connected`` runs after every LISTEN, since what was stored while it did not
    listen was told to nobody; ``lost`` is given what broke it."""

    def __init__(self, connect: Callable[[], Awaitable[Any]], channel: str,
                 heard: Callable[[list], Awaitable[Any]], *, connected: Callable[[], Awaitable[Any]] = _nothing,
                 lost: Callable[[Exception], Awaitable[Any]] = _nothing, quiet: Callable[[], Awaitable[Any]] = _nothing,
                 quiet_seconds: float = 1.0) -> None:
        self.connect = connect  # -> a new autocommitted psycopg.AsyncConnection
        self.channel = channel
        self.heard, self.connected, self.lost, self.quiet = heard, connected, lost, quiet
        self.quiet_seconds = quiet_seconds
        self.connection: Any = None  # the LISTEN connection, while there is one
        self.listening = False
        self.connections = 0  # LISTENs that succeeded: more than one means it reconnected
        self.notifications = 0  # received since start (tests, and the curious)

    async def run(self, stopping: asyncio.Event | None = None) -> None:
        from psycopg.sql import SQL, Identifier

        listen = SQL("LISTEN {0}").format(Identifier(self.channel))
        delay = BACKOFF_SECONDS[0]
        while stopping is None or not stopping.is_set():
            try:
                self.connection = await self.connect()
                await self.connection.execute(listen)
                self.listening = True
                self.connections += 1
                await self.connected()
                delay = BACKOFF_SECONDS[0]
                await self._listening(stopping)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - the connection broke: listen again
                await self.lost(error)
            finally:
                self.listening = False
                connection, self.connection = self.connection, None
                if connection is not None:
                    try:
                        await connection.close()
                    except Exception:  # noqa: BLE001 - it is going away anyway
                        pass
            if stopping is None:
                await asyncio.sleep(delay)
            else:
                try:
                    await asyncio.wait_for(stopping.wait(), delay)
                except asyncio.TimeoutError:
                    pass
            delay = min(delay * 2, BACKOFF_SECONDS[1])

    async def _listening(self, stopping: asyncio.Event | None) -> None:
        loop = asyncio.get_running_loop()
        quiet_at = loop.time() + self.quiet_seconds
        while stopping is None or not stopping.is_set():
            remaining = quiet_at - loop.time()
            if remaining <= 0:
                await self.quiet()
                quiet_at = loop.time() + self.quiet_seconds
                continue
            notes = [note async for note in self.connection.notifies(timeout=remaining, stop_after=1)]
            if notes:
                self.notifications += len(notes)
                await self.heard(notes)
                quiet_at = loop.time() + self.quiet_seconds


def listens(recorder: Any) -> bool:
    """Whether the store can LISTEN (PostgreSQL): else its followers poll it."""
    return hasattr(recorder, "connect_async") and hasattr(recorder, "channel_name")


class OwnWrites:
    """The notification ids this process stored (an embedded store reports them): their
    callers published them to the feed, so the polling tail skips them."""

    def __init__(self) -> None:
        self._ids: set[int] = set()

    def note(self, ids: Iterable[int]) -> None:
        if len(self._ids) > OWN_WRITES_KEPT:
            self._ids.clear()  # no tail is taking them: at worst a change is published twice
        self._ids.update(ids)

    def take(self, notification_id: int) -> bool:
        """Whether this process stored it (once: it is forgotten)."""
        try:
            self._ids.remove(notification_id)
            return True
        except KeyError:
            return False


class ChangeTail:
    """Follows the store from the first stream on (``started``), until ``aclose`` or the
    awaitable given to ``stop_with`` finishes."""

    def __init__(self, recorder: Any, changes: ChangeFeed, safety_seconds: float = 30.0,
                 on_read: Callable[[str], None] = lambda why: None,
                 on_error: Callable[[], None] = lambda: None) -> None:
        self.recorder = recorder
        self.changes = changes
        self.safety_seconds = safety_seconds
        self.on_read = on_read  # a read of what changed, by why: connect, gap, safety, poll
        self.on_error = on_error
        self.position: int | None = None  # every change up to this notification id is accounted for
        self.reads = 0
        self.errors = 0
        # Raised by anything stored, this process's appends included: the turn timer follows
        # the store when it is, not on a clock (services/match/timers.py); it lowers it.
        self.stored = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._stop_with: Callable[[], Awaitable[Any]] | None = None

    def stop_with(self, ended: Callable[[], Awaitable[Any]]) -> None:
        """Stop following when ``ended()`` finishes (a server's ``wait_for_termination``)."""
        self._stop_with = ended

    async def started(self, wait: float = READY_SECONDS) -> None:
        """Start following (once) and wait, at most ``wait`` seconds, until the tail knows
        where the store stands: a stream that reads after this misses no later change."""
        if self._task is None:
            self._task = asyncio.create_task(self._main(), name=f"{type(self).__name__}")
        if not self._ready.is_set():
            try:
                await asyncio.wait_for(self._ready.wait(), wait)
            except asyncio.TimeoutError:
                pass  # the store is away: the stream's own read says so

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    async def _main(self) -> None:
        work = asyncio.ensure_future(self._run())
        if self._stop_with is None:
            await work
            return
        ended = asyncio.ensure_future(self._stop_with())
        try:
            await asyncio.wait({work, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (work, ended):
                task.cancel()
            await asyncio.gather(work, ended, return_exceptions=True)

    async def _run(self) -> None:
        delay = BACKOFF_SECONDS[0]
        while self.position is None:
            try:
                self.position = await self._newest()
            except Exception as error:  # noqa: BLE001 - the store is away: try again
                self._failed("start", error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_SECONDS[1])
        self._ready.set()
        await self._follow()

    async def _newest(self) -> int:
        """The newest notification id in the store now."""
        return await asyncio.to_thread(lambda: self.recorder.max_notification_id() or 0)

    async def _follow(self) -> None:
        raise NotImplementedError

    def _publish(self, changed: Iterable[UUID], cause: str = PUSH) -> int:
        """Wake the streams of the changed matches this process watches; how many had some."""
        return sum(self.changes.publish(key, cause) for key in changed)

    def _read(self, why: str) -> None:
        self.reads += 1
        self.on_read(why)

    def _failed(self, what: str, error: BaseException) -> None:
        self.errors += 1
        self.on_error()
        _warnings.warn(f"tail-{what}", "the change tail failed; streams learn of changes made elsewhere "
                       "once it is back", error=(str(error) or type(error).__name__)[:300], what=what)


class PollingTail(ChangeTail):
    """An embedded store's tail: one query every ``poll_seconds`` per process."""

    def __init__(self, recorder: Any, changes: ChangeFeed, own: OwnWrites | None = None,
                 poll_seconds: float = POLL_SECONDS, **kwargs: Any) -> None:
        super().__init__(recorder, changes, **kwargs)
        self.own = own or OwnWrites()
        self.poll_seconds = poll_seconds

    async def _newest(self) -> int:
        return self.recorder.max_notification_id() or 0  # embedded: microseconds, on the loop

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.poll_seconds)
            try:
                self.poll()
            except Exception as error:  # noqa: BLE001 - a failed pass is tried again at the next
                self._failed("poll", error)

    def poll(self) -> int:
        """Publish what other processes stored since the last pass; how many matches woke."""
        assert self.position is not None
        newest = self.recorder.max_notification_id() or 0
        if newest <= self.position:
            return 0
        self.stored.set()
        self._read("poll")
        changed: set[UUID] = set()
        while self.position < newest:
            notes = self.recorder.select_notifications(self.position, BATCH, stop=newest, inclusive_of_start=False)
            if not notes:
                break
            for note in notes:
                if not self.own.take(note.id):
                    changed.add(_uuid(note.originator_id))
            self.position = notes[-1].id
        self.position = newest
        return self._publish(changed)


class ListeningTail(ChangeTail):
    """PostgreSQL's tail: LISTEN on one connection of its own (a ``Listener``), with the
    catch-up read after each (re)connection and after ``safety_seconds`` of silence."""

    def __init__(self, recorder: Any, changes: ChangeFeed, **kwargs: Any) -> None:
        super().__init__(recorder, changes, **kwargs)
        from psycopg.sql import SQL, Identifier

        # Looked up at each call, not bound here: a test stands in for them on a built tail.
        self.listener = Listener(lambda: self.recorder.connect_async(), recorder.channel_name,
                                 lambda notes: self.take(notes),
                                 connected=self._connected, lost=self._lost,
                                 quiet=lambda: self.catch_up("safety"), quiet_seconds=self.safety_seconds)
        self._newest_id = SQL("SELECT max(notification_id) FROM {0}.{1}").format(
            Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name))
        self._changed_after = SQL(
            "SELECT notification_id, originator_id FROM {0}.{1} WHERE notification_id > %s "
            "ORDER BY notification_id LIMIT %s").format(Identifier(recorder.datastore.schema),
                                                        Identifier(recorder.events_table_name))
        # An append that committed after its caller stopped waiting is published by nobody else.
        recorder.on_unclaimed = lambda ids: self._publish(ids)

    @property
    def connection(self) -> Any:
        """The LISTEN connection, while there is one."""
        return self.listener.connection

    @property
    def notifications(self) -> int:
        return self.listener.notifications

    async def _run(self) -> None:
        """Ready once it listens and knows the newest id: a stream that reads after that is
        told of every later change by a notification, or by the catch-up after a reconnect."""
        await self.listener.run()

    async def _connected(self) -> None:
        if self.position is None:
            cursor = await self.connection.execute(self._newest_id)
            row = await cursor.fetchone()
            self.position = (row[0] if row else None) or 0
            self._ready.set()
        else:
            await self.catch_up("connect")  # what was stored while it was away

    async def _lost(self, error: Exception) -> None:
        self._failed("listen", error)
        if self.position is None:  # streams need not wait for it: the catch-up tells them
            try:
                self.position = await self._newest()
                self._ready.set()
            except Exception as failure:  # noqa: BLE001 - the store is away
                self._failed("start", failure)

    async def take(self, notes: list) -> int:
        """Publish what the notifications name; read the store instead when one does not
        begin where the last ended. How many matches woke."""
        own = self.recorder.append_backend_pid
        changed: set[UUID] = set()
        gap = False
        self.stored.set()
        for note in notes:
            parsed = parse_payload(note.payload)
            if parsed is None:
                gap = True  # no ids to go by (too many, or a writer that sends none)
                continue
            first, last, ids = parsed
            assert self.position is not None
            if last <= self.position:
                continue  # a catch-up read already saw it
            if gap or first != self.position + 1:
                gap = True  # something in between was not told: the catch-up reads it
                continue
            self.position = last
            if note.pid != own:
                changed.update(ids)
        woke = self._publish(changed)
        if gap:
            woke += await self.catch_up("gap")
        return woke

    async def catch_up(self, why: str) -> int:
        """Publish everything stored since the last notification id accounted for."""
        self._read(why)
        assert self.position is not None
        changed: set[UUID] = set()
        while True:
            cursor = await self.connection.execute(self._changed_after, (self.position, BATCH), prepare=True)
            rows = await cursor.fetchall()
            for notification_id, originator_id in rows:
                changed.add(_uuid(originator_id))
                self.position = notification_id
            if rows:
                self.stored.set()
            if len(rows) < BATCH:
                break
        return self._publish(changed, SAFETY if why == "safety" else PUSH)


def parse_payload(payload: str) -> tuple[int, int, list[UUID]] | None:
    """``"<first id> <last id> <uuid>,<uuid>..."``; None for any other payload."""
    parts = payload.split(" ", 2)
    if len(parts) != 3:
        return None
    try:
        return int(parts[0]), int(parts[1]), [UUID(i) for i in parts[2].split(",") if i]
    except ValueError:
        return None


def tail_for(recorder: Any, changes: ChangeFeed, own: OwnWrites | None = None, **kwargs: Any) -> ChangeTail:
    """A listening tail for a store that can LISTEN (PostgreSQL), else a polling one."""
    if listens(recorder):
        return ListeningTail(recorder, changes, **kwargs)
    return PollingTail(recorder, changes, own, **kwargs)
