"""The console's one watcher of the services' metrics: pages ask it for the latest figures,
and it scrapes every target again only when its last round is older than
``scrape_every_seconds``, so any number of open Now pages cost one round of scrapes every
five seconds. It scrapes only while someone looks: the ring (ten minutes of figures) fills
while a Now page is open.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

import httpx

from .metrics_alerts import Alert, evaluate, from_prometheus
from .metrics_figures import FigureRing, Figures
from .metrics_scrape import scrape_all
from .metrics_settings import NowSettings

RING_SECONDS = 600.0


@dataclass(frozen=True)
class Reading:
    figures: Figures
    alerts: list[Alert]
    alerts_from: str  # "prometheus", "console" (its own evaluation), "console (Prometheus did not answer)"
    ring: FigureRing


class MetricsWatch:
    def __init__(self, settings: NowSettings, clock: Callable[[], float] = time.monotonic,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.settings, self.clock, self.transport = settings, clock, transport
        self.ring = FigureRing(keep=max(2, int(RING_SECONDS / settings.scrape_every_seconds)))
        self._lock = asyncio.Lock()
        self._last: Reading | None = None
        self._last_at = float("-inf")

    async def reading(self) -> Reading:
        async with self._lock:
            if self._last is None or self.clock() - self._last_at >= self.settings.scrape_every_seconds:
                self._last = await self._read()
                self._last_at = self.clock()
            return self._last

    async def _read(self) -> Reading:
        deadline = self.settings.scrape_deadline_seconds
        async with httpx.AsyncClient(transport=self.transport, follow_redirects=False) as client:
            scrapes = await scrape_all(client, self.settings.targets, deadline, self.clock)
            figures = self.ring.add(scrapes, self.clock())
            if self.settings.prometheus_url:
                alerts = await from_prometheus(client, self.settings.prometheus_url, deadline)
                if alerts is not None:
                    return Reading(figures, alerts, "prometheus", self.ring)
                return Reading(figures, evaluate(self.ring), "console (Prometheus did not answer)", self.ring)
        return Reading(figures, evaluate(self.ring), "console", self.ring)
