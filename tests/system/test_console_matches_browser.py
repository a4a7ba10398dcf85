"""A real browser on the console's Matches pages (headless Debian Chromium driven by
Playwright, axe for accessibility): an auditor signs in through the test OpenID Connect
issuer, finds a finished match, steps through its replay to the end with every check
passing, and sees where a tampered copy of a match was changed; a viewer is refused the
replay and sees no hand. The console runs under uvicorn against a real match service and
account service on loopback (tests/console/matches_system.py)."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from typing import Iterator

import pytest
import uvicorn

from services.console.app import create_app
from services.console.clients import Clients
from services.console.match_evidence import EvidenceSettings
from services.console.settings import ConsoleSettings
from tests.console.console_harness import CLIENT_ID, CLIENT_SECRET, ROLE_MAP
from tests.console.matches_system import MatchesSystem, matches_system
from tests.support.keys import KEYS
from tests.support.oidc_issuer import OidcIssuer
from tests.system.test_browser import CHROMIUM, CHROMIUM_FLAGS

pytestmark = pytest.mark.system

SERIOUS = ("serious", "critical")


@contextmanager
def served_console(system: MatchesSystem, issuer: OidcIssuer) -> Iterator[str]:
    """The console on a port of its own, in a thread with its own event loop; its URL."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listening.getsockname()[1]}"
    issuer.register_client(CLIENT_ID, CLIENT_SECRET)
    settings = ConsoleSettings(public_url=url, role_map=ROLE_MAP, account_address=f"127.0.0.1:{system.accounts.port}",
                               match_address=f"127.0.0.1:{system.svc.port}", oidc_issuer=issuer.issuer,
                               oidc_client_id=CLIENT_ID, oidc_ca_file=str(issuer.ca_file),
                               actions_per_minute=6000.0)  # type: ignore[call-arg]
    started = threading.Event()
    server: dict[str, uvicorn.Server] = {}

    async def serve() -> None:
        clients = Clients(settings.account_address, settings.match_address, KEYS.only(issues=("operator",)))
        app = create_app(settings, clients)
        app.state.identity_provider.client_secret = CLIENT_SECRET
        app.state.match_evidence = EvidenceSettings(nats_url="nats://127.0.0.1:9", witness_seconds=0.5,
                                                    var_dir=str(system.var_dir))
        server["it"] = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_config=None, access_log=False))
        started.set()
        try:
            await server["it"].serve(sockets=[listening])
        finally:
            await clients.close()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    thread.start()
    assert started.wait(10)
    try:
        yield url
    finally:
        server["it"].should_exit = True
        thread.join(15)


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    root = tmp_path_factory.mktemp("console-browser")
    with matches_system(root) as system, OidcIssuer(root / "issuer") as issuer, \
            served_console(system, issuer) as url:
        system.tamper(system.ids["edited"])
        yield system, issuer, url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def signed_in_page(browser, running, groups: tuple[str, ...]):
    _, issuer, url = running
    issuer.sign_in_as("ada", "Ada Audit", groups)
    page = browser.new_context(ignore_https_errors=True).new_page()  # the issuer's own test CA
    page.goto(f"{url}/sign-in?next=/matches")
    page.get_by_role("link", name="Sign in with your organisation's account").click()
    page.wait_for_url(f"{url}/matches")
    return page


def serious(page) -> list[tuple[str, str]]:
    from axe_playwright_python.sync_playwright import Axe

    return [(v["id"], v["impact"]) for v in Axe().run(page).response["violations"] if v["impact"] in SERIOUS]


def test_an_auditor_finds_a_finished_match_and_steps_through_its_replay_with_every_check_passing(browser, running):
    system, _, url = running
    done = system.ids["done"]
    page = signed_in_page(browser, running, ("dominoes-audit",))
    page.get_by_label("Match id").fill(done)
    page.get_by_role("button", name="Find").click()
    assert serious(page) == []
    page.get_by_role("link", name=done).click()
    page.wait_for_url(f"{url}/matches/{done}")
    assert page.locator("#verdict-title").inner_text() == "Every check passed"
    assert serious(page) == []
    last = int(page.locator("#move").get_attribute("max") or 0)
    for number in range(1, last + 1):
        page.locator('#step a[data-step="next"]').click()
        page.wait_for_selector(f"#step-title:has-text('Step {number} of {last}')")
        checks = page.locator("#step table.checks").inner_text()
        assert "refused" not in checks and "disagrees" not in checks and "changed here" not in checks, checks
    assert "the match's end" in page.locator("#step-title").inner_text()
    assert page.url.endswith(f"?move={last}")
    page.keyboard.press("ArrowLeft")  # the keyboard steps too
    page.wait_for_selector(f"#step-title:has-text('Step {last - 1} of {last}')")
    assert serious(page) == []


def test_a_tampered_copy_of_a_match_shows_where_it_was_changed(browser, running):
    system, _, url = running
    page = signed_in_page(browser, running, ("dominoes-audit",))
    page.goto(f"{url}/matches/{system.ids['edited']}")
    assert page.locator("#verdict-title").inner_text() == "The record fails a check"
    assert page.locator("#step.suspect #step-title").inner_text().startswith("Step 0 of")
    assert "disagrees" in page.locator("#step table.checks").inner_text()
    assert serious(page) == []


def test_a_viewer_is_refused_the_replay_and_never_sees_a_hand(browser, running):
    system, _, url = running
    page = signed_in_page(browser, running, ("dominoes-view",))
    page.get_by_label("Match id").fill(system.ids["done"])
    page.get_by_role("button", name="Find").click()
    assert page.get_by_role("link", name=system.ids["done"]).count() == 0
    answer = page.goto(f"{url}/matches/{system.ids['done']}")
    assert answer is not None and answer.status == 403
    assert "Every hand" not in page.content()
    assert serious(page) == []
