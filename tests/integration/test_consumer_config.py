"""The consumers are the admin's: `domino nats setup` makes them and puts back one that
differs, and a service whose consumer is not as the setup makes it refuses to consume,
says so in its log and in `domino_bus_consumer_config_mismatch`, and starts once the setup
has run again (red team: a stolen bots password re-pointed the bots' consumer, and the bots
failed on every start until an admin deleted it)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nats
import pytest
from click.testing import CliRunner
from nats.js.api import AckPolicy, ConsumerConfig

from services.cli.nats_setup import nats as nats_cli
from services.common import bus, consumers
from services.common.servers import free_port, start_nats
from services.matchmaking.match_end_consumer import MatchEndConsumer
from tests.integration.fresh_bus import fresh_bus
from tests.support.keys import KEYS

pytestmark = pytest.mark.integration

MATCH = "00000000-0000-0000-0000-0000000000bb"
REPOINTED = bus.witness_subject(MATCH)  # where the red team pointed the bots' consumer


async def repoint(js, spec: consumers.ConsumerSpec) -> None:
    """What the attacker did with the bots' password, done now by an admin-level actor."""
    await js.add_consumer(bus.STREAM, dataclasses.replace(spec.config(), deliver_subject=REPOINTED))


def test_the_setup_creates_every_consumer_and_puts_back_what_differs(nats_server):
    async def run():
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        await fresh_bus(js)
        specs = consumers.every(30.0)
        kept = await consumers.ensure_consumers(js, specs)
        await repoint(js, specs[0])
        # the push consumer an earlier release's matchmaking made for itself, on a random inbox
        await js.add_consumer(bus.STREAM, dataclasses.replace(consumers.MATCH_ENDED.config(),
                                                              deliver_subject="_INBOX_matchmaking.x1", max_deliver=-1))
        # a pull consumer in place of seat_left's, 3 messages in, 2 acknowledged
        await js.delete_consumer(bus.STREAM, consumers.SEAT_LEFT.name)
        pull = ConsumerConfig(name=consumers.SEAT_LEFT.name, durable_name=consumers.SEAT_LEFT.name,
                              filter_subject=consumers.SEAT_LEFT.filter_subject, ack_policy=AckPolicy.EXPLICIT)
        await js.add_consumer(bus.STREAM, pull)
        for version in (1, 2, 3):
            await js.publish(bus.match_event_subject(MATCH, "seat_left"),
                             json.dumps({"match_id": MATCH, "version": version}).encode())
        sub = await js.pull_subscribe_bind(consumers.SEAT_LEFT.name, bus.STREAM)
        for msg in await sub.fetch(2):
            await msg.ack()
        await sub.unsubscribe()
        await asyncio.sleep(0.1)
        put_back = await consumers.ensure_consumers(js, specs)
        infos = [await js.consumer_info(bus.STREAM, spec.name) for spec in specs]
        await nc.close()
        return kept, put_back, infos

    kept, put_back, infos = asyncio.run(run())
    assert kept == {"bots": "kept", "matchmaking": "kept", "matchmaking-leaves": "kept",  # fresh_bus made them
                    "notifier": "kept", "notifier-turns": "kept", "notifier-ends": "kept"}
    # NATS updates a push consumer in place (its position kept) where it can; it refuses to
    # move a deliver subject in some states (the re-pointed bots'), and a pull consumer cannot
    # become a push one: those are made again
    assert put_back["matchmaking"] == "updated" and put_back["matchmaking-leaves"] == "replaced"
    assert put_back["bots"] in ("updated", "replaced")
    for spec, info in zip(consumers.every(30.0), infos):
        assert consumers.differences(info.config, spec) == [], spec.name
    assert infos[2].num_pending == 1  # made again from the first message not acknowledged: nothing skipped


