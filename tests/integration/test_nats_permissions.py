"""NATS is not open to whoever reaches it: each service has its own user with only the rights
it needs (services/common/bus.py NATS_PERMISSIONS), tried against a real nats-server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets

import nats
import pytest

from services.common import bus, consumers
from services.common.servers import start_nats

pytestmark = pytest.mark.integration

MATCH = "00000000-0000-0000-0000-0000000000aa"


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    passwords = {user: secrets.token_urlsafe(16) for user in bus.NATS_USERS}
    with start_nats(tmp_path_factory.mktemp("nats-secured"), users=passwords) as server:
        async def setup():
            nc = await nats.connect(server.url, user="admin", password=passwords["admin"])
            await bus.ensure_stream(nc.jetstream())
            await consumers.ensure_consumers(nc.jetstream(), consumers.every(30.0))
            await nc.close()

        asyncio.run(setup())
        yield server, passwords


async def as_user(server, passwords, user: str, body):
    """Run ``body(nc, violations)`` connected as ``user``; violations are the permission
    errors the server reported (asynchronously)."""
    violations: list[str] = []

    async def on_error(e):
        violations.append(str(e))

    nc = await nats.connect(server.url, user=user, password=passwords[user], error_cb=on_error,
                            inbox_prefix=bus.inbox_prefix(user))
    try:
        return await body(nc, violations)
    finally:
        await nc.close()


async def stream_count(server, passwords) -> int:
    async def body(nc, _):
        return (await nc.jetstream().stream_info(bus.STREAM)).state.messages
    return await as_user(server, passwords, "admin", body)


def test_a_client_without_credentials_is_refused(secured):
    server, _ = secured

    async def attempt():
        await nats.connect(server.url, max_reconnect_attempts=0, allow_reconnect=False)

    with pytest.raises(Exception) as caught:
        asyncio.run(attempt())
    assert "authorization" in str(caught.value).lower() or "no servers" in str(caught.value).lower()


@pytest.mark.parametrize("user", ["bots", "matchmaking"])
def test_only_the_relay_may_publish_a_match_ended(secured, user):
    server, passwords = secured
    before = asyncio.run(stream_count(server, passwords))

    async def forge(nc, violations):
        await nc.publish(bus.match_event_subject(MATCH, "match_ended"), json.dumps({"match_id": MATCH}).encode())
        await nc.flush()
        await asyncio.sleep(0.3)  # violations are reported asynchronously
        return violations

    violations = asyncio.run(as_user(server, passwords, user, forge))
    assert any("permissions violation" in v.lower() for v in violations), violations
    assert asyncio.run(stream_count(server, passwords)) == before


@pytest.mark.parametrize("user", ["bots", "matchmaking", "relay"])
def test_nobody_but_the_admin_may_purge_or_delete_the_stream(secured, user):
    server, passwords = secured

    async def purge(nc, violations):
        js = nc.jetstream(timeout=1.0)
        for attempt in (js.purge_stream, js.delete_stream):
            with pytest.raises(Exception):
                await attempt(bus.STREAM)
        return violations

    asyncio.run(as_user(server, passwords, user, purge))

    async def still_there(nc, _):
        return (await nc.jetstream().stream_info(bus.STREAM)).config.name
    assert asyncio.run(as_user(server, passwords, "admin", still_there)) == bus.STREAM


def test_the_relay_publishes_events_and_keeps_its_position(secured):
    server, passwords = secured

    async def publish(nc, violations):
        js = nc.jetstream()
        ack = await js.publish(bus.match_event_subject(MATCH, "tile_played"),
                               json.dumps({"match_id": MATCH, "version": 1}).encode())
        bucket = await bus.relay_bucket(js)
        await bucket.put(bus.RELAY_POSITION_KEY, b"7")
        return ack.seq, int((await bucket.get(bus.RELAY_POSITION_KEY)).value), violations

    seq, position, violations = asyncio.run(as_user(server, passwords, "relay", publish))
    assert seq > 0 and position == 7 and not violations


@pytest.mark.parametrize("user", ["bots", "matchmaking"])
def test_only_the_relay_may_write_its_position(secured, user):
    server, passwords = secured

    async def overwrite(nc, violations):
        js = nc.jetstream(timeout=1.0)
        with pytest.raises(Exception):
            bucket = await bus.relay_bucket(js)
            await bucket.put(bus.RELAY_POSITION_KEY, b"1000000000")
        return violations

    asyncio.run(as_user(server, passwords, user, overwrite))


@pytest.mark.parametrize("user, other", [("bots", "matchmaking"), ("matchmaking", "relay"), ("bots", "relay")])
def test_no_user_may_listen_to_another_users_replies(secured, user, other):
    server, passwords = secured

    async def eavesdrop(nc, violations):
        for subject in (f"{bus.inbox_prefix(other)}.>", "_INBOX.>", ">"):
            await nc.subscribe(subject)
        await nc.flush()
        await asyncio.sleep(0.3)
        return violations

    violations = asyncio.run(as_user(server, passwords, user, eavesdrop))
    assert sum("permissions violation" in v.lower() for v in violations) == 3, violations


@pytest.mark.parametrize("user, spec, subject", [
    ("bots", consumers.bots(30.0), bus.turn_subject(MATCH)),
    ("matchmaking", consumers.MATCH_ENDED, bus.match_event_subject(MATCH, "match_ended")),
    ("matchmaking", consumers.SEAT_LEFT, bus.match_event_subject(MATCH, "seat_left"))])
def test_each_service_binds_to_the_admins_consumer_and_receives_what_the_relay_publishes(secured, user, spec,
                                                                                        subject):
    server, passwords = secured

    async def publish(nc, _):
        await nc.jetstream().publish(subject, json.dumps({"match_id": MATCH}).encode())

    async def receive(nc, violations):
        got: asyncio.Queue = asyncio.Queue()

        async def handle(msg):
            await msg.ack()
            await got.put(msg.subject)

        sub = await consumers.bind(nc.jetstream(), spec, handle)
        await as_user(server, passwords, "relay", publish)
        received = await asyncio.wait_for(got.get(), 5)
        await sub.unsubscribe()
        return received, violations

    assert asyncio.run(as_user(server, passwords, user, receive)) == (subject, [])


WITNESS_TARGET = bus.witness_subject(MATCH)


@pytest.mark.parametrize("user, spec", [("bots", consumers.bots(30.0)), ("matchmaking", consumers.MATCH_ENDED),
                                        ("matchmaking", consumers.SEAT_LEFT)])
def test_a_service_user_may_not_create_re_point_or_delete_its_consumer(secured, user, spec):
    """The red team's attack: with the bots' password, re-point the bots' consumer at the
    witness subject (the bots then got nothing and failed on every start). Every consumer
    create and update subject is refused, and the consumer stays as the admin made it."""
    server, passwords = secured
    repointed = {"stream_name": bus.STREAM, "config": {
        **spec.config().as_dict(), "deliver_subject": WITNESS_TARGET, "deliver_group": None}}
    body = json.dumps(repointed).encode()
    attempts = [f"$JS.API.CONSUMER.CREATE.{bus.STREAM}.{spec.name}",
                f"$JS.API.CONSUMER.CREATE.{bus.STREAM}.{spec.name}.{spec.filter_subject}",
                f"$JS.API.CONSUMER.DURABLE.CREATE.{bus.STREAM}.{spec.name}",
                f"$JS.API.CONSUMER.UPDATE.{bus.STREAM}.{spec.name}",
                f"$JS.API.CONSUMER.CREATE.{bus.STREAM}",
                f"$JS.API.CONSUMER.DELETE.{bus.STREAM}.{spec.name}",
                # a pull request names where JetStream sends the messages: the witness, if asked
                f"$JS.API.CONSUMER.MSG.NEXT.{bus.STREAM}.{spec.name}"]

    async def attack(nc, violations):
        for subject in attempts:
            await nc.publish(subject, body, reply=WITNESS_TARGET)
        with pytest.raises(Exception):  # the client library's own way: no answer but a violation
            await nc.jetstream(timeout=0.5).add_consumer(bus.STREAM, config=dataclasses.replace(
                spec.config(), deliver_subject=WITNESS_TARGET))
        await nc.flush()
        for _ in range(100):
            if len(violations) > len(attempts):
                break
            await asyncio.sleep(0.02)
        return violations

    async def consumer_as_admin(nc, _):
        js = nc.jetstream()
        return (await js.consumer_info(bus.STREAM, spec.name)).config, (await js.stream_info(bus.WITNESS_STREAM))

    witness_before = asyncio.run(as_user(server, passwords, "admin", consumer_as_admin))[1].state.messages
    violations = asyncio.run(as_user(server, passwords, user, attack))
    refused = {v.lower().split("publish to ")[-1].strip('"') for v in violations if "permissions violation" in v.lower()}
    assert refused >= {subject.lower() for subject in attempts}, violations
    config, witness = asyncio.run(as_user(server, passwords, "admin", consumer_as_admin))
    assert consumers.differences(config, spec) == [] and config.deliver_subject == spec.deliver_subject
    assert witness.state.messages == witness_before


def test_the_witness_keeps_what_it_holds_even_from_the_admin(secured):
    """Deny delete and deny purge: not even the admin can take a head back."""
    server, passwords = secured

    async def body(nc, _):
        js = nc.jetstream()
        ack = await js.publish(bus.witness_subject(MATCH), b'{"match": "x"}')
        refused = []
        for attempt in (lambda: js.purge_stream(bus.WITNESS_STREAM), lambda: js.delete_msg(bus.WITNESS_STREAM, ack.seq)):
            try:
                await attempt()
            except nats.js.errors.APIError as e:
                refused.append(e.description or str(e))
        info = await js.stream_info(bus.WITNESS_STREAM)
        return refused, info.state.messages, info.config

    refused, messages, config = asyncio.run(as_user(server, passwords, "admin", body))
    assert len(refused) == 2 and messages >= 1
    assert config.deny_delete and config.deny_purge and config.max_bytes == bus.WITNESS_MAX_BYTES


def test_only_the_relay_may_add_to_the_witness_and_the_auditor_may_only_read_it(secured):
    server, passwords = secured

    async def add(user):
        async def body(nc, violations):
            await nc.publish(bus.witness_subject(MATCH), b'{"forged": true}')
            await nc.flush()
            for _ in range(50):
                if violations:
                    break
                await asyncio.sleep(0.02)
            return violations
        return await as_user(server, passwords, user, body)

    for user in ("auditor", "matchmaking", "bots"):
        assert any("permissions violation" in v.lower() for v in asyncio.run(add(user))), user

    async def read(nc, _):
        msg = await nc.jetstream().get_last_msg(bus.WITNESS_STREAM, bus.witness_subject(MATCH))
        return msg.data

    assert asyncio.run(as_user(server, passwords, "auditor", read))


def test_junk_a_service_user_gets_jetstream_to_answer_into_the_witness_hides_no_head(secured):
    """The reply-subject hole (docs/security.md, "Not closed: replies"): the bots user asks its
    consumer's info with the witness subject of a match as the reply. JetStream's answer lands
    in the witness; the heads the relay put there still read, and the junk is listed."""
    from services.audit.witness import publish, witness_heads
    from services.match.heads import Head

    server, passwords = secured
    match = "00000000-0000-0000-0000-0000000000bb"
    head = {"match": match, "version": 9, "entries": 9, "hash": "ab" * 32, "key": "k", "signed_at": 1, "signature": "00"}

    async def inject(nc, _):
        await nc.publish(f"$JS.API.CONSUMER.INFO.{bus.STREAM}.bots", b"", reply=bus.witness_subject(match))
        await nc.flush()

    async def relay(nc, _):
        await publish(nc.jetstream(), Head.from_json(head))

    async def audit(nc, _):
        ignored: list[int] = []
        for _ in range(50):
            heads = await witness_heads(nc.jetstream(), match, ignored=ignored)
            if ignored:
                return heads, ignored
            ignored.clear()
            await asyncio.sleep(0.02)
        return heads, ignored

    asyncio.run(as_user(server, passwords, "bots", inject))
    asyncio.run(as_user(server, passwords, "relay", relay))
    heads, ignored = asyncio.run(as_user(server, passwords, "auditor", audit))
    assert [h.version for h in heads] == [9]
    assert len(ignored) == 1
