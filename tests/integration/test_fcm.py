"""The FCM HTTP v1 client against the fake FCM (TLS on loopback, an OAuth token endpoint that
checks the service account's signed assertion, and messages:send that checks the token it
issued): each documented answer becomes its outcome, 429 and 503 are retried within their
bounds, the access token is reused until near its expiry and replaced when FCM refuses it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from services.notifier import delivery
from services.notifier.delivery import Retrying, with_retries
from services.notifier.fcm import Fcm, ServiceAccount
from services.notifier.payloads import Push
from services.notifier.tls import client_context
from tests.support import fake_fcm
from tests.support.clock import Clock

pytestmark = pytest.mark.integration
TOKEN = "fcm-registration-token"
PUSH = Push("1c7e6f1f-4d9f-4e6a-8b62-8b5d2f1f3c22", "invite", "notice.invite", {"rules": "egyptian"},
            {"room_id": "ROOM1234"}, None, "Ann")
FAST = Retrying(attempts=3, total_seconds=5.0, base_seconds=0.01, cap_seconds=0.05)


@pytest.fixture
def fcm(tmp_path):
    with fake_fcm.running_fcm(tmp_path) as fake:
        yield fake


def client_of(fake, clock=None) -> Fcm:
    account = ServiceAccount.parse(Path(fake.account_file).read_text())
    if clock is None:
        return Fcm(account, fake.url, client_context(fake.ca_file), 3.0)
    return Fcm(account, fake.url, client_context(fake.ca_file), 3.0, clock=clock)


def send(fake, retrying: Retrying | None = None, pushes: int = 1, between=lambda: None, clock=None):
    async def go():
        client = client_of(fake, clock)
        try:
            answers = []
            for _ in range(pushes):
                if retrying is None:
                    answers.append(await client.send(TOKEN, "", PUSH))
                else:
                    answers.append(await with_retries(lambda: client.send(TOKEN, "", PUSH), retrying))
                between()
            return answers
        finally:
            await client.close()
    return asyncio.run(go())


def test_a_message_fcm_accepts_is_ok_with_the_token_its_endpoint_issued(fcm):
    assert [a.outcome for a in send(fcm)] == [delivery.OK]
    [got] = fcm.received
    assert got.token == TOKEN and got.http_version == "2" and fcm.refused == []
    assert got.message["android"]["notification"] == {"body_loc_key": "notice.invite",
                                                      "body_loc_args": ["Ann", "egyptian"]}


def test_the_access_token_is_reused_across_messages(fcm):
    send(fcm, pushes=3)
    assert len(fcm.issued) == 1 and len(fcm.received) == 3


def test_a_token_near_its_expiry_is_replaced_before_it_is_used(fcm):
    clock = Clock(time.time())
    fcm.clock = clock
    send(fcm, pushes=2, between=lambda: clock.advance(3600 - 299), clock=clock)
    assert len(fcm.issued) == 2


def test_an_access_token_fcm_refuses_is_replaced_and_the_message_sent_again(fcm):
    send(fcm, pushes=2, between=fcm.revoke_tokens)
    assert len(fcm.received) == 2 and fcm.refused == [(401, "UNAUTHENTICATED")]


@pytest.mark.parametrize("reply", [fake_fcm.UNREGISTERED, fake_fcm.INVALID_TOKEN], ids=["unregistered", "invalid"])
def test_a_registration_token_fcm_calls_unregistered_or_invalid_is_unregistered(fcm, reply):
    fcm.script(TOKEN, reply)
    assert send(fcm)[0].outcome == delivery.UNREGISTERED


def test_a_message_throttled_then_accepted_is_ok(fcm):
    fcm.script(TOKEN, fake_fcm.Reply(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "Quota exceeded.", "0"))
    assert send(fcm, retrying=FAST)[0].outcome == delivery.OK
    assert [r.status for r in fcm.received] == [429, 200]


def test_unavailable_to_the_last_try_is_a_failure(fcm):
    fcm.script(TOKEN, *[fake_fcm.UNAVAILABLE] * 3)
    answer = send(fcm, retrying=FAST)[0]
    assert (answer.outcome, answer.status, len(fcm.received)) == (delivery.FAILED, 503, 3)


def test_an_assertion_signed_by_another_key_gets_no_token_and_the_push_fails(fcm, tmp_path):
    other, _ = fake_fcm.make_account(fcm.account["token_uri"])
    account = ServiceAccount.parse(Path(fcm.account_file).read_text())
    forged = ServiceAccount(account.project_id, account.client_email, other["private_key"], account.private_key_id,
                            account.token_uri)

    async def go():
        client = Fcm(forged, fcm.url, client_context(fcm.ca_file), 3.0)
        try:
            return await client.send(TOKEN, "", PUSH)
        finally:
            await client.close()

    answer = asyncio.run(go())
    assert answer.outcome == delivery.FAILED and fcm.refused == [(400, "invalid_grant")] and fcm.received == []
