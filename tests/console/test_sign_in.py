"""Staff sign in through OpenID Connect (code flow, PKCE, state, nonce) or the one-time local
link; anything that does not match what this browser started is refused and signs nobody in."""

from __future__ import annotations

import pytest

from services.console.sign_in import _safe_next, staff_roles
from tests.support.oidc_issuer import OidcIssuer

from .console_harness import ROLE_MAP, console

pytestmark = pytest.mark.anyio


async def signed_in_as(c) -> str | None:
    page = await c.http.get("/now")
    if page.status_code != 200:
        return None
    return page.text


async def test_an_operator_signs_in_and_lands_where_they_were_going(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in("alice", "Alice Ops", ("dominoes-ops",), next_path="/players")
        assert answer.status_code == 200 and 'content="0;url=/players"' in answer.text
        page = await signed_in_as(c)
        assert page is not None and "Alice Ops" in page and "operator" in page


async def test_a_state_from_another_sign_in_is_refused(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in(tamper={"state": "someone-elses-state"})
        assert answer.status_code == 403
        assert await signed_in_as(c) is None


async def test_a_token_with_another_nonce_is_refused(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in(tamper={"nonce": "an-old-nonce"})
        assert answer.status_code == 403 and "nonce" in answer.text
        assert await signed_in_as(c) is None


async def test_a_code_bound_to_another_pkce_challenge_is_refused(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in(tamper={"code_challenge": "A" * 43})
        assert answer.status_code == 403
        assert await signed_in_as(c) is None


async def test_a_callback_is_taken_once(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        callback = await c.callback()
        state = c.http.cookies.get("console-sign-in")
        assert state and (await c.http.get(callback)).status_code == 200
        await c.http.post("/sign-out", data={"csrf_token": await c.csrf_token()})
        c.http.cookies.set("console-sign-in", state)  # the same browser, its state cookie kept
        assert (await c.http.get(callback)).status_code == 403


def test_a_pending_sign_in_is_taken_once_whatever_the_provider_would_say() -> None:
    from services.console.sign_in import PendingSignIns

    pending = PendingSignIns()
    pending.add("state-1", "nonce", "verifier", "/now")
    assert pending.take("state-1") is not None and pending.take("state-1") is None


async def test_a_callback_in_another_browser_is_refused(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        callback = await c.callback()
        c.http.cookies.clear()
        assert (await c.http.get(callback)).status_code == 403
        assert await signed_in_as(c) is None


async def test_a_sign_in_older_than_ten_minutes_is_refused(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        callback = await c.callback()
        c.clock.now += 601
        assert (await c.http.get(callback)).status_code == 403
        assert await signed_in_as(c) is None


async def test_staff_with_no_mapped_group_are_refused_with_a_page_saying_so(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in("bob", "Bob", ("marketing",))
        assert answer.status_code == 403 and "no console role" in answer.text
        assert await signed_in_as(c) is None


async def test_the_next_page_is_never_another_site(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        answer = await c.sign_in(next_path="//evil.example/")
        assert 'content="0;url=/"' in answer.text


async def test_the_local_link_signs_in_once_with_every_role() -> None:
    async with console() as c:
        assert (await c.sign_in_locally()).status_code == 303
        page = await signed_in_as(c)
        assert page is not None and "auditor, operator, support, viewer" in page
        await c.http.post("/sign-out", data={"csrf_token": await c.csrf_token()})
        assert (await c.sign_in_locally()).status_code == 403
        assert await signed_in_as(c) is None


@pytest.mark.parametrize("asked", ["//evil.example/", "https://evil.example/", "/\t/evil.example", "/\\evil.example",
                                   "/\n/evil.example"])
def test_only_a_path_of_the_console_is_a_next_page(asked: str) -> None:
    assert _safe_next(asked) == "/"
    assert _safe_next("/players/p-1?x=1") == "/players/p-1?x=1"


def test_roles_come_from_the_claim_through_the_map() -> None:
    assert staff_roles({"roles": ["dominoes-ops", "other"]}, "roles", ROLE_MAP) == {"operator"}
    assert staff_roles({"groups": "dominoes-audit"}, "groups", ROLE_MAP) == {"auditor"}
    assert staff_roles({"roles": 3}, "roles", ROLE_MAP) == frozenset()
