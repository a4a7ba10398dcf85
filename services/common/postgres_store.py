"""The production store: eventsourcing's PostgreSQL, with appends committed in groups.

eventsourcing keeps the notification log gap-free in commit order (the relay and the turn
timers follow it by position) by taking an EXCLUSIVE lock on the events table for every
append and holding it until the commit. Its default path takes that lock in a client-side
transaction, so the lock is held while results and the COMMIT travel between Python and the
server; and because the commit's WAL flush happens under the lock, appends can never share
a flush. Under load every append in the cluster queues behind one disk sync at a time.

Here one server-side function takes the lock and inserts the events of every append
waiting in this process, each append in its own subtransaction so that a version conflict
refuses only that append, and NOTIFYs the group's notification ids and changed aggregates
(the match service's change tail LISTENs for them: services/common/change_tail.py). It
runs as one autocommitted statement: the same ordering guarantee, one round trip and one WAL flush for the whole group. Threads that
append while a group is in flight wait for it and form the next group (leader/follower),
so a lone append is never delayed. Callers on an event loop (the match service's gRPC
handlers) use `append_async`: the same function and grouping on an asyncio connection, so
a command needs no worker thread at all.

Use it with `PERSISTENCE_MODULE=services.common.postgres_store` and eventsourcing's own
`POSTGRES_*` variables.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from typing import Any, Callable, Sequence

from eventsourcing import postgres  # a module, not its names: eventsourcing wants one factory class here
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, PersistenceError, StoredEvent
from eventsourcing.utils import retry
import psycopg
from psycopg.sql import SQL, Identifier, Literal

CONNECT_SECONDS = 2  # longest wait for a connection (the pool's, and a new one's)
PAYLOAD_LIMIT = 7000  # bytes of aggregate ids a notification carries (PostgreSQL allows 8000)
READ_ATTEMPTS = 2  # the library's reads try ten times; a caller that retries (a client, the relay) does it better

# Serialises replicas creating the tables and the function.
_CREATE_LOCK_KEY = 0x646F6D696E6F  # "domino"


class _Append:
    __slots__ = ("events", "ids", "error", "finished", "leads", "wake")

    def __init__(self, events: Sequence[StoredEvent]) -> None:
        self.events = events
        self.ids: list[int] = []
        self.error: BaseException | None = None
        self.finished = False
        self.leads = False  # this append's thread commits the next group
        self.wake = threading.Event()

    def finish(self, error: BaseException | None = None) -> None:
        self.error, self.finished = error, True
        self.wake.set()


class QuietAsyncConnection(psycopg.AsyncConnection):
    """psycopg's AsyncConnection, waiting for notifications without waking every 0.1 s.

    psycopg wakes a waiting connection every 0.1 s (to let Ctrl-C through a blocking wait),
    even in ``notifies(timeout=...)``: ten wake-ups a second, each re-arming the socket's
    reader, cost an idle listener about 2 ms of CPU a second. An asyncio service needs no such
    check: a wait with a timeout wakes at its timeout, or when the socket is readable. A wait
    without one (a query) is psycopg's own."""

    async def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None:
            interval = max(interval, timeout)
        return await super().wait(gen, interval, timeout)


