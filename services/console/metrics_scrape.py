"""Reading the services' own Prometheus endpoints, as Prometheus would, for the Now page.

The console reads figures where the services publish them, never their databases. A target
that does not answer within the deadline, answers an error or answers text that is not the
exposition format is a ``Scrape`` with ``up`` False: the page shows it as down, and every
figure that needs it as unknown, never a server error.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

import httpx
from prometheus_client.parser import text_string_to_metric_families

Labels = frozenset[tuple[str, str]]
LabelTest = Callable[[Mapping[str, str]], bool]

MAX_BODY = 4 * 1024 * 1024  # a metrics page far past any of ours is not read


@dataclass(frozen=True)
class Target:
    """One metrics endpoint: ``service`` names what it measures ("match", "relay", ...);
    ``name`` tells replicas apart ("match", "match-2")."""

    name: str
    service: str
    url: str


@dataclass(frozen=True)
class Scrape:
    target: Target
    at: float  # seconds, on the monotonic clock of the console
    up: bool
    samples: Mapping[str, Mapping[Labels, float]] = field(default_factory=dict)  # sample name -> series

    def series(self, name: str, where: LabelTest | None = None) -> dict[Labels, float]:
        """The series of one sample name whose labels pass ``where``."""
        found = self.samples.get(name, {})
        return {labels: value for labels, value in found.items() if where is None or where(dict(labels))}


Scrapes = Mapping[str, Scrape]  # one round: every target's scrape, by target name


def parse(text: str) -> dict[str, dict[Labels, float]]:
    """The exposition text's samples by name (``_bucket``, ``_count``, ``_total`` kept)."""
    samples: dict[str, dict[Labels, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[frozenset(sample.labels.items())] = float(sample.value)
    return samples


async def scrape(client: httpx.AsyncClient, target: Target, deadline: float,
                 clock: Callable[[], float] = time.monotonic) -> Scrape:
    """One target read within ``deadline`` seconds; down on any failure."""
    at = clock()
    try:
        async with asyncio.timeout(deadline):
            response = await client.get(target.url, timeout=deadline)
        if response.status_code != 200 or len(response.content) > MAX_BODY:
            return Scrape(target, at, up=False)
        return Scrape(target, at, up=True, samples=parse(response.text))
    except (httpx.HTTPError, TimeoutError, ValueError, UnicodeDecodeError):
        return Scrape(target, at, up=False)


async def scrape_all(client: httpx.AsyncClient, targets: list[Target], deadline: float,
                     clock: Callable[[], float] = time.monotonic) -> dict[str, Scrape]:
    """Every target at once, by target name; a target whose host names several addresses (a
    Kubernetes headless Service: one per pod) is scraped at each, as ``name@address``."""
    expanded = [t for found in await asyncio.gather(*(each_address(t, deadline) for t in targets)) for t in found]
    scrapes = await asyncio.gather(*(scrape(client, t, deadline, clock) for t in expanded))
    return {s.target.name: s for s in scrapes}


async def each_address(target: Target, deadline: float) -> list[Target]:
    """The target once per address its host resolves to; itself when it names one, is an
    address, or does not resolve (then its scrape is down)."""
    url = httpx.URL(target.url)
    host = url.host
    try:
        ipaddress.ip_address(host)
        return [target]
    except ValueError:
        pass
    try:
        async with asyncio.timeout(deadline):
            found = await asyncio.get_running_loop().getaddrinfo(host, url.port, type=socket.SOCK_STREAM)
    except (OSError, TimeoutError):
        return [target]
    addresses = sorted({str(info[4][0]) for info in found})
    if len(addresses) < 2:
        return [target]
    return [Target(f"{target.name}@{address}", target.service,
                   str(url.copy_with(host=address))) for address in addresses]


def label_is(**wanted: str) -> LabelTest:
    """Labels that match each of ``wanted`` as a whole regular expression (PromQL's ``=~``)."""
    patterns = {k: re.compile(v) for k, v in wanted.items()}
    return lambda labels: all(p.fullmatch(labels.get(k, "")) for k, p in patterns.items())


def label_is_not(**unwanted: str) -> LabelTest:
    """Labels that match none of ``unwanted`` (PromQL's ``!~``)."""
    patterns = {k: re.compile(v) for k, v in unwanted.items()}
    return lambda labels: not any(p.fullmatch(labels.get(k, "")) for k, p in patterns.items())
