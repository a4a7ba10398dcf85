"""A real browser on the console's Players and Operator log pages (headless Debian Chromium
driven by Playwright, axe for accessibility), the console started by the supervisor as
`domino up` starts it, beside a real account service and match service: an operator signs in
through the test OpenID Connect issuer, finds a player, bans them after confirming, and the
player's refresh is refused at once; a POST without the CSRF token is refused; a viewer is
refused every action; the one-time local link signs in once."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.account.v1 import account_service_pb2_grpc as acc_grpc
from services.common.supervisor import CONSOLE, LocalSystem, Ports
from tests.console.console_harness import CLIENT_ID, CLIENT_SECRET, ROLE_MAP
from tests.support.oidc_issuer import OidcIssuer
from tests.system.test_browser import CHROMIUM, CHROMIUM_FLAGS

pytestmark = pytest.mark.system

SERIOUS = ("serious", "critical")
ACTIONS = ("ban", "unban", "end-sessions", "export", "delete")


@pytest.fixture
def console_system(var_dir: Path, tmp_path: Path) -> Iterator[tuple[LocalSystem, OidcIssuer]]:
    secret = tmp_path / "client-secret"
    secret.write_text(CLIENT_SECRET)
    with OidcIssuer(tmp_path / "issuer") as issuer:
        issuer.register_client(CLIENT_ID, CLIENT_SECRET)
        env = {"DOMINO_CONSOLE_OIDC_ISSUER": issuer.issuer, "DOMINO_CONSOLE_OIDC_CLIENT_ID": CLIENT_ID,
               "DOMINO_CONSOLE_OIDC_CLIENT_SECRET_FILE": str(secret),
               "DOMINO_CONSOLE_OIDC_CA_FILE": str(issuer.ca_file),
               "DOMINO_CONSOLE_ROLE_MAP": json.dumps(ROLE_MAP)}
        with LocalSystem(var_dir, Ports.free(), services=("match", "accounts", CONSOLE), extra_env=env) as system:
            yield system, issuer


def sign_up(system: LocalSystem, name: str) -> acc.Session:
    with grpc.insecure_channel(system.account_address) as channel:
        return acc_grpc.AccountServiceStub(channel).SignInWithDevice(acc.SignInWithDeviceRequest(
            device_id=f"device-{name}-0123456789abcdef", device_secret="ab" * 32, display_name=name)).session


def refresh_code(system: LocalSystem, session: acc.Session) -> grpc.StatusCode:
    with grpc.insecure_channel(system.account_address) as channel:
        try:
            acc_grpc.AccountServiceStub(channel).RefreshSession(
                acc.RefreshSessionRequest(refresh_token=session.refresh_token))
        except grpc.RpcError as error:
            return error.code()
    return grpc.StatusCode.OK


def serious(axe, page) -> list[tuple[str, str]]:
    return [(v["id"], v["impact"]) for v in axe.run(page).response["violations"] if v["impact"] in SERIOUS]


def sign_in(page, url: str, issuer: OidcIssuer, subject: str, name: str, group: str, next_path: str) -> None:
    issuer.sign_in_as(subject, name, (group,))
    page.goto(url + next_path)
    page.get_by_role("link", name=re.compile("Sign in with")).click()
    page.wait_for_url(url + next_path)


def csrf_token(page) -> str:
    return json.loads(page.get_attribute("body", "hx-headers"))["X-CSRF-Token"]


def test_an_operator_bans_a_player_in_the_browser_and_their_refresh_is_refused_at_once(console_system) -> None:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    system, issuer = console_system
    url = system.console_url
    player = sign_up(system, "Pilar")
    until = (datetime.now(timezone.utc) + timedelta(days=30)).strftime("%Y-%m-%d")
    axe, violations = Axe(), {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            operator = browser.new_context(ignore_https_errors=True).new_page()
            sign_in(operator, url, issuer, "olive", "Olive Ops", "dominoes-ops", "/players")
            violations["search"] = serious(axe, operator)
            operator.get_by_label("Display name (its start) or player id").fill("Pil")
            operator.get_by_role("button", name="Find").click()
            operator.get_by_role("link", name="Pilar").click()
            operator.wait_for_url(f"{url}/players/{player.player_id}")
            violations["account"] = serious(axe, operator)
            operator.get_by_label("Reason shown to the player").fill("abusive chat")
            operator.get_by_label("Until").fill(until)
            operator.get_by_label("Why (for the operator log)").fill("ticket 4711")
            operator.get_by_role("button", name="Ban…").click()
            violations["confirm"] = serious(axe, operator)
            assert refresh_code(system, player) == grpc.StatusCode.OK  # asked, not done
            player = sign_up(system, "Pilar")  # that refresh used the token up: the device signs in again
            operator.get_by_role("button", name="Yes, ban").click()
            operator.wait_for_url(f"{url}/players/{player.player_id}")
            assert "Banned." in operator.content()
            assert refresh_code(system, player) == grpc.StatusCode.PERMISSION_DENIED

            without_token = operator.request.post(f"{url}/players/{player.player_id}/unban",
                                                  form={"why": "forged", "confirmed": "yes"})
            assert without_token.status == 403
            assert refresh_code(system, player) == grpc.StatusCode.PERMISSION_DENIED

            operator.goto(f"{url}/log?target={player.player_id}")
            assert "ticket 4711" in operator.content() and "Olive Ops" in operator.content()
            violations["log"] = serious(axe, operator)

            viewer = browser.new_context(ignore_https_errors=True).new_page()
            sign_in(viewer, url, issuer, "vera", "Vera Viewer", "dominoes-view", "/now")
            token = csrf_token(viewer)
            for action in ACTIONS:
                refused = viewer.request.post(f"{url}/players/{player.player_id}/{action}", form={
                    "csrf_token": token, "why": "curious", "reason": "r", "until": until, "confirmed": "yes"})
                assert refused.status == 403, action
            viewer.goto(f"{url}/players")
            assert "Not allowed" in viewer.content()
            violations["refused"] = serious(axe, viewer)
            assert refresh_code(system, player) == grpc.StatusCode.PERMISSION_DENIED

            local = browser.new_context().new_page()
            link = system.console_sign_in_link()
            local.goto(link)
            local.wait_for_url(f"{url}/now")
            assert "Local operator" in local.content()
            again = browser.new_context().new_page()
            again.goto(link)
            assert "not valid" in again.content()
            violations["sign_in"] = serious(axe, again)
        finally:
            browser.close()
    assert violations == {page: [] for page in violations}
