"""The APNs client against the fake APNs (HTTP/2 over TLS on loopback, checking the provider
token, topic, push type and payload): each answer APNs documents becomes its outcome, 429
and 5xx are retried within their bounds, an expired provider token is renewed, and one
HTTP/2 connection carries every push of an environment."""

from __future__ import annotations

import asyncio

import pytest

from services.notifier import delivery
from services.notifier.apns import PRODUCTION, SANDBOX, Apns, ProviderToken
from services.notifier.delivery import Retrying, with_retries
from services.notifier.payloads import Push
from services.notifier.tls import client_context
from tests.support import fake_apns

pytestmark = pytest.mark.integration
DEVICE = "0f" * 32
PUSH = Push("0b6f5d0e-3c8e-4d59-9a51-7a4c1f0e2b11", "your_turn", "notice.your_turn", {"seconds_left": "40"},
            {"match_id": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"}, 1_900_000_000.0)
FAST = Retrying(attempts=3, total_seconds=5.0, base_seconds=0.01, cap_seconds=0.05)


@pytest.fixture
def apns(tmp_path):
    with fake_apns.running_apns(tmp_path) as fake:
        yield fake


def send(fake, device: str = DEVICE, topic: str | None = None, retrying: Retrying | None = None,
         pushes: int = 1) -> list[delivery.Answer]:
    async def go():
        client = Apns(ProviderToken(fake.key_pem, fake.key_id, fake.team_id), topic or fake.topic,
                      {SANDBOX: fake.url, PRODUCTION: fake.url}, client_context(fake.ca_file), 3.0)
        try:
            answers = []
            for _ in range(pushes):
                if retrying is None:
                    answers.append(await client.send(device, SANDBOX, PUSH))
                else:
                    answers.append(await with_retries(lambda: client.send(device, SANDBOX, PUSH), retrying))
            return answers
        finally:
            await client.close()
    return asyncio.run(go())


def test_a_push_apns_accepts_is_ok_and_arrives_over_http2_as_sent(apns):
    assert [a.outcome for a in send(apns)] == [delivery.OK]
    [got] = apns.received
    assert got.http_version == "2" and got.token == DEVICE and apns.refused == []
    assert got.headers["apns-topic"] == apns.topic and got.headers["apns-push-type"] == "alert"


@pytest.mark.parametrize("reply", [fake_apns.UNREGISTERED, fake_apns.BAD_DEVICE_TOKEN], ids=["410", "400"])
def test_a_token_apns_calls_unregistered_or_bad_is_unregistered(apns, reply):
    apns.script(DEVICE, reply)
    assert send(apns)[0].outcome == delivery.UNREGISTERED


def test_a_push_throttled_then_accepted_is_ok(apns):
    apns.script(DEVICE, fake_apns.Reply(429, "TooManyRequests", retry_after="0"), fake_apns.OK)
    assert send(apns, retrying=FAST)[0].outcome == delivery.OK
    assert [r.status for r in apns.received] == [429, 200]


def test_server_errors_to_the_last_try_are_a_failure(apns):
    apns.script(DEVICE, fake_apns.SERVER_ERROR, fake_apns.UNAVAILABLE, fake_apns.UNAVAILABLE, fake_apns.OK)
    answer = send(apns, retrying=FAST)[0]
    assert (answer.outcome, answer.status, len(apns.received)) == (delivery.FAILED, 503, 3)


def test_a_refusal_apns_documents_for_good_is_dropped_not_retried(apns):
    answer = send(apns, topic="com.example.other", retrying=FAST)[0]
    assert (answer.outcome, answer.status, answer.reason) == (delivery.DROPPED, 400, "TopicDisallowed")
    assert apns.refused == [(400, "TopicDisallowed")]


def test_an_expired_provider_token_is_renewed_and_the_push_sent_again(apns):
    apns.script(DEVICE, fake_apns.Reply(403, "ExpiredProviderToken"), fake_apns.OK)
    assert send(apns)[0].outcome == delivery.OK
    assert [r.status for r in apns.received] == [403, 200]


def test_many_pushes_share_one_connection(apns):
    send(apns, pushes=5)
    assert len(apns.received) == 5 and len({r.peer for r in apns.received}) == 1
