"""A page asks for its role: a viewer signed in through the identity provider is refused
Players and the operator log with a page saying which role they need."""

from __future__ import annotations

import pytest

from tests.support.oidc_issuer import OidcIssuer

from .console_harness import console

pytestmark = pytest.mark.anyio


async def test_a_viewer_sees_now_but_is_refused_players_and_the_log(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        await c.sign_in("vera", "Vera", ("dominoes-view",))
        assert (await c.http.get("/now")).status_code == 200
        for path in ("/players", "/log"):
            refused = await c.http.get(path)
            assert refused.status_code == 403 and "needs the support" in refused.text


async def test_an_auditor_reads_the_log_but_not_players(issuer: OidcIssuer) -> None:
    async with console(issuer) as c:
        await c.sign_in("ada", "Ada", ("dominoes-audit",))
        assert (await c.http.get("/log")).status_code != 403
        assert (await c.http.get("/players")).status_code == 403