class GroupCommitRecorder(postgres.PostgresApplicationRecorder):
    def __init__(self, datastore: postgres.PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # the library's own insert function (POSTGRES_ENABLE_DB_FUNCTIONS) is never called here
        del self.sql_create_statements[self.create_insert_function_statement_index]
        schema = Identifier(self.datastore.schema)
        function = Identifier(f"{self.events_table_name}_append_groups")
        table = Identifier(self.events_table_name)
        # One JSON text parameter: psycopg dumps it in C, where five typed arrays cost it
        # more Python than the rest of the append (about 0.2 ms an append).
        self.create_append_function = SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(appends text) "
            "RETURNS TABLE (append_group int, appended_id bigint) LANGUAGE plpgsql AS $BODY$ "
            "DECLARE g int; inserted bigint[]; doc jsonb := appends::jsonb; first_id bigint; last_id bigint; "
            "stored int[] := '{{}}'; changed text; "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "FOR g IN SELECT DISTINCT (e->>0)::int FROM jsonb_array_elements(doc) AS e ORDER BY 1 LOOP "
            "  BEGIN "
            "    WITH ins AS ("
            "      INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
            "      SELECT (x.e->>1)::{id_type}, (x.e->>2)::bigint, x.e->>3, decode(x.e->>4, 'base64') "
            "      FROM jsonb_array_elements(doc) WITH ORDINALITY AS x(e, n) WHERE (x.e->>0)::int = g ORDER BY x.n "
            "      RETURNING {table}.notification_id) "
            "    SELECT array_agg(ins.notification_id ORDER BY ins.notification_id) INTO inserted FROM ins; "
            "    first_id := coalesce(first_id, inserted[1]); "
            "    last_id := inserted[array_upper(inserted, 1)]; "
            "    stored := stored || g; "
            "    RETURN QUERY SELECT g, unnest(inserted); "
            "  EXCEPTION WHEN unique_violation THEN "
            "    RETURN QUERY SELECT g, NULL::bigint; "
            "  END; "
            "END LOOP; "
            "IF last_id IS NOT NULL THEN "
            "  SELECT string_agg(DISTINCT x.e->>1, ',') INTO changed FROM jsonb_array_elements(doc) AS x(e) "
            "  WHERE (x.e->>0)::int = ANY(stored); "
            "  PERFORM pg_notify({channel_name}, first_id || ' ' || last_id "
            "    || CASE WHEN length(changed) > {payload_limit} THEN '' ELSE ' ' || changed END); "
            "END IF; "
            "END; $BODY$"
        ).format(schema=schema, function=function, table=table, lock_timeout=self.datastore.lock_timeout,
                 channel_name=Literal(self.channel_name), payload_limit=SQL(str(PAYLOAD_LIMIT)),
                 id_type=SQL(self.datastore.originator_id_type))
        self.call_append_function = SQL("SELECT * FROM {schema}.{function}(%s)").format(schema=schema,
                                                                                         function=function)
        self._group_lock = threading.Lock()
        self._async_waiting: list[tuple[Sequence[StoredEvent], asyncio.Future[list[int]]]] = []
        self._async_committer: asyncio.Task[None] | None = None
        self._async_connection: psycopg.AsyncConnection | None = None
        self._waiting: list[_Append] = []
        self._in_flight = False
        # Told of the aggregates an asynchronous append stored after its caller stopped
        # waiting (its deadline passed): nobody else will say they changed.
        self.on_unclaimed: Callable[[set[Any]], Any] | None = None

    @retry((InterfaceError, OperationalError), max_attempts=READ_ATTEMPTS, wait=0.2)
    def select_events(self, *args: Any, **kwargs: Any) -> Any:
        return _unretried(postgres.PostgresAggregateRecorder.select_events)(self, *args, **kwargs)

    @retry((InterfaceError, OperationalError), max_attempts=READ_ATTEMPTS, wait=0.2)
    def select_notifications(self, *args: Any, **kwargs: Any) -> Any:
        return _unretried(postgres.PostgresApplicationRecorder.select_notifications)(self, *args, **kwargs)

    @retry((InterfaceError, OperationalError), max_attempts=READ_ATTEMPTS, wait=0.2)
    def max_notification_id(self) -> int | None:
        return _unretried(postgres.PostgresApplicationRecorder.max_notification_id)(self)

    def create_table(self) -> None:
        """Under a lock: replicas (or worker processes) starting together would otherwise race
        in CREATE ... IF NOT EXISTS and CREATE OR REPLACE, which PostgreSQL does not make safe."""
        with self.datastore.get_connection() as conn:
            conn.execute(SQL("SELECT pg_advisory_lock({0})").format(_CREATE_LOCK_KEY))
            try:
                super().create_table()
                with self.datastore.transaction(commit=True) as curs:
                    curs.execute(self.create_append_function, prepare=False)
            finally:
                conn.execute(SQL("SELECT pg_advisory_unlock({0})").format(_CREATE_LOCK_KEY))

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        mine = _Append(stored_events)
        with self._group_lock:
            self._waiting.append(mine)
            if not self._in_flight:
                self._in_flight = mine.leads = True
        if not mine.leads:
            mine.wake.wait()  # until its group is done, or it is handed the lead
        if not mine.finished:
            self._lead()
        if mine.error is not None:
            raise mine.error
        return mine.ids

    def _lead(self) -> None:
        """Commit everything waiting (the leader's own append included), then hand the lead
        to the first append that arrived meanwhile: each thread wakes once and no leader
        is kept serving others."""
        with self._group_lock:
            group, self._waiting = self._waiting, []
        try:
            self._commit_group(group)
        finally:
            for append in group:
                if not append.finished:  # interrupted: never leave a caller without an answer
                    append.finish(PersistenceError("the append was interrupted"))
            with self._group_lock:
                if self._waiting:
                    self._waiting[0].leads = True
                    self._waiting[0].wake.set()
                else:
                    self._in_flight = False

    def _commit_group(self, group: list[_Append]) -> None:
        try:
            rows = self._call_append(group)
        except Exception as error:
            for append in group:
                append.finish(error)
            return
        for append, outcome in zip(group, _outcomes(len(group), rows)):
            if isinstance(outcome, IntegrityError):
                append.finish(outcome)
            else:
                append.ids = outcome
                append.finish()

    @retry((InterfaceError, OperationalError), max_attempts=3, wait=0.2)
    def _call_append(self, group: list[_Append]) -> list[tuple[int, int | None]]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.call_append_function, (_document([a.events for a in group]),), prepare=True)
            return [(row["append_group"], row["appended_id"]) for row in curs.fetchall()]

    # ---- the same grouped append for callers on an event loop ----------------------------

    async def append_async(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        """No thread: one task commits whatever has gathered while the previous group was in
        flight, on its own connection."""
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self._async_waiting.append((stored_events, future))
        if self._async_committer is None or self._async_committer.done():
            self._async_committer = asyncio.create_task(self._commit_async())
        return await future

    async def _commit_async(self) -> None:
        while self._async_waiting:
            group, self._async_waiting = self._async_waiting, []
            try:
                rows = await self._call_append_async([events for events, _ in group])
            except Exception as error:  # noqa: BLE001 - every caller in the group gets it
                outcomes: list = [PersistenceError(f"the append failed: {error}")] * len(group)
            else:
                outcomes = _outcomes(len(group), rows)
            for (events, future), outcome in zip(group, outcomes):
                if future.done():  # its caller gave up (the append may still have been stored)
                    if self.on_unclaimed is not None and not isinstance(outcome, BaseException):
                        self.on_unclaimed({e.originator_id for e in events})
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)

    async def _call_append_async(self, groups: list[Sequence[StoredEvent]]) -> list[tuple[int, int | None]]:
        if self._async_connection is None or self._async_connection.closed:
            self._async_connection = await self.connect_async()
        cursor = await self._async_connection.execute(self.call_append_function, (_document(groups),), prepare=True)
        return [(index, notification_id) for index, notification_id in await cursor.fetchall()]

    async def connect_async(self) -> psycopg.AsyncConnection:
        """A new autocommitted asyncio connection with the datastore's settings."""
        params = self.datastore.pool.kwargs
        assert isinstance(params, dict)  # the datastore's pool is built with its connection settings
        return await QuietAsyncConnection.connect(
            autocommit=True, connect_timeout=CONNECT_SECONDS,
            **{k: params[k] for k in ("dbname", "host", "port", "user", "password")})

    @property
    def append_backend_pid(self) -> int | None:
        """The server process of this recorder's asynchronous appends (a notification it
        sent is of this process's own appends); None while it has no connection."""
        connection = self._async_connection
        return None if connection is None or connection.closed else connection.info.backend_pid

    async def aclose(self) -> None:
        if self._async_connection is not None:
            await self._async_connection.close()


