"""The PostgreSQL store's one-round-trip append keeps eventsourcing's guarantees, on a real server."""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, StoredEvent

from services.common.postgres_store import OrderedInsertRecorder


class Ledger(Application):
    pass


@pytest.fixture
def ledger(fresh_postgres_env):
    app = Ledger(env=fresh_postgres_env)
    yield app
    app.close()


@pytest.fixture
def connect(fresh_postgres_env):
    env = fresh_postgres_env
    return lambda: psycopg.connect(dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"],
                                   port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                                   password=env["POSTGRES_PASSWORD"])


def stored(originator: uuid.UUID, version: int) -> StoredEvent:
    return StoredEvent(originator_id=originator, originator_version=version, topic="t", state=b"{}")


def test_the_configured_store_uses_the_one_round_trip_append(ledger):
    assert isinstance(ledger.recorder, OrderedInsertRecorder)


def test_append_returns_the_notification_ids_it_was_given_in_order(ledger):
    originator = uuid.uuid4()
    ids = ledger.recorder.insert_events([stored(originator, v) for v in (1, 2, 3)])
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert [n.id for n in ledger.recorder.select_notifications(start=None, limit=10)] == ids


def test_append_of_a_version_already_stored_is_a_conflict_and_stores_nothing(ledger):
    originator = uuid.uuid4()
    ledger.recorder.insert_events([stored(originator, 1)])
    with pytest.raises(IntegrityError):
        ledger.recorder.insert_events([stored(originator, 2), stored(originator, 1)])
    assert [e.originator_version for e in ledger.recorder.select_events(originator)] == [1]


def test_append_waits_for_the_events_table_lock_so_ids_commit_in_order(ledger, connect):
    """A ROW SHARE lock blocks EXCLUSIVE but not a plain INSERT: an append that waits on it
    proves the table lock is taken, so no later append can commit a lower notification id."""
    table = ledger.recorder.events_table_name
    with connect() as holder:
        holder.execute(f"LOCK TABLE {table} IN ROW SHARE MODE")
        done = threading.Event()
        appender = threading.Thread(target=lambda: (ledger.recorder.insert_events([stored(uuid.uuid4(), 1)]),
                                                    done.set()))
        appender.start()
        with connect() as observer:
            waiting = 0
            for _ in range(200):
                waiting = observer.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                                           (table,)).fetchone()[0]
                if waiting:
                    break
                time.sleep(0.05)
        assert waiting == 1 and not done.is_set()
        holder.commit()
    appender.join(timeout=30)
    assert done.is_set()
