"""The production store: eventsourcing's PostgreSQL, with each append in one round trip.

eventsourcing keeps the notification log gap-free in commit order (the relay and the turn
timers follow it by position) by taking an EXCLUSIVE lock on the events table for every
append. Its default path takes that lock in a client-side transaction: the lock is held
while the INSERT's result travels back to Python and the COMMIT travels out again, so
under load every append in the cluster waits on another process's thread scheduling.
Here the lock, the NOTIFY and the INSERT run inside one server-side function called as a
single autocommitted statement: the same ordering guarantee, held only for as long as the
database itself needs.

Use it with `PERSISTENCE_MODULE=services.common.postgres_store` and eventsourcing's own
`POSTGRES_*` variables.
"""

from __future__ import annotations

from typing import Any, Sequence

from eventsourcing import postgres  # a module, not its names: eventsourcing wants one factory class here
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier

# Serialises concurrent replicas creating the function: CREATE OR REPLACE FUNCTION is not
# safe to run twice at once.
_CREATE_LOCK_KEY = 0x646F6D696E6F  # "domino"


class OrderedInsertRecorder(postgres.PostgresApplicationRecorder):
    def __init__(self, datastore: postgres.PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        schema = Identifier(self.datastore.schema)
        function = Identifier(f"{self.events_table_name}_append")
        table = Identifier(self.events_table_name)
        self.create_append_function = SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(events {schema}.{event}[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
            "SELECT originator_id, originator_version, topic, state FROM unnest(events) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(schema=schema, function=function, event=Identifier(self.stored_event_type_name), table=table,
                 lock_timeout=self.datastore.lock_timeout, channel=Identifier(self.channel_name))
        self.call_append_function = SQL("SELECT * FROM {schema}.{function}((%s))").format(schema=schema,
                                                                                          function=function)
        self.append_column = f"{self.events_table_name}_append"

    def create_table(self) -> None:
        super().create_table()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(SQL("SELECT pg_advisory_xact_lock({0})").format(_CREATE_LOCK_KEY))
            curs.execute(self.create_append_function, prepare=False)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        rows = [self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
                for e in stored_events]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.call_append_function, (rows,), prepare=True)
            return [row[self.append_column] for row in curs.fetchall()]


class Factory(postgres.PostgresFactory):
    application_recorder_class = OrderedInsertRecorder
