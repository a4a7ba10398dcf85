"""The notifier's notices consumer against a real NATS, a real social service (its outbox
publishes what it stores) and the fake APNs and FCM: a stored notification reaches the
recipient's phones once, a token the provider calls dead is forgotten, a provider without
credentials is counted as off, and a malformed notice is terminated and counted."""

from __future__ import annotations

import asyncio
import json
import uuid

import nats
import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common import bus
from services.notifier import metrics
from tests.support import fake_apns, fake_fcm
from tests.support.keys import auth

from .notifier_harness import running_notifier, running_world

pytestmark = pytest.mark.integration
NOTIFIER = auth("notifier", "service")
IPHONE = "ab" * 32
ANDROID = "fcm-registration-token-1"


@pytest.fixture
def world(tmp_path, nats_server):
    with running_world(tmp_path, nats_server.url) as world:
        yield world


def post_result(world, recipient, about=None) -> str:
    notification_id = str(uuid.uuid4())
    world.social.PostNotifications(pb.PostNotificationsRequest(notifications=[pb.NewNotification(
        notification_id=notification_id, recipient_player_id=recipient.player_id,
        kind=pb.NOTIFICATION_KIND_MATCH_RESULT, text_key="notice.match_won", match_id=str(uuid.uuid4()),
        player_id=about.player_id if about else "",
        args={"points": "101", "opponent_points": "64", "rules": "egyptian", "outcome": "won"})]),
        metadata=NOTIFIER)
    return notification_id


def sends(provider: str, outcome: str) -> float:
    return metrics.SENDS.labels(provider, outcome)._value.get()


def test_a_stored_notification_is_pushed_to_the_recipients_iphone_once(world):
    ann, bob = world.sign_up("Ann"), world.sign_up("Bob")
    world.phone(bob, IPHONE)

    async def scenario():
        async with running_notifier(world) as notifier:
            notification_id = post_result(world, bob, about=ann)
            await notifier.until("notifier", "send")
            return notification_id

    notification_id = asyncio.run(scenario())
    [got] = world.apns.wait_for(1)
    assert got.token == IPHONE and got.http_version == "2"
    assert got.headers["apns-id"] == notification_id and got.headers["apns-priority"] == "5"
    assert got.payload["aps"]["alert"] == {"loc-key": "notice.match_won", "loc-args": ["Ann", "101", "64", "egyptian", "won"]}
    assert got.payload["domino"]["notification_id"] == notification_id
    assert world.apns.refused == []


def test_a_stored_notification_is_pushed_to_an_android_phone_through_fcm(world):
    bob = world.sign_up("Bob")
    world.phone(bob, ANDROID, platform=pb.PUSH_PLATFORM_FCM)

    async def scenario():
        async with running_notifier(world) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")

    asyncio.run(scenario())
    [got] = world.fcm.wait_for(1)
    assert got.token == ANDROID
    assert got.message["android"]["notification"]["body_loc_key"] == "notice.match_won"
    assert json.loads(got.message["data"]["args"])["points"] == "101"


def test_a_token_apns_calls_unregistered_is_forgotten(world):
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)
    world.apns.script(IPHONE, fake_apns.UNREGISTERED)

    async def scenario():
        async with running_notifier(world) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")  # the token is forgotten before the claim's outcome is told

    asyncio.run(scenario())
    world.apns.wait_for(1)
    claim = world.social.ClaimPush(pb.ClaimPushRequest(notification_id=post_result(world, bob)), metadata=NOTIFIER)
    assert claim.decision == pb.PUSH_DECISION_NO_TOKENS


def test_a_token_fcm_calls_unregistered_is_forgotten(world):
    bob = world.sign_up("Bob")
    world.phone(bob, ANDROID, platform=pb.PUSH_PLATFORM_FCM)
    world.fcm.script(ANDROID, fake_fcm.UNREGISTERED)

    async def scenario():
        async with running_notifier(world) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")

    asyncio.run(scenario())
    claim = world.social.ClaimPush(pb.ClaimPushRequest(notification_id=post_result(world, bob)), metadata=NOTIFIER)
    assert claim.decision == pb.PUSH_DECISION_NO_TOKENS


def test_a_phone_whose_provider_is_off_is_counted_provider_off_not_failed(world):
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)
    before = sends("apns", "provider_off"), sends("apns", "failed")

    async def scenario():
        async with running_notifier(world, apns_on=False) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")

    asyncio.run(scenario())
    assert (sends("apns", "provider_off"), sends("apns", "failed")) == (before[0] + 1, before[1])
    assert world.apns.received == []


