"""The notifier's and the social service's NATS users on a real nats-server with the
generated authorization: `domino nats setup` makes the notifier's three consumers, the
notifier binds to each and receives what its publisher (the social service's notices, the
relay's turns and ends) puts there, and neither user may do the other's part."""

from __future__ import annotations

import asyncio
import json
import secrets

import nats
import pytest
from click.testing import CliRunner

from services.cli.nats_setup import nats as nats_cli
from services.common import bus, consumers
from services.common.servers import start_nats

pytestmark = pytest.mark.integration

MATCH = "00000000-0000-0000-0000-0000000000cc"
NOTICE = json.dumps({"notification_id": "7d4c8f8e-2a3b-4c5d-8e9f-0a1b2c3d4e5f", "player_id": "p1",
                     "kind": "invite"}).encode()
TURN = json.dumps({"match_id": MATCH, "version": 4, "seat": 1, "player_id": "p1"}).encode()


@pytest.fixture(scope="module")
def set_up(tmp_path_factory):
    """A nats-server with every user, set up by the admin's command as an operator runs it."""
    passwords = {user: secrets.token_urlsafe(16) for user in bus.NATS_USERS}
    with start_nats(tmp_path_factory.mktemp("nats-notifier"), users=passwords) as server:
        admin = {"DOMINO_NATS_URL": server.url, "DOMINO_NATS_USER": "admin",
                 "DOMINO_NATS_PASSWORD": passwords["admin"]}
        result = CliRunner().invoke(nats_cli, ["setup"], env=admin)
        yield server, passwords, result


async def connected(server, passwords, user: str, violations: list[str]):
    async def on_error(e):
        violations.append(str(e))

    return await nats.connect(server.url, user=user, password=passwords[user], error_cb=on_error,
                              inbox_prefix=bus.inbox_prefix(user), max_reconnect_attempts=0)


def test_the_setup_creates_the_notifiers_three_consumers(set_up):
    _, _, result = set_up
    assert result.exit_code == 0, result.output
    for name in (bus.NOTICES_CONSUMER, bus.SEAT_TURNS_CONSUMER, bus.NOTIFIER_ENDS_CONSUMER):
        assert f"{name} created" in result.output, result.output


@pytest.mark.parametrize("spec, publisher, subject, payload", [
    (consumers.NOTICES, "social", bus.notice_subject("invite"), NOTICE),
    (consumers.SEAT_TURNS, "relay", bus.seat_turn_subject(MATCH), TURN),
    (consumers.NOTIFIER_ENDS, "relay", bus.match_event_subject(MATCH, "match_ended"),
     json.dumps({"match_id": MATCH, "version": 9}).encode()),
])
def test_the_notifier_binds_to_its_consumer_and_receives_what_its_publisher_put_there(set_up, spec, publisher,
                                                                                      subject, payload):
    server, passwords, _ = set_up

    async def run():
        violations: list[str] = []
        notifier = await connected(server, passwords, "notifier", violations)
        sender = await connected(server, passwords, publisher, violations)
        got: asyncio.Queue = asyncio.Queue()

        async def handle(msg):
            await msg.ack()
            await got.put((msg.subject, msg.data))

        sub = await consumers.bind(notifier.jetstream(), spec, handle)
        await sender.jetstream().publish(subject, payload)
        received = await asyncio.wait_for(got.get(), 5)
        await sub.unsubscribe()
        await sender.close()
        await notifier.close()
        return received, violations

    assert asyncio.run(run()) == ((subject, payload), [])


@pytest.mark.parametrize("user, subject", [
    ("notifier", bus.notice_subject("invite")),  # only the social service stores and publishes notices
    ("notifier", bus.seat_turn_subject(MATCH)),
    ("social", bus.seat_turn_subject(MATCH)),  # only the relay tells turns
    ("social", bus.match_event_subject(MATCH, "match_ended")),
])
def test_neither_may_publish_what_another_service_publishes(set_up, user, subject):
    server, passwords, _ = set_up

    async def run():
        violations: list[str] = []
        nc = await connected(server, passwords, user, violations)
        await nc.publish(subject, NOTICE)
        await nc.flush()
        for _ in range(50):
            if violations:
                break
            await asyncio.sleep(0.02)
        await nc.close()
        return violations

    violations = asyncio.run(run())
    assert any("permissions violation" in v.lower() and subject.lower() in v.lower() for v in violations), violations


def test_the_social_service_may_not_read_the_notifiers_consumer(set_up):
    server, passwords, _ = set_up

    async def run():
        violations: list[str] = []
        nc = await connected(server, passwords, "social", violations)
        await nc.subscribe(consumers.NOTICES.deliver_subject)
        await nc.flush()
        for _ in range(50):
            if violations:
                break
            await asyncio.sleep(0.02)
        await nc.close()
        return violations

    assert any("permissions violation" in v.lower() for v in asyncio.run(run()))
