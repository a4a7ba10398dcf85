"""How much one caller, and one process, may ask of a service.

A caller (a token's subject) may hold only so many open streams, and a process only so
many in all; commands are rate-limited per caller with a token bucket. Beyond a limit the
call is refused at once (RESOURCE_EXHAUSTED, with what the limit is), so one greedy or
hostile client slows nobody else. Everything here runs on the service's event loop.

Spectators (watchers without a seat) are counted inside the process's cap but may take only
their share of it, per process and per match: anybody may open an account and watch a public
match, so without a share of their own enough of them could fill the process and refuse the
players seated at other matches their streams. Seated streams (players, bots, services,
auditors) always keep the rest.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Callable, Hashable, Iterator


class TooMany(Exception):
    """A limit was reached; the message says which, ``retry_after`` when to try again."""

    error_reason = "RATE_LIMITED"

    def __init__(self, message: str, error_reason: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        if error_reason is not None:
            self.error_reason = error_reason
        self.retry_after = retry_after


class StreamLimits:
    """Open streams per caller, per process, and spectators' share: ``spectators_per_process``
    (default a quarter of ``per_process``) in all and ``spectators_per_match`` on one match."""

    def __init__(self, per_caller: int = 16, per_process: int = 2000, spectators_per_process: int | None = None,
                 spectators_per_match: int = 200) -> None:
        if spectators_per_process is None:
            spectators_per_process = per_process // 4
        if not 0 <= spectators_per_process < per_process:
            raise ValueError(f"spectators' share ({spectators_per_process}) must be below the process's "
                             f"{per_process} open streams, so seated players keep room")
        self.per_caller = per_caller
        self.per_process = per_process
        self.spectators_per_process = spectators_per_process
        self.spectators_per_match = spectators_per_match
        self.open: dict[str, int] = {}
        self.total = 0
        self.watching: dict[Hashable, int] = {}  # match -> spectators' streams open on it
        self.spectators = 0

    @property
    def seated(self) -> int:
        """Open streams that are not spectators'."""
        return self.total - self.spectators

    def acquire(self, caller: str, spectating: Hashable | None = None) -> None:
        """Count a new stream of ``caller`` (a spectator's of the match ``spectating``);
        TooMany, naming the limit, when it may not open."""
        if spectating is not None:
            if self.spectators >= self.spectators_per_process:
                raise TooMany(f"this server has {self.spectators_per_process} open spectator streams, all it "
                              "gives spectators; try again later", "STREAM_LIMIT", 5.0)
            if self.watching.get(spectating, 0) >= self.spectators_per_match:
                raise TooMany(f"this match has {self.spectators_per_match} spectator streams open here, all one "
                              "match may have; try again later", "STREAM_LIMIT", 5.0)
        if self.total >= self.per_process:
            raise TooMany(f"this server has {self.per_process} open streams; try again later", "STREAM_LIMIT", 5.0)
        if self.open.get(caller, 0) >= self.per_caller:
            raise TooMany(f"you have {self.per_caller} open streams here; close one first", "STREAM_LIMIT")
        self.open[caller] = self.open.get(caller, 0) + 1
        self.total += 1
        if spectating is not None:
            self.watching[spectating] = self.watching.get(spectating, 0) + 1
            self.spectators += 1

    def release(self, caller: str, spectating: Hashable | None = None) -> None:
        """Uncount a stream ``acquire`` counted, with the same arguments."""
        self.total -= 1
        left = self.open[caller] - 1
        if left:
            self.open[caller] = left
        else:
            del self.open[caller]
        if spectating is not None:
            self.spectators -= 1
            watching = self.watching[spectating] - 1
            if watching:
                self.watching[spectating] = watching
            else:
                del self.watching[spectating]

    @contextmanager
    def stream(self, caller: str, spectating: Hashable | None = None) -> Iterator[None]:
        self.acquire(caller, spectating)
        try:
            yield
        finally:
            self.release(caller, spectating)


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
            raise TooMany(f"more than {self.rate:g} requests a second; slow down",
                          retry_after=(1 - tokens) / self.rate)
        self._buckets[caller] = (tokens - 1, now)
        if len(self._buckets) > self.callers:
            self._buckets.popitem(last=False)


def limits_of(settings) -> tuple[StreamLimits, RateLimit]:
    """The limits the settings ask for (services/common/config.py)."""
    return (StreamLimits(settings.streams_per_caller, settings.streams_per_process,
                         settings.spectator_streams_per_process, settings.spectator_streams_per_match),
            RateLimit(settings.command_rate, settings.command_burst))
