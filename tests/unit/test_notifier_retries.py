"""Retrying a provider that throttles or fails: exponential backoff with jitter, Retry-After
honoured, at most so many tries and never past the time bound; nothing else is retried."""

from __future__ import annotations

import asyncio

from services.notifier import delivery
from services.notifier.delivery import Answer, Retrying, with_retries
from tests.support.clock import Clock

THROTTLED = Answer(delivery.FAILED, 429, "TooManyRequests", retry=True)
OK = Answer(delivery.OK, 200)


def run(answers: list[Answer], policy: Retrying, rand=lambda: 1.0):
    clock = Clock(0.0)
    sent: list[float] = []
    slept: list[float] = []
    pending = list(answers)

    async def send() -> Answer:
        sent.append(clock.now)
        return pending.pop(0) if pending else answers[-1]

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)

    answer = asyncio.run(with_retries(send, policy, clock=clock, sleep=sleep, rand=rand))
    return answer, sent, slept


def test_a_throttled_push_is_tried_again_until_it_goes():
    answer, sent, _ = run([THROTTLED, THROTTLED, OK], Retrying(attempts=4))
    assert answer == OK and len(sent) == 3


def test_the_pauses_double_up_to_the_cap():
    _, _, slept = run([THROTTLED] * 6, Retrying(attempts=6, total_seconds=100, base_seconds=1, cap_seconds=4))
    assert slept == [1, 2, 4, 4, 4]


def test_jitter_draws_each_pause_below_its_backoff():
    _, _, slept = run([THROTTLED] * 3, Retrying(attempts=3, base_seconds=1), rand=lambda: 0.25)
    assert slept == [0.25, 0.5]


def test_a_retry_after_longer_than_the_backoff_is_waited_out():
    answer, _, slept = run([Answer(delivery.FAILED, 429, retry=True, retry_after=7.0), OK],
                           Retrying(attempts=3, total_seconds=20, base_seconds=1))
    assert answer == OK and slept == [7.0]


def test_tries_are_bounded_and_the_last_is_counted_failed():
    answer, sent, _ = run([Answer(delivery.FAILED, 503, "ServiceUnavailable", retry=True)], Retrying(attempts=3))
    assert (answer.outcome, answer.status, len(sent)) == (delivery.FAILED, 503, 3)
    assert not answer.retry


def test_a_wait_that_would_pass_the_time_bound_gives_up_at_once():
    answer, sent, slept = run([Answer(delivery.FAILED, 429, retry=True, retry_after=30.0)],
                              Retrying(attempts=5, total_seconds=20))
    assert answer.outcome == delivery.FAILED and len(sent) == 1 and slept == []


def test_an_answer_that_is_not_a_retry_is_returned_at_once():
    gone = Answer(delivery.UNREGISTERED, 410, "Unregistered")
    answer, sent, _ = run([gone], Retrying(attempts=5))
    assert answer == gone and len(sent) == 1


def test_retry_after_reads_seconds_and_ignores_what_it_cannot_read():
    assert (delivery.retry_after("3"), delivery.retry_after("-1"), delivery.retry_after("soon"),
            delivery.retry_after(None)) == (3.0, 0.0, None, None)
