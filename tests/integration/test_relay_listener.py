"""An idle relay on PostgreSQL is woken by the store's notifications instead of polling it,
and loses nothing when its LISTEN connection is cut (real PostgreSQL, real nats-server).

The relays here, once listening, would otherwise wait an hour between reads
(``safety_seconds``), so an event published proves that something woke them."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, cast

import nats
import psycopg
import pytest

from services.match.application import MatchApplication, SeatSpec
from services.match.relay import Relay
from services.match.store_listener import listener_for
from tests.integration.test_relay import fresh_stream
from tests.support.matches import PLAYERS, Matches

pytestmark = pytest.mark.integration

HOUR = 3600.0
DEADLINE = 30.0  # a guard against hanging, not a measure of speed


async def until(condition: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), DEADLINE)


async def create_match(app: MatchApplication, request_id: str):
    return await app.create_match(request_id, "egyptian", "draw-2", None, None, 0,
                                  [SeatSpec(p, f"seed-{p}") for p in PLAYERS["draw-2"]])


def relayed_with_listener(env: dict[str, str], url: str, cut_connection: bool) -> tuple[int, int, int]:
    """(events published, notifications received, LISTEN connections cut) after a match is
    created under an idle relay that listens (its LISTEN connection cut first, if asked)."""
    asyncio.run(fresh_stream(url))
    matches = Matches(MatchApplication(env=env))

    async def scenario() -> tuple[int, int, int]:
        app = matches.app
        nc = await nats.connect(url)
        relay = Relay(app, nc.jetstream())
        listener = listener_for(app.recorder)
        assert listener is not None
        stopping = asyncio.Event()
        running = asyncio.create_task(relay.run(stopping, idle_seconds=0.01, listener=listener, safety_seconds=HOUR))
        try:
            await until(lambda: listener.listening)
            cut = 0
            if cut_connection:
                params = cast(Any, app.recorder).datastore.pool.kwargs
                async with await psycopg.AsyncConnection.connect(autocommit=True, **{
                        k: params[k] for k in ("dbname", "host", "port", "user", "password")}) as admin:
                    rows = await (await admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE query LIKE 'LISTEN %%' AND pid <> pg_backend_pid()")).fetchall()
                    cut = len(rows)
                await until(lambda: listener.connections == 2 and listener.listening)  # it connected again
            heard = listener.notifications
            match = await create_match(app, "m1")
            await until(lambda: relay.stats.published >= match.version)
            return relay.stats.published, listener.notifications - heard, cut
        finally:
            stopping.set()
            await asyncio.wait_for(running, DEADLINE)
            await nc.close()

    try:
        return matches.run(scenario())
    finally:
        matches.close()


def test_an_idle_relay_publishes_an_append_as_soon_as_the_store_notifies_it(fresh_postgres_env, nats_server):
    published, notified, _ = relayed_with_listener(fresh_postgres_env, nats_server.url, cut_connection=False)
    assert published >= 1
    assert notified >= 1


def test_a_relay_whose_listen_connection_is_cut_listens_again_and_still_publishes(fresh_postgres_env,
                                                                                   nats_server):
    published, notified, cut = relayed_with_listener(fresh_postgres_env, nats_server.url, cut_connection=True)
    assert cut == 1
    assert published >= 1
    assert notified >= 1


def test_an_embedded_store_has_no_listener_and_its_relay_polls(fresh_sqlite_env):
    app = MatchApplication(env=fresh_sqlite_env)
    try:
        assert listener_for(app.recorder) is None
    finally:
        app.close()


def wait_intervals(monkeypatch, connect, channel: str) -> list[float]:
    """The intervals psycopg waits with while a LISTEN connection (from ``connect()``) sits
    idle for 0.3 s on ``channel``."""
    from psycopg import waiting

    intervals: list[float] = []
    real = waiting.wait_async

    async def recorded(gen, fileno, interval=0.0, timeout=None):
        intervals.append(interval)
        return await real(gen, fileno, interval=interval, timeout=timeout)

    async def listen_briefly() -> None:
        connection = await connect()
        try:
            await connection.execute(f'LISTEN "{channel}"')
            monkeypatch.setattr(waiting, "wait_async", recorded)
            async for _ in connection.notifies(timeout=0.3):
                pass
        finally:
            await connection.close()

    asyncio.run(listen_briefly())
    return intervals


def test_a_listening_connection_waits_for_its_timeout_not_every_tenth_of_a_second(fresh_postgres_env, monkeypatch):
    """psycopg wakes a waiting connection every 0.1 s unless told otherwise: ten wake-ups a
    second of an idle relay for nothing."""
    app = MatchApplication(env=fresh_postgres_env)
    try:
        listener = listener_for(app.recorder)
        assert listener is not None
        intervals = wait_intervals(monkeypatch, listener.connect, listener.channel)
    finally:
        app.close()
    assert intervals and min(intervals) > 0.2  # the time left of the 0.3 s, not psycopg's 0.1


def test_the_match_services_change_tail_listens_without_waking_every_tenth_of_a_second(fresh_postgres_env,
                                                                                         monkeypatch):
    """The change tail's LISTEN connection comes from the recorder (connect_async), not the
    relay's listener: it too must wait for its timeout, not psycopg's 0.1 s."""
    app = MatchApplication(env=fresh_postgres_env)
    try:
        intervals = wait_intervals(monkeypatch, app.recorder.connect_async, app.recorder.channel_name)
    finally:
        app.close()
    assert intervals and min(intervals) > 0.2
