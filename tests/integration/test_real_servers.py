"""The server fixtures start real stores and brokers, and they behave as we rely on.

The same contract runs against SQLite and PostgreSQL so that anything the services
assume about event storage (reload, optimistic concurrency, per-test isolation) is
checked on both.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import nats
import psycopg
import pytest
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from services.common.servers import (
    NatsServer,
    PostgresServer,
    start_nats,
    start_postgres,
)

pytestmark = pytest.mark.integration


class Counter(Aggregate):
    @event("Created")
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    @event("Incremented")
    def increment(self, by: int = 1) -> None:
        self.count += by


class Counters(Application):
    def create(self, name: str) -> UUID:
        counter = Counter(name)
        self.save(counter)
        return counter.id

    def increment(self, counter_id: UUID, by: int = 1) -> None:
        counter = self.repository.get(counter_id)
        counter.increment(by)
        self.save(counter)

    def get(self, counter_id: UUID) -> Counter:
        return self.repository.get(counter_id)


class StoreContract:
    """Tests every event store must pass; subclasses provide the ``env`` fixture."""

    @pytest.fixture
    def env(self) -> dict[str, str]:
        raise NotImplementedError

    @pytest.fixture
    def app(self, env: dict[str, str]) -> Iterator[Counters]:
        app = Counters(env=env)
        yield app
        app.close()

    def test_uses_the_configured_store(self, app: Counters, env: dict[str, str]) -> None:
        assert type(app.factory).__module__ == env["PERSISTENCE_MODULE"]

    def test_saved_aggregate_reloads_in_another_application(
        self, app: Counters, env: dict[str, str]
    ) -> None:
        counter_id = app.create("tiles")
        app.increment(counter_id, 2)
        app.increment(counter_id, 5)

        other = Counters(env=env)
        try:
            reloaded = other.get(counter_id)
        finally:
            other.close()

        assert (reloaded.name, reloaded.count, reloaded.version) == ("tiles", 7, 3)
        notifications = app.notification_log.select(start=1, limit=10)
        assert [n.originator_version for n in notifications] == [1, 2, 3]

    def test_two_applications_racing_on_one_aggregate(self, env: dict[str, str]) -> None:
        setup = Counters(env=env)
        counter_id = setup.create("race")
        setup.close()

        apps = [Counters(env=env), Counters(env=env)]
        copies = [a.get(counter_id) for a in apps]
        for by, copy in enumerate(copies, start=1):
            copy.increment(by)

        barrier = threading.Barrier(len(apps))
        outcomes: dict[int, BaseException | None] = {}

        def save(i: int) -> None:
            barrier.wait()
            try:
                apps[i].save(copies[i])
                outcomes[i] = None
            except BaseException as exc:  # noqa: BLE001 - recorded and asserted below
                outcomes[i] = exc

        threads = [threading.Thread(target=save, args=(i,)) for i in range(len(apps))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        try:
            winners = [i for i, exc in outcomes.items() if exc is None]
            losers = [exc for exc in outcomes.values() if exc is not None]
            assert len(winners) == 1, outcomes
            assert len(losers) == 1 and isinstance(losers[0], IntegrityError), outcomes

            reloaded = apps[0].get(counter_id)
            assert reloaded.version == 2
            assert reloaded.count == winners[0] + 1
        finally:
            for a in apps:
                a.close()

    def test_each_test_starts_with_an_empty_store(self, app: Counters) -> None:
        assert app.notification_log.select(start=1, limit=10) == []
        app.create("only-me")
        assert len(app.notification_log.select(start=1, limit=10)) == 1


class TestWithSQLite(StoreContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env: dict[str, str]) -> dict[str, str]:
        return fresh_sqlite_env


class TestWithPostgres(StoreContract):
    @pytest.fixture
    def env(self, fresh_postgres_env: dict[str, str]) -> dict[str, str]:
        return fresh_postgres_env

    def test_env_names_a_fresh_database_on_a_real_server(
        self, postgres: PostgresServer, env: dict[str, str]
    ) -> None:
        assert env["POSTGRES_DBNAME"].startswith("test_")
        with psycopg.connect(postgres.uri(env["POSTGRES_DBNAME"])) as conn:
            name, version = conn.execute("SELECT current_database(), version()").fetchone()
        assert name == env["POSTGRES_DBNAME"]
        assert version.startswith("PostgreSQL ")


def test_postgres_stop_shuts_the_server_down() -> None:
    root = Path(tempfile.mkdtemp(prefix="domino-test-postgres-"))  # not tmp_path: see conftest
    try:
        with start_postgres(root / "pgdata") as server:
            with psycopg.connect(server.uri()) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        assert not server.running
        assert not (server.data_dir / "postmaster.pid").exists()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.uri(), connect_timeout=2)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_jetstream_drops_a_second_message_with_the_same_msg_id(nats_server: NatsServer) -> None:
    stream = f"DEDUP_{uuid.uuid4().hex}"
    subject = f"dedup.{stream}"

    async def scenario() -> tuple[object, object, int]:
        nc = await nats.connect(nats_server.url)
        try:
            js = nc.jetstream()
            await js.add_stream(name=stream, subjects=[subject], duplicate_window=60.0)
            first = await js.publish(subject, b"move 1", headers={"Nats-Msg-Id": "match-1/move-1"})
            again = await js.publish(subject, b"move 1", headers={"Nats-Msg-Id": "match-1/move-1"})
            info = await js.stream_info(stream)
            return first, again, info.state.messages
        finally:
            await nc.close()

    first, again, stored = asyncio.run(scenario())
    assert not first.duplicate
    assert again.duplicate
    assert again.seq == first.seq
    assert stored == 1
    assert (nats_server.data_dir / "jetstream").is_dir()


def test_nats_stop_frees_the_port(tmp_path: Path) -> None:
    server = start_nats(tmp_path / "nats")
    server.stop()
    assert server.process.returncode is not None
    with pytest.raises(OSError), socket.create_connection((server.host, server.port), timeout=1):
        pass


def test_nats_start_reports_the_server_output_when_it_dies(
    tmp_path: Path, nats_server: NatsServer
) -> None:
    with pytest.raises(RuntimeError, match="nats-server exited") as info:
        start_nats(tmp_path / "nats", port=nats_server.port)
    assert "address already in use" in str(info.value)
