"""Tables in play by family and variant, and the people at them, as gauges of the relay
(whose projection keeps the match index): the console's Now page and Grafana read them
from the services' own metrics instead of walking every listing.

Read from the index when scraped, at most once per ``max_age_seconds``: the count is one
read of the partial index of matches in play, and a scrape every few seconds from several
Prometheus servers and consoles must not become a read each.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.history.match_index import InPlay

log = logging.getLogger("domino.relay")


class InPlayCollector(Collector):
    def __init__(self, read: Callable[[], list[InPlay]], max_age_seconds: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self._max_age = max_age_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._read_at = -float("inf")
        self._last: list[InPlay] = []
        self.failures = 0

    def figures(self) -> list[InPlay]:
        with self._lock:
            if self._clock() - self._read_at >= self._max_age:
                try:
                    self._last = self._read()
                except Exception:  # the store away: the last figures stand, the failure is counted
                    self.failures += 1
                    log.warning("could not count the tables in play", exc_info=True)
                self._read_at = self._clock()
            return self._last

    def collect(self) -> Iterator[GaugeMetricFamily]:
        tables = GaugeMetricFamily("domino_tables_in_play", "Matches started and not yet ended, by family and "
                                   "variant (the history's match index)", labels=["rules", "variant"])
        people = GaugeMetricFamily("domino_people_in_play", "Seats of people (not bots) at matches in play, by "
                                   "family and variant", labels=["rules", "variant"])
        for row in self.figures():
            tables.add_metric([row.rules, row.variant], row.tables)
            people.add_metric([row.rules, row.variant], row.people)
        failures = GaugeMetricFamily("domino_tables_in_play_read_failures",
                                     "Counts of the tables in play that failed (store away), since start")
        failures.add_metric([], self.failures)
        yield from (tables, people, failures)
