"""How much one caller, and one process, may ask of a service.

A caller (a token's subject) may hold only so many open streams, and a process only so
many in all; commands are rate-limited per caller with a token bucket. Beyond a limit the
call is refused at once (RESOURCE_EXHAUSTED, with what the limit is), so one greedy or
hostile client slows nobody else. Everything here runs on the service's event loop.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Callable, Iterator


class TooMany(Exception):
    """A limit was reached; the message says which."""


class StreamLimits:
    def __init__(self, per_caller: int = 16, per_process: int = 2000) -> None:
        self.per_caller = per_caller
        self.per_process = per_process
        self.open: dict[str, int] = {}
        self.total = 0

    def acquire(self, caller: str) -> None:
        """Count a new stream of ``caller``; TooMany when it may not open."""
        if self.total >= self.per_process:
            raise TooMany(f"this server has {self.per_process} open streams; try again later")
        if self.open.get(caller, 0) >= self.per_caller:
            raise TooMany(f"you have {self.per_caller} open streams here; close one first")
        self.open[caller] = self.open.get(caller, 0) + 1
        self.total += 1

    def release(self, caller: str) -> None:
        self.total -= 1
        left = self.open[caller] - 1
        if left:
            self.open[caller] = left
        else:
            del self.open[caller]

    @contextmanager
    def stream(self, caller: str) -> Iterator[None]:
        self.acquire(caller)
        try:
            yield
        finally:
            self.release(caller)


class RateLimit:
    """A token bucket per caller: ``rate`` calls a second on average, bursts of ``burst``.
    Only the most recent ``callers`` buckets are kept (a full bucket is the default anyway)."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0, callers: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.callers = callers
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # caller -> (tokens, at)

    def take(self, caller: str) -> None:
        now = self.clock()
        tokens, at = self._buckets.pop(caller, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[caller] = (tokens, now)
            raise TooMany(f"more than {self.rate:g} requests a second; slow down")
        self._buckets[caller] = (tokens - 1, now)
        if len(self._buckets) > self.callers:
            self._buckets.popitem(last=False)


def limits_of(settings) -> tuple[StreamLimits, RateLimit]:
    """The limits the settings ask for (services/common/config.py)."""
    return (StreamLimits(settings.streams_per_caller, settings.streams_per_process),
            RateLimit(settings.command_rate, settings.command_burst))
