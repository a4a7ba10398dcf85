"""A real browser plays a whole practice match through the edge: headless Debian Chromium,
driven by Playwright, opens the check page the edge serves (plain HTML and a bundle that
esbuild builds here from the generated TypeScript, sdk/typescript/client/ and connect-web),
which signs in by device, reads DescribeRules, starts a practice match against the bots,
submits its seed, follows WatchMatch, plays every turn it is given and shows the result,
over gRPC-Web and over Connect. The services run as processes (the match service,
matchmaking, accounts, the relay, the bots and the edge); the page's result is checked
against what GetMatch and ListMyMatches answer over gRPC.

Access tokens live two seconds here, so every match outlasts one: the page must refresh its
token and reopen its stream from the last version it received, and still play every turn."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common.supervisor import EDGE, SERVICES, TEST_PAGE, LocalSystem, Ports
from tests.system.quick_practice import QUICK_PRACTICE, check_played, described

pytestmark = pytest.mark.system

SDK = TEST_PAGE.parent
CHROMIUM = "/usr/bin/chromium"
# Headless in a container as root, with nothing of the browser's own calling out.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
MATCH_TIMEOUT_MS = 300_000  # generous: what is awaited is the result, never a duration


@pytest.fixture
def page_dir(tmp_path: Path) -> Path:
    """The check page with a bundle built now from the generated SDK, as `make install` builds it."""
    esbuild = SDK / "node_modules" / ".bin" / "esbuild"
    assert esbuild.exists(), "run `make install`: it runs `npm ci` in sdk/typescript"
    shutil.copy(TEST_PAGE / "index.html", tmp_path / "index.html")
    subprocess.run([str(esbuild), "test-page/main.ts", "--bundle", "--format=esm", "--target=es2022",
                    f"--outfile={tmp_path / 'bundle.js'}", "--log-level=warning"], cwd=SDK, check=True, timeout=60)
    return tmp_path


@pytest.fixture
def web_system(var_dir, page_dir):
    with LocalSystem(var_dir, Ports.free(), services=(*SERVICES, EDGE),
                     extra_env={**QUICK_PRACTICE, "DOMINO_WEB_STATIC_DIR": str(page_dir)}) as running:
        yield running


@pytest.mark.timeout(2 * MATCH_TIMEOUT_MS // 1000 + 120)  # two matches, each awaited generously
def test_a_browser_plays_a_whole_practice_match_through_the_edge_and_shows_its_result(web_system):
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    rules = described(web_system)
    shown = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            pages = {}
            for transport in ("grpc-web", "connect"):  # two matches at once, by a device each (the page makes it)
                pages[transport] = browser.new_context().new_page()  # a window each: a tab behind is throttled
                pages[transport].goto(f"http://{web_system.web_address}/?transport={transport}&target=shortest")
            for transport, page in pages.items():
                page.wait_for_selector("body[data-done]", timeout=MATCH_TIMEOUT_MS)
                assert page.get_attribute("body", "data-done") == "ok", page.inner_text("#status")
                shown[transport] = {
                    "families": page.locator("#families li").all_inner_texts(),
                    "summary": json.loads(page.inner_text("#summary")),
                    "final_scores": page.inner_text("#final-scores"), "winner": page.inner_text("#winner"),
                    "winner_side": page.get_attribute("#winner", "data-side"),
                    "history": page.inner_text("#history-result"), "match": page.inner_text("#match-id")}
            violations = Axe().run(page).response["violations"]
        finally:
            browser.close()
    assert [(v["id"], v["impact"]) for v in violations] == []
    for transport, page_shows in shown.items():
        view, line = check_played(web_system, page_shows["summary"])
        assert page_shows["families"] == [f.name for f in rules.families], transport
        assert page_shows["match"] == view.match_id
        assert page_shows["final_scores"] == " – ".join(map(str, view.scores))
        assert page_shows["winner_side"] == (str(view.winner) if view.HasField("winner") else "")
        assert page_shows["history"] == pb.MatchResult.Name(line.result)