def test_matchmaking_refuses_a_re_pointed_consumer_and_binds_once_the_setup_put_it_back(nats_server):
    mismatches: list[tuple[str, bool]] = []

    async def run():
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        await fresh_bus(js)
        await repoint(js, consumers.MATCH_ENDED)
        consumer = MatchEndConsumer(js, app=None, on_mismatch=lambda name, bad: mismatches.append((name, bad)),
                                    bind_retry_seconds=0.05)
        starting = asyncio.create_task(consumer.start())
        await asyncio.sleep(0.3)
        refused = not starting.done() and not consumer.subscriptions
        await consumers.ensure_consumers(js, consumers.every(30.0))
        await asyncio.wait_for(starting, 5)
        bound = sorted(consumer.bound)
        await consumer.stop()
        await nc.close()
        return refused, bound

    refused, bound = asyncio.run(run())
    assert refused and bound == ["matchmaking", "matchmaking-leaves"]
    assert mismatches[0] == ("matchmaking", True) and ("matchmaking", False) in mismatches


@pytest.fixture
def secured(tmp_path):
    passwords = {user: secrets.token_urlsafe(16) for user in bus.NATS_USERS}
    with start_nats(tmp_path / "nats", users=passwords) as server:
        yield server, passwords


def gauge(port: int) -> float | None:
    """domino_bus_consumer_config_mismatch{consumer="bots"} on a metrics page (None: not there yet)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1) as page:
            text = page.read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith('domino_bus_consumer_config_mismatch{consumer="bots"}'):
            return float(line.split()[-1])
    return None


def wait_for(condition, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_the_bots_service_refuses_a_re_pointed_consumer_until_the_setup_puts_it_back(secured, tmp_path):
    server, passwords = secured
    admin = {"DOMINO_NATS_URL": server.url, "DOMINO_NATS_USER": "admin", "DOMINO_NATS_PASSWORD": passwords["admin"]}
    runner = CliRunner()
    assert runner.invoke(nats_cli, ["setup"], env=admin).exit_code == 0

    async def as_admin():
        nc = await nats.connect(server.url, user="admin", password=passwords["admin"])
        await repoint(nc.jetstream(), consumers.bots(30.0))
        await nc.close()

    asyncio.run(as_admin())
    KEYS.write(tmp_path / "keys")
    port = free_port()
    env = {**os.environ, "DOMINO_NATS_URL": server.url, "DOMINO_NATS_USER": "bots",
           "DOMINO_NATS_PASSWORD": passwords["bots"], "DOMINO_BOTS_METRICS_PORT": str(port),
           "DOMINO_KEYS_DIR": str(tmp_path / "keys"), "DOMINO_MATCH_ADDRESS": f"127.0.0.1:{free_port()}",
           "DOMINO_LOG_FORMAT": "json"}
    log_path = tmp_path / "bots.log"
    with open(log_path, "wb") as out:
        bots = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "bots"], env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: gauge(port) == 1.0, f"no mismatch shown: {log_path.read_text()[-2000:]}")
        refusal = [json.loads(line) for line in log_path.read_text().splitlines() if "refusing to consume" in line]
        assert refusal and refusal[0]["level"] == "error" and refusal[0]["consumer"] == "bots"
        assert any(REPOINTED in problem for problem in refusal[0]["problems"]), refusal[0]
        assert "consuming turns" not in log_path.read_text()

        setup = runner.invoke(nats_cli, ["setup"], env=admin)
        assert setup.exit_code == 0 and "bots kept" not in setup.output, setup.output
        wait_for(lambda: gauge(port) == 0.0, "the bots did not bind after the setup")
        wait_for(lambda: "bot service consuming turns" in log_path.read_text(), "the bots are not consuming")
    finally:
        bots.send_signal(signal.SIGTERM)
        try:
            bots.wait(20)
        except subprocess.TimeoutExpired:
            bots.kill()
            bots.wait()
    assert bots.returncode == 0, Path(log_path).read_text()[-2000:]
