"""The Now and Tables pages in headless Debian Chromium (Playwright), the console served by
uvicorn against a real match service and real metrics endpoints: each page passes an axe
check with no serious or critical violation, breaks no rule of its Content Security Policy,
and refreshes itself through htmx (the figures' and the table's fragments are fetched again)."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Gauge

from domino.match.v1 import match_service_pb2 as pb
from services.console.metrics_settings import NowSettings
from tests.service.harness import service_with_history
from tests.support.grpc_matches import act
from tests.support.keys import auth
from tests.system.test_browser import CHROMIUM, CHROMIUM_FLAGS

from .pages_harness import closed_endpoint, metrics_endpoint, serving_console, staff_with

SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def console_url(tmp_path_factory):
    """(base URL, a match in play with a few moves made)."""
    registry = CollectorRegistry()
    Gauge("domino_match_active_matches", "", registry=registry).set(1)
    with service_with_history(tmp_path_factory.mktemp("browser")) as (svc, projection), \
            metrics_endpoint(registry) as match_metrics:
        match_id = svc.create(request_id="seen").match_id
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("observer", "service")).view
        for n in range(5):
            view = act(svc, match_id, view, n)
        projection.catch_up()
        now = NowSettings(metrics_targets=f"match={match_metrics},bots={closed_endpoint()}",
                          scrape_deadline_seconds=0.5, scrape_every_seconds=1)
        with serving_console(svc.port, now, staff_with("viewer")) as url:
            yield url, match_id


@pytest.fixture
def browser_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def visit(page, url: str, path: str) -> tuple[list[str], list[str]]:
    """Signs in, opens ``path``; (the page's console errors, the fragment URLs it fetched)."""
    errors: list[str] = []
    fetched: list[str] = []
    # A CSP refusal shows as a console error; a failed load is named by its response instead
    # (the browser's own /favicon.ico, which the console does not serve, is left out).
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource") else None)
    page.on("response", lambda response: errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico") else None)
    page.on("request", lambda request: fetched.append(request.url) if request.headers.get("hx-request") else None)
    page.goto(f"{url}/test/sign-in")
    page.goto(f"{url}{path}")
    return errors, fetched


def serious(page) -> list[tuple[str, str]]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [(v["id"], v["impact"]) for v in violations if v["impact"] in SERIOUS]


def test_the_now_page_is_accessible_and_refreshes_its_figures(console_url, browser_page):
    url, _ = console_url
    errors, fetched = visit(browser_page, url, "/now")
    assert browser_page.locator("h1").inner_text() == "Now"
    browser_page.wait_for_timeout(6000)  # one refresh
    assert f"{url}/now/figures" in fetched
    assert "bots: down" in browser_page.locator("#now-figures").inner_text()
    assert serious(browser_page) == []
    assert errors == []


def test_a_watched_table_is_accessible_draws_its_board_and_refreshes(console_url, browser_page):
    url, match_id = console_url
    errors, fetched = visit(browser_page, url, f"/tables/{match_id}")
    assert browser_page.locator("svg.board g.tile").count() > 0
    browser_page.wait_for_timeout(4000)
    assert f"{url}/tables/{match_id}/view" in fetched
    assert serious(browser_page) == []
    assert errors == []


def test_the_tables_list_is_accessible(console_url, browser_page):
    url, match_id = console_url
    errors, _ = visit(browser_page, url, "/tables")
    assert browser_page.locator(f'a[href="/tables/{match_id}"]').count() == 1
    assert serious(browser_page) == []
    assert errors == []
