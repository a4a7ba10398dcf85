"""The Now page over ASGI: figures from real Prometheus endpoints (the services' own kind),
a service down or hung shown as down (never an error page), the tables in play by family
from a real match service, and only staff see it."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from services.console.metrics_settings import NowSettings
from services.match.in_play_metrics import InPlayCollector
from tests.service.harness import service_with_history

from .pages_harness import closed_endpoint, console, metrics_endpoint, silent_endpoint, staff_with

VIEWER = staff_with("viewer")


@pytest.fixture(scope="module")
def match_service(tmp_path_factory):
    """A match service with an egyptian block-4 table and an All Fives table in play."""
    with service_with_history(tmp_path_factory.mktemp("now")) as (svc, projection):
        svc.create(request_id="t1")
        svc.create(rules="all-fives", variant="", players=("cat", "bot:easy:1"), target=100, request_id="t2")
        projection.catch_up()
        svc.projection = projection
        yield svc


@pytest.fixture
def relay_metrics(match_service):
    """The relay's gauges of the tables in play, counted from the real history's index."""
    registry = CollectorRegistry()
    registry.register(InPlayCollector(match_service.projection.view.tables_in_play))
    with metrics_endpoint(registry) as url:
        yield url


@pytest.fixture
def match_metrics():
    """A match service's metrics as it exports them: two tables, moves and their timings."""
    registry = CollectorRegistry()
    Gauge("domino_match_active_matches", "", registry=registry).set(2)
    streams = Gauge("domino_match_open_streams", "", ["kind"], registry=registry)
    streams.labels(kind="seated").set(5)
    streams.labels(kind="spectator").set(1)
    rpcs = Counter("domino_match_rpcs_total", "", ["method", "code"], registry=registry)
    latency = Histogram("domino_match_rpc_seconds", "", ["method"], registry=registry)
    with metrics_endpoint(registry) as url:
        yield url, rpcs, latency


def settings(**targets: str) -> NowSettings:
    return NowSettings(metrics_targets=",".join(f"{name.replace('_', '-')}={url}" for name, url in targets.items()),
                       scrape_deadline_seconds=0.5, scrape_every_seconds=0.01)


def test_the_now_page_shows_the_figures_the_services_export(match_service, match_metrics):
    url, rpcs, latency = match_metrics

    async def scenario():
        async with console(match_service.port, settings(match=url), VIEWER) as client:
            assert (await client.get("/now")).status_code == 200
            rpcs.labels(method="PlayTile", code="OK").inc(50)
            for _ in range(50):
                latency.labels(method="PlayTile").observe(0.02)
            await asyncio.sleep(0.05)
            return await client.get("/now/figures")

    figures = asyncio.run(scenario())
    assert figures.status_code == 200
    text = figures.text
    assert "Tables in play</th><td class=\"value\">2<" in text
    assert "Seated streams (players, bots, services)</th><td class=\"value\">5<" in text
    assert "Move p99</th><td class=\"value\">25 ms<" in text  # 99% of the way through (0.01, 0.025]
    assert "<svg" in text and "<html" not in text  # a fragment, with its charts


def test_a_service_not_running_shows_as_down_not_as_an_error(match_service, match_metrics):
    async def scenario():
        async with console(match_service.port, settings(match=match_metrics[0], bots=closed_endpoint()),
                           VIEWER) as client:
            return await client.get("/now")

    page = asyncio.run(scenario())
    assert page.status_code == 200
    assert "bots: <strong class=\"bad\">down</strong>" in page.text
    assert "DominoServiceDown" in page.text and "bots: every target is down" in page.text


def test_a_hung_service_is_down_once_the_scrapes_deadline_passes(match_service, match_metrics):
    with silent_endpoint() as hung:
        async def scenario():
            async with console(match_service.port, settings(match=match_metrics[0], relay=hung), VIEWER) as client:
                started = time.monotonic()
                page = await client.get("/now")
                return page, time.monotonic() - started

        page, took = asyncio.run(scenario())
    assert page.status_code == 200 and "relay: <strong class=\"bad\">down</strong>" in page.text
    assert took < 3  # the 0.5 s deadline, not the hung peer, decides


def test_figures_of_a_service_that_is_down_are_unknown(match_service):
    async def scenario():
        async with console(match_service.port, settings(match=closed_endpoint()), VIEWER) as client:
            return await client.get("/now")

    assert "Tables in play</th><td class=\"value\">unknown<" in asyncio.run(scenario()).text


def test_tables_in_play_by_family_and_the_people_at_them_come_from_the_relays_gauges(match_service, relay_metrics):
    async def scenario():
        async with console(match_service.port, settings(relay=relay_metrics), VIEWER) as client:
            return await client.get("/now")

    text = asyncio.run(scenario()).text
    assert ('<a href="/tables?rules=egyptian">egyptian</a></td><td>block-4</td><td class="value">1</td>'
            '<td class="value">4<') in text
    assert '<a href="/tables?rules=all-fives">all-fives</a>' in text
    assert "People seated at them (bots left out): <strong>5</strong>" in text  # 4 at block-4, cat at all-fives


def test_tables_by_family_are_unknown_while_the_relay_is_down(match_service, match_metrics):
    async def scenario():
        async with console(match_service.port, settings(match=match_metrics[0], relay=closed_endpoint()),
                           VIEWER) as client:
            return await client.get("/now")

    assert "Unknown: the relay's metrics did not answer." in asyncio.run(scenario()).text


def test_nobody_signed_in_is_sent_to_sign_in(match_service):
    async def scenario():
        async with console(match_service.port, settings(), None) as client:
            return await client.get("/now"), await client.get("/now/figures", headers={"HX-Request": "true"})

    page, fragment = asyncio.run(scenario())
    assert page.status_code == 303 and page.headers["location"].startswith("/sign-in")
    assert fragment.headers.get("HX-Redirect", "").startswith("/sign-in")


def test_the_page_refreshes_its_figures_without_any_inline_script_or_style(match_service, match_metrics):
    async def scenario():
        async with console(match_service.port, settings(match=match_metrics[0]), VIEWER) as client:
            return await client.get("/now")

    page = asyncio.run(scenario())
    assert 'hx-get="/now/figures" hx-trigger="every 5s"' in page.text
    assert "style=" not in page.text and "<script>" not in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_errors_are_listed_for_the_services_the_console_scrapes_alone(match_service, match_metrics):
    async def scenario():
        async with console(match_service.port, settings(match=match_metrics[0], bots=closed_endpoint()),
                           VIEWER) as client:
            return await client.get("/now/figures")

    errors = asyncio.run(scenario()).text.split('id="errors-heading"')[1].split("</table>")[0]
    assert re.findall(r'<th scope="row">(\w+)</th>', errors) == ["bots", "match"]
    assert '<th scope="row">bots</th><td class="value">unknown<' in errors
