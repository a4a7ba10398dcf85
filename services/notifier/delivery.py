"""What became of one push to one phone, and the bounded retrying that gets there.

A provider that answers 429 or 5xx (or not at all) is asked again with exponential backoff
and full jitter, waiting at least what its Retry-After says, at most ``attempts`` times and
never past ``total_seconds``: a push is worth little late, and a slot held by a provider
that is down is a slot every other phone waits for. The loop is ours rather than
tenacity's so that the clock, the sleep and the randomness are injected and a test can see
every bound without waiting."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

OK = "ok"
UNREGISTERED = "unregistered"  # the provider says the token is dead: forgotten
DROPPED = "dropped"  # refused for good for another reason (logged): trying again cannot help
FAILED = "failed"  # throttled or failing until the tries or the time ran out
PROVIDER_OFF = "provider_off"  # no credentials for that provider in this deployment


@dataclass(frozen=True)
class Answer:
    """One provider answer: its outcome, or ``retry`` with the seconds it asked us to wait."""

    outcome: str
    status: int = 0
    reason: str = ""
    retry: bool = False
    retry_after: float | None = None


@dataclass(frozen=True)
class Retrying:
    attempts: int = 4
    total_seconds: float = 20.0
    base_seconds: float = 0.25
    cap_seconds: float = 8.0

    def pause(self, attempt: int, retry_after: float | None, rand: Callable[[], float]) -> float:
        backoff = rand() * min(self.cap_seconds, self.base_seconds * 2 ** attempt)
        return max(backoff, retry_after or 0.0)


async def with_retries(send: Callable[[], Awaitable[Answer]], policy: Retrying,
                       on_retry: Callable[[Answer], None] = lambda answer: None,
                       clock: Callable[[], float] = time.monotonic,
                       sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                       rand: Callable[[], float] = random.random) -> Answer:
    """``send()`` until it answers anything but a retry, or the bounds are reached (then the
    last answer, as FAILED)."""
    started = clock()
    attempt = 0
    while True:
        answer = await send()
        if not answer.retry:
            return answer
        attempt += 1
        if attempt >= policy.attempts:
            return Answer(FAILED, answer.status, answer.reason or "tries exhausted")
        pause = policy.pause(attempt - 1, answer.retry_after, rand)
        if clock() - started + pause > policy.total_seconds:
            return Answer(FAILED, answer.status, answer.reason or "out of time")
        on_retry(answer)
        await sleep(pause)


def retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (only its delta-seconds form: neither provider sends dates)."""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
