"""A real browser reaches the real system through the edge: headless Debian Chromium, driven
by Playwright, opens the check page the edge serves (plain HTML and a bundle that esbuild
builds here from the generated TypeScript and connect-web), which signs in by device and
asks DescribeRules with that session's token, over gRPC-Web and over Connect."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.supervisor import EDGE, TEST_PAGE, LocalSystem, Ports
from tests.system.conftest import metadata

pytestmark = pytest.mark.system

SDK = TEST_PAGE.parent
CHROMIUM = "/usr/bin/chromium"
# Headless in a container as root, with nothing of the browser's own calling out.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


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
    with LocalSystem(var_dir, Ports.free(), services=("match", "accounts", EDGE),
                     extra_env={"DOMINO_WEB_STATIC_DIR": str(page_dir)}) as running:
        yield running


def described_families(system: LocalSystem) -> list[str]:
    with grpc.insecure_channel(system.match_address) as channel:
        rules = pb_grpc.MatchServiceStub(channel).DescribeRules(pb.DescribeRulesRequest(),
                                                                 metadata=metadata(system, "ops", "service"))
    return [family.name for family in rules.families]


def test_a_browser_signs_in_by_device_and_lists_the_rule_families_through_the_edge(web_system):
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    expected = described_families(web_system)
    assert expected
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            shown = {}
            for transport in ("grpc-web", "connect"):
                page.goto(f"http://{web_system.web_address}/?transport={transport}")
                page.wait_for_selector("body[data-done]", timeout=20_000)
                assert page.get_attribute("body", "data-done") == "ok", page.inner_text("#status")
                shown[transport] = page.locator("#families li").all_inner_texts()
            violations = Axe().run(page).response["violations"]
        finally:
            browser.close()
    assert shown == {"grpc-web": expected, "connect": expected}
    assert [(v["id"], v["impact"]) for v in violations] == []