def test_a_malformed_notice_is_terminated_and_counted_and_the_next_one_is_pushed(world):
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)

    async def scenario():
        async with running_notifier(world) as notifier:
            nc = await nats.connect(world.nats_url)
            js = nc.jetstream()
            await js.publish(bus.notice_subject("invite"), b'{"notification_id": "not-a-uuid"}')
            await js.publish(bus.notice_subject("invite"), json.dumps(
                {"notification_id": str(uuid.uuid4()), "player_id": bob.player_id, "kind": "ban"}).encode())
            await nc.close()
            await notifier.until("notifier", "dropped:malformed", count=2)
            post_result(world, bob)
            await notifier.until("notifier", "send")
            return notifier.dropped("notifier", "malformed")

    assert asyncio.run(scenario()) == 2
    assert len(world.apns.wait_for(1)) == 1


def test_a_notice_claimed_already_is_not_pushed_again(world):
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)

    async def scenario():
        async with running_notifier(world) as notifier:
            notification_id = post_result(world, bob)
            await notifier.until("notifier", "send")
            nc = await nats.connect(world.nats_url)
            await nc.jetstream().publish(bus.notice_subject("match_result"), json.dumps(
                {"notification_id": notification_id, "player_id": bob.player_id, "kind": "match_result"}).encode())
            await nc.close()
            await notifier.until("notifier", "already_claimed")

    asyncio.run(scenario())
    assert len(world.apns.received) == 1


def test_a_push_apns_keeps_failing_is_counted_failed_and_the_notice_is_not_redelivered(world):
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)
    world.apns.script(IPHONE, *[fake_apns.UNAVAILABLE] * 3)
    before = sends("apns", "failed")

    async def scenario():
        async with running_notifier(world) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")

    asyncio.run(scenario())
    assert sends("apns", "failed") == before + 1 and len(world.apns.received) == 3


def test_a_push_throttled_once_then_accepted_is_counted_ok(world):
    bob = world.sign_up("Bob")
    world.phone(bob, ANDROID, platform=pb.PUSH_PLATFORM_FCM)
    world.fcm.script(ANDROID, fake_fcm.Reply(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "Quota exceeded.", "0"))
    before = sends("fcm", "ok")

    async def scenario():
        async with running_notifier(world) as notifier:
            post_result(world, bob)
            await notifier.until("notifier", "send")

    asyncio.run(scenario())
    assert sends("fcm", "ok") == before + 1 and [r.status for r in world.fcm.received] == [429, 200]


def test_a_notice_the_social_service_cannot_claim_is_redelivered_then_given_up_and_counted(world):
    async def scenario():
        async with running_notifier(world, social_address="127.0.0.1:1") as notifier:
            nc = await nats.connect(world.nats_url)
            await nc.jetstream().publish(bus.notice_subject("invite"), json.dumps(
                {"notification_id": str(uuid.uuid4()), "player_id": "p-bob", "kind": "invite"}).encode())
            await nc.close()
            await notifier.until("notifier", "dropped:gave_up", seconds=30)
            return [o for c, o in notifier.outcomes if c == "notifier"], notifier.dropped("notifier", "gave_up")

    outcomes, gave_up = asyncio.run(scenario())
    assert outcomes == ["retried"] * (bus.MAX_DELIVER - 1) + ["dropped:gave_up"] and gave_up == 1


def test_a_claim_whose_reply_was_lost_is_claimed_again_on_redelivery_and_pushed(world):
    """The social service took the claim but its reply never reached the notifier (the
    deadline passed): the notice comes back and its claim again, under the same stream
    sequence, is answered SEND, so the phone still buzzes, once."""
    bob = world.sign_up("Bob")
    world.phone(bob, IPHONE)

    async def scenario():
        async with running_notifier(world) as notifier:
            social = notifier.consumer.pusher.social
            real, lost = social.claim, []

            async def claim_losing_the_first_reply(notification_id, claim_id=""):
                reply = await real(notification_id, claim_id)
                if not lost:
                    lost.append(claim_id)
                    raise TimeoutError("the reply was lost")
                return reply
            social.claim = claim_losing_the_first_reply
            post_result(world, bob)
            await notifier.until("notifier", "retried")
            await notifier.until("notifier", "send")
            return lost

    lost = asyncio.run(scenario())
    assert lost[0].startswith("stream:")
    assert len(world.apns.wait_for(1)) == 1 and len(world.apns.received) == 1
