"""The Players page against a real account service over gRPC: support finds and reads an
account, an operator bans it after confirming and the player's refresh is refused at once;
what a role may not do is neither shown nor done; every action is in the operator log."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from tests.service.account_harness import AccountService, running_accounts
from tests.support.keys import KEYS
from tests.support.oidc_issuer import OidcIssuer

from .console_harness import Console, console

pytestmark = pytest.mark.anyio
NEXT_YEAR = (datetime.now(timezone.utc) + timedelta(days=365)).strftime("%Y-%m-%d")


@pytest.fixture(scope="module")
def accounts(tmp_path_factory) -> Iterator[AccountService]:
    with running_accounts(tmp_path_factory.mktemp("console-players")) as service:
        yield service


def refresh_code(accounts: AccountService, session: pb.Session) -> grpc.StatusCode:
    try:
        accounts.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token))
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def post(c: Console, path: str, **fields: str):
    return await c.http.post(path, data={"csrf_token": await c.csrf_token(), **fields})


def players_console(issuer: OidcIssuer, accounts: AccountService):
    return console(issuer, account=f"127.0.0.1:{accounts.port}", keys=KEYS)


async def test_support_finds_a_player_by_name_and_reads_their_account(issuer, accounts) -> None:
    session = accounts.sign_up("Quentin")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sam", "Sam Support", ("dominoes-support",))
        found = await c.http.get("/players", params={"q": "quent"})
        assert found.status_code == 200 and session.player_id in found.text
        page = await c.http.get(f"/players/{session.player_id}")
        assert page.status_code == 200 and "Quentin" in page.text and "Sessions" in page.text and "device" in page.text
        assert "Ratings and matches are not available now" in page.text  # no match service here
        assert "/ban" not in page.text and "/delete" not in page.text  # operator's actions not shown


async def test_an_operator_bans_after_confirming_and_the_refresh_is_refused_at_once(issuer, accounts) -> None:
    session = accounts.sign_up("Rowena")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        path = f"/players/{session.player_id}/ban"
        fields = {"reason": "cheating", "until": NEXT_YEAR, "why": "ticket 123"}
        asked = await post(c, path, **fields)
        assert asked.status_code == 200 and "Yes, ban" in asked.text
        assert "Banned" not in (await c.http.get(f"/players/{session.player_id}")).text  # asked, not done
        done = await post(c, path, confirmed="yes", **fields)
        assert done.status_code == 303
        assert refresh_code(accounts, session) == grpc.StatusCode.PERMISSION_DENIED
        page = await c.http.get(f"/players/{session.player_id}")
        assert "Banned." in page.text and "cheating" in page.text


async def test_a_support_member_cannot_ban_even_by_posting_the_form(issuer, accounts) -> None:
    session = accounts.sign_up("Sigrid")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sam", "Sam Support", ("dominoes-support",))
        refused = await post(c, f"/players/{session.player_id}/ban", reason="x", until=NEXT_YEAR, why="y",
                             confirmed="yes")
        assert refused.status_code == 403
        assert refresh_code(accounts, session) == grpc.StatusCode.OK


async def test_an_action_without_a_why_is_refused_and_changes_nothing(issuer, accounts) -> None:
    session = accounts.sign_up("Tamsin")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        refused = await post(c, f"/players/{session.player_id}/end-sessions", why=" ", confirmed="yes")
        assert refused.status_code == 400 and "Why is required" in refused.text
        assert refresh_code(accounts, session) == grpc.StatusCode.OK


async def test_a_ban_until_a_past_day_is_refused(issuer, accounts) -> None:
    session = accounts.sign_up("Ulla")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        refused = await post(c, f"/players/{session.player_id}/ban", reason="r", until="2001-01-01", why="w",
                             confirmed="yes")
        assert refused.status_code == 400 and "future" in refused.text
        assert refresh_code(accounts, session) == grpc.StatusCode.OK


async def test_support_ends_a_players_sessions(issuer, accounts) -> None:
    session = accounts.sign_up("Vanya")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sam", "Sam Support", ("dominoes-support",))
        done = await post(c, f"/players/{session.player_id}/end-sessions", why="lost phone", confirmed="yes")
        assert done.status_code == 303
        assert refresh_code(accounts, session) != grpc.StatusCode.OK


async def test_support_downloads_a_players_data(issuer, accounts) -> None:
    session = accounts.sign_up("Wilma")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sam", "Sam Support", ("dominoes-support",))
        export = await post(c, f"/players/{session.player_id}/export", why="subject access request",
                            confirmed="yes")
        assert export.status_code == 200 and "attachment" in export.headers["content-disposition"]
        assert "Wilma" in json.dumps(json.loads(export.content))


async def test_an_unknown_player_is_a_not_found_page(issuer, accounts) -> None:
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sam", "Sam Support", ("dominoes-support",))
        assert (await c.http.get("/players/no-such-player")).status_code in (400, 404)


async def test_the_log_shows_and_exports_each_action_with_who_and_why(issuer, accounts) -> None:
    session = accounts.sign_up("Xena")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        await post(c, f"/players/{session.player_id}/end-sessions", why="ticket 77", confirmed="yes")
        page = await c.http.get("/log", params={"target": session.player_id})
        assert page.status_code == 200 and "ticket 77" in page.text and "Olive Ops" in page.text
        everything = await c.http.get("/log")
        assert "console.sign_in" in everything.text
        export = await c.http.get("/log/export", params={"target": session.player_id})
        lines = [json.loads(line) for line in export.text.splitlines()]
        assert lines and all(line["target"] == session.player_id for line in lines)
        assert re.fullmatch(r"[0-9a-f]{64}", lines[0]["hash"])


async def test_an_auditor_reads_the_log_but_may_not_export_a_player(issuer, accounts) -> None:
    session = accounts.sign_up("Yusuf")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("ada", "Ada Auditor", ("dominoes-audit",))
        assert (await c.http.get("/log")).status_code == 200
        refused = await post(c, f"/players/{session.player_id}/export", why="curious", confirmed="yes")
        assert refused.status_code == 403


async def test_an_operator_unbans_a_banned_player(issuer, accounts) -> None:
    session = accounts.sign_up("Zora")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        await post(c, f"/players/{session.player_id}/ban", reason="r", until=NEXT_YEAR, why="w", confirmed="yes")
        page = (await c.http.get(f"/players/{session.player_id}")).text
        assert f"/players/{session.player_id}/unban" in page and f"/players/{session.player_id}/ban\"" not in page
        unbanned = await post(c, f"/players/{session.player_id}/unban", why="appeal won", confirmed="yes")
        assert unbanned.status_code == 303
        assert refresh_code(accounts, session) == grpc.StatusCode.OK


async def test_an_operator_deletes_an_account_after_confirming(issuer, accounts) -> None:
    session = accounts.sign_up("Abel")
    async with players_console(issuer, accounts) as c:
        await c.sign_in("olive", "Olive Ops", ("dominoes-ops",))
        asked = await post(c, f"/players/{session.player_id}/delete", why="the player asked by mail")
        assert "cannot be undone" in asked.text
        assert (await post(c, f"/players/{session.player_id}/delete", why="the player asked by mail",
                           confirmed="yes")).status_code == 303
        assert refresh_code(accounts, session) != grpc.StatusCode.OK
        found = await c.http.get("/players", params={"q": session.player_id})
        assert "Abel" not in found.text


async def test_sign_ins_and_sign_outs_are_in_the_operator_log(issuer, accounts) -> None:
    async with players_console(issuer, accounts) as c:
        await c.sign_in("sid", "Sid Support", ("dominoes-support",))
        await post(c, "/sign-out")
        await c.sign_in("sid", "Sid Support", ("dominoes-support",))
        entries = [json.loads(line) for line in (await c.http.get("/log/export")).text.splitlines()]
        mine = [e["action"] for e in entries if e["staff_id"] == "oidc|sid"]
        assert mine[:3] == ["console.sign_in", "console.sign_out", "console.sign_in"]


async def test_a_service_that_says_slow_down_is_a_429_not_a_failure(issuer, tmp_path) -> None:
    from services.common.config import Settings

    slow = Settings.model_construct(command_rate=0.001, command_burst=2, sign_ins_per_minute=1e9)  # the sign-in's entry, one search
    with running_accounts(tmp_path, settings=slow) as limited:
        async with players_console(issuer, limited) as c:
            await c.sign_in("sam", "Sam Support", ("dominoes-support",))
            codes = [(await c.http.get("/players", params={"q": "anyone"})).status_code for _ in range(3)]
    assert codes[0] == 200 and codes[-1] == 429