def _unretried(method: Any) -> Any:
    """The library's method without its own retry decorator (functools.wraps keeps it)."""
    return getattr(method, "__wrapped__", method)


def _document(groups: Sequence[Sequence[StoredEvent]]) -> str:
    """The appends as the append function's one JSON parameter: [group, id, version, topic, state]."""
    return json.dumps([[index, str(e.originator_id), e.originator_version, e.topic,
                        base64.b64encode(e.state).decode("ascii")]
                       for index, events in enumerate(groups) for e in events])


def _outcomes(count: int, rows: Sequence[tuple[int, int | None]]) -> list[list[int] | IntegrityError]:
    """Per group: its notification ids, or the conflict that refused it."""
    ids: list[list[int]] = [[] for _ in range(count)]
    refused: set[int] = set()
    for index, notification_id in rows:
        if notification_id is None:
            refused.add(index)
        else:
            ids[index].append(notification_id)
    return [IntegrityError("an event with one of these versions is already stored (another writer got there "
                           "first)") if index in refused else ids[index] for index in range(count)]


class Factory(postgres.PostgresFactory):
    application_recorder_class = GroupCommitRecorder

    def __init__(self, env: Any) -> None:
        # The library waits 30 s for a pooled connection and retries reads ten times: with
        # PostgreSQL down a command would hang for minutes. Two seconds, unless configured.
        if env is not None:
            env.setdefault(self.POSTGRES_CONNECT_TIMEOUT, str(CONNECT_SECONDS))
        super().__init__(env)
