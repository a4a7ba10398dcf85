"""Every answer carries the strict CSP and the other security headers; a change without the
session's CSRF token is refused and changes nothing; sessions end when idle or old, on the
console's own clock; each page and action asks for its role."""

from __future__ import annotations

import pytest

from services.console.guards import CSP
from services.console.staff import Staff

from .console_harness import console

pytestmark = pytest.mark.anyio


async def test_pages_carry_the_strict_csp_and_are_never_cached() -> None:
    async with console() as c:
        await c.sign_in_locally()
        for path in ("/sign-in", "/now", "/players", "/log"):
            answer = await c.http.get(path)
            assert answer.headers["content-security-policy"] == CSP
            assert "script-src 'self';" in CSP and "unsafe-inline" not in CSP
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert answer.headers["referrer-policy"] == "no-referrer"
            assert answer.headers["cache-control"] == "no-store"


async def test_no_page_has_an_inline_script_or_style() -> None:
    async with console() as c:
        await c.sign_in_locally()
        for path in ("/sign-in", "/now", "/players", "/log"):
            text = (await c.http.get(path)).text
            assert "<script>" not in text and " style=" not in text and "<style" not in text
            assert " on" not in text.replace(" only", "")  # no onclick= and the like


async def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing() -> None:
    async with console() as c:
        await c.sign_in_locally()
        refused = await c.http.post("/sign-out", data={"reason": "no token"})
        assert refused.status_code == 403 and "CSRF" in refused.text
        assert (await c.http.get("/now")).status_code == 200


async def test_a_post_with_a_wrong_csrf_token_is_refused() -> None:
    async with console() as c:
        await c.sign_in_locally()
        assert (await c.http.post("/sign-out", headers={"X-CSRF-Token": "guess"})).status_code == 403
        assert (await c.http.get("/now")).status_code == 200


async def test_the_csrf_token_is_taken_from_the_htmx_header() -> None:
    async with console() as c:
        await c.sign_in_locally()
        answer = await c.http.post("/sign-out", headers={"X-CSRF-Token": await c.csrf_token()})
        assert answer.status_code == 303
        assert (await c.http.get("/now")).status_code == 303


async def test_a_session_idle_for_thirty_minutes_has_ended() -> None:
    async with console() as c:
        await c.sign_in_locally()
        c.clock.now += 29 * 60
        assert (await c.http.get("/now")).status_code == 200
        c.clock.now += 29 * 60
        assert (await c.http.get("/now")).status_code == 200
        c.clock.now += 31 * 60
        answer = await c.http.get("/now")
        assert answer.status_code == 303 and answer.headers["location"].startswith("/sign-in")


async def test_a_page_left_refreshing_itself_still_goes_idle() -> None:
    async with console() as c:
        await c.sign_in_locally()
        for _ in range(31):
            c.clock.now += 60
            await c.http.get("/now/figures", headers={"HX-Request": "true"})
            await c.http.get("/tables/00000000-0000-0000-0000-000000000000/view", headers={"HX-Request": "true"})
        answer = await c.http.get("/players")
        assert answer.status_code == 303 and answer.headers["location"].startswith("/sign-in")


async def test_a_session_twelve_hours_old_has_ended_however_busy() -> None:
    async with console() as c:
        await c.sign_in_locally()
        for _ in range(12 * 3):
            c.clock.now += 20 * 60
            await c.http.get("/now")
        c.clock.now += 60
        assert (await c.http.get("/now")).status_code == 303


async def test_a_signed_out_sessions_cookie_signs_nobody_in() -> None:
    async with console() as c:
        await c.sign_in_locally()
        cookies = dict(c.http.cookies)
        await c.http.post("/sign-out", data={"csrf_token": await c.csrf_token()})
        c.http.cookies.clear()
        c.http.cookies.update(cookies)
        assert (await c.http.get("/now")).status_code == 303


async def test_nobody_signed_in_is_sent_to_sign_in() -> None:
    async with console() as c:
        answer = await c.http.get("/players")
        assert answer.status_code == 303 and answer.headers["location"] == "/sign-in?next=/players"


async def test_htmx_requests_are_sent_to_sign_in_by_header() -> None:
    async with console() as c:
        answer = await c.http.get("/now", headers={"HX-Request": "true"})
        assert answer.headers["hx-redirect"].startswith("/sign-in")


async def test_too_many_requests_from_one_address_are_refused() -> None:
    async with console(actions_per_minute=60.0) as c:
        codes = [(await c.http.get("/sign-in")).status_code for _ in range(130)]
        assert codes[0] == 200 and codes[-1] == 429


def test_every_role_may_what_a_viewer_may_and_an_operator_what_support_may() -> None:
    def staff(*roles: str) -> Staff:
        return Staff("oidc|x", "X", frozenset(roles))

    assert all(staff(role).may("viewer") for role in ("viewer", "support", "operator", "auditor"))
    assert staff("operator").may("support") and not staff("support").may("operator")
    assert not staff("auditor").may("support") and not staff("viewer").may("support")
    assert not staff("support").may("auditor") and staff("auditor").may("auditor")


async def test_each_answer_is_timed_by_its_page_not_its_path() -> None:
    async with console() as c:
        await c.sign_in_locally()
        await c.http.get("/players/one")
        await c.http.get("/players/two")
        await c.http.get("/now")
        pages = c.app.state.metrics.pages
        samples = {(s.labels["route"], s.labels["status"]): s.value for metric in pages.collect()
                   for s in metric.samples if s.name.endswith("_count")}
        assert samples[("players.account", "502")] == 2
        assert any(route.startswith("now.") for route, _ in samples)


async def test_a_form_past_64_kib_is_refused_whether_its_token_is_in_a_header_or_the_form() -> None:
    async with console() as c:
        await c.sign_in_locally()
        token = await c.csrf_token()
        big = "q=" + "x" * (65 * 1024)
        for headers, body in (({"X-CSRF-Token": token}, big), ({}, f"csrf_token={token}&{big}")):
            answer = await c.http.post("/sign-out", content=body,
                                       headers={**headers, "Content-Type": "application/x-www-form-urlencoded"})
            assert answer.status_code == 413
        assert (await c.http.get("/now")).status_code == 200  # nothing was done: still signed in
