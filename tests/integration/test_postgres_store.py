"""The PostgreSQL store's grouped appends keep eventsourcing's guarantees, on a real server."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import psycopg
import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, StoredEvent

from services.common.postgres_store import GroupCommitRecorder


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


def test_the_configured_store_uses_the_grouped_append(ledger):
    assert isinstance(ledger.recorder, GroupCommitRecorder)


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
            for _ in range(600):
                waiting = observer.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                                           (table,)).fetchone()[0]
                if waiting:
                    break
                time.sleep(0.05)
        assert waiting == 1 and not done.is_set()
        holder.commit()
    appender.join(timeout=30)
    assert done.is_set()


def hold_table(connect, ledger):
    """A transaction holding ROW SHARE on the events table: appends wait until it commits."""
    holder = connect()
    holder.execute(f"LOCK TABLE {ledger.recorder.events_table_name} IN ROW SHARE MODE")
    return holder


def wait_until(predicate, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_appends_that_arrive_while_one_is_in_flight_commit_together_in_one_round_trip(ledger, connect, monkeypatch):
    recorder = ledger.recorder
    calls = []
    real_call = recorder._call_append
    monkeypatch.setattr(recorder, "_call_append", lambda group: calls.append(len(group)) or real_call(group))
    results: dict[int, object] = {}

    def append(n: int) -> None:
        results[n] = recorder.insert_events([stored(uuid.uuid4(), 1), stored(uuid.uuid4(), 1)])

    holder = hold_table(connect, ledger)
    threads = [threading.Thread(target=append, args=(n,)) for n in range(4)]
    threads[0].start()
    wait_until(lambda: calls)  # the first append is in flight, waiting on the lock
    for t in threads[1:]:
        t.start()
    wait_until(lambda: len(recorder._waiting) == 3)
    holder.commit()
    holder.close()
    for t in threads:
        t.join(timeout=30)
    assert calls == [1, 3]
    ids = [i for n in range(4) for i in results[n]]
    assert len(ids) == 8 and len(set(ids)) == 8
    assert sorted(n.id for n in recorder.select_notifications(start=None, limit=20)) == sorted(ids)


def test_a_conflicting_append_in_a_group_is_refused_alone(ledger, connect):
    recorder = ledger.recorder
    taken = uuid.uuid4()
    recorder.insert_events([stored(taken, 1)])
    outcomes: dict[str, object] = {}

    def append(name: str, events) -> None:
        try:
            outcomes[name] = recorder.insert_events(events)
        except IntegrityError as e:
            outcomes[name] = e

    holder = hold_table(connect, ledger)
    first = threading.Thread(target=append, args=("first", [stored(uuid.uuid4(), 1)]))
    first.start()
    wait_until(lambda: recorder._in_flight)
    fresh = uuid.uuid4()
    group = [threading.Thread(target=append, args=("conflict", [stored(taken, 2), stored(taken, 1)])),
             threading.Thread(target=append, args=("fresh", [stored(fresh, 1), stored(fresh, 2)]))]
    for t in group:
        t.start()
    wait_until(lambda: len(recorder._waiting) == 2)
    holder.commit()
    holder.close()
    for t in (first, *group):
        t.join(timeout=30)
    assert isinstance(outcomes["conflict"], IntegrityError)
    assert len(outcomes["fresh"]) == 2 and len(outcomes["first"]) == 1
    assert [e.originator_version for e in recorder.select_events(taken)] == [1]
    assert [e.originator_version for e in recorder.select_events(fresh)] == [1, 2]


def test_replicas_starting_together_on_an_empty_database_all_start(fresh_postgres_env):
    barrier = threading.Barrier(4)
    errors: list[Exception] = []
    apps: list[Ledger] = []

    def start() -> None:
        barrier.wait()
        try:
            apps.append(Ledger(env=fresh_postgres_env))
        except Exception as e:  # noqa: BLE001 - the failure is what this test looks for
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for app in apps:
        app.close()
    assert errors == [] and len(apps) == 4


def test_many_threads_appending_at_once_each_get_their_own_ids_and_every_event_is_stored(ledger):
    recorder = ledger.recorder
    got: dict[int, list[int]] = {}

    def append_many(n: int) -> None:
        originator = uuid.uuid4()
        got[n] = [i for v in range(1, 41) for i in recorder.insert_events([stored(originator, v)])]

    threads = [threading.Thread(target=append_many, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    ids = [i for n in range(8) for i in got[n]]
    assert len(ids) == 320 and len(set(ids)) == 320
    assert all(got[n] == sorted(got[n]) for n in range(8))
    assert len(recorder.select_notifications(start=None, limit=1000)) == 320


def test_appends_on_an_event_loop_commit_in_groups_and_a_conflict_is_refused_alone(ledger):
    recorder = ledger.recorder
    taken = uuid.uuid4()
    recorder.insert_events([stored(taken, 1)])

    async def main():
        appends = [recorder.append_async([stored(uuid.uuid4(), 1), stored(uuid.uuid4(), 1)]) for _ in range(20)]
        appends.append(recorder.append_async([stored(taken, 1)]))
        try:
            return await asyncio.gather(*appends, return_exceptions=True)
        finally:
            await recorder.aclose()

    *fine, conflict = asyncio.run(main())
    assert isinstance(conflict, IntegrityError)
    ids = [i for pair in fine for i in pair]
    assert len(ids) == 40 and len(set(ids)) == 40
    assert len(recorder.select_notifications(start=None, limit=100)) == 41
