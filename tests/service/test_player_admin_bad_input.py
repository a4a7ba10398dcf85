"""Every PlayerAdminService RPC refuses bad input, callers who are not staff and staff without
the role it needs, with a clear status and reason, and changes nothing (no operator-log entry
either)."""

from __future__ import annotations

import time
from contextlib import contextmanager

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.admin.v1 import player_admin_service_pb2 as admin
from services.common.auth import KeyRing, mint_token
from tests.support.errors import refusal
from tests.support.keys import auth

from .account_harness import bearer, running_accounts
from .admin_harness import admin_stub, auditor, operator, staff, support, viewer

DAY = 86400
FORGED = (("authorization",
           f"Bearer {mint_token('oidc|x', KeyRing.generate(), 'operator', staff_roles=('operator',))}"),)


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("player-admin-bad")) as service:
        yield service


@pytest.fixture(scope="module")
def stub(svc):
    return admin_stub(svc)


@pytest.fixture(scope="module")
def player(svc):
    return svc.sign_up("Bad Admin Input")


def at(seconds_from_now: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromSeconds(int(time.time() + seconds_from_now))
    return stamp


@contextmanager
def nothing_changed(svc):
    before = svc.app.store.dump()
    yield
    assert svc.app.store.dump() == before, "the refused call changed the store"


def refused(svc, call, code: grpc.StatusCode, reason: str, field: str | None = None) -> None:
    with nothing_changed(svc), pytest.raises(grpc.RpcError) as caught:
        call()
    got = refusal(caught.value)
    assert caught.value.code() == code, caught.value.details()
    assert (got.reason, got.domain) == (reason, "domino.account"), got
    if field is not None:
        assert got.fields == (field,), got


def invalid(svc, call, field: str) -> None:
    refused(svc, call, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST", field)


# Each RPC with a well-formed request for ``player`` (filled in by ``calls``) and a role it needs.
def calls(stub, player_id: str):
    return {
        "FindPlayers": (lambda md: stub.FindPlayers(admin.FindPlayersRequest(query="Bad"), metadata=md), support),
        "DescribePlayer": (lambda md: stub.DescribePlayer(admin.DescribePlayerRequest(player_id=player_id),
                                                          metadata=md), support),
        "BanPlayer": (lambda md: stub.BanPlayer(admin.BanPlayerRequest(player_id=player_id, reason="r",
                                                                       until=at(DAY), why="w"), metadata=md),
                      operator),
        "UnbanPlayer": (lambda md: stub.UnbanPlayer(admin.UnbanPlayerRequest(player_id=player_id, why="w"),
                                                    metadata=md), operator),
        "EndSessions": (lambda md: stub.EndSessions(admin.EndSessionsRequest(player_id=player_id, why="w"),
                                                    metadata=md), support),
        "ExportPlayerData": (lambda md: stub.ExportPlayerData(admin.ExportPlayerDataRequest(player_id=player_id,
                                                                                            why="w"), metadata=md),
                             support),
        "DeletePlayer": (lambda md: stub.DeletePlayer(admin.DeletePlayerRequest(player_id=player_id, why="w"),
                                                      metadata=md), operator),
        "RecordStaffAction": (lambda md: stub.RecordStaffAction(admin.RecordStaffActionRequest(action="console.x"),
                                                                metadata=md), viewer),
        "ListOperatorLog": (lambda md: stub.ListOperatorLog(admin.ListOperatorLogRequest(), metadata=md), auditor),
    }


RPCS = list(calls(None, "").keys())
# Who may not make each call: the roles the proto's comment leaves out.
TOO_LOW = {"FindPlayers": ("viewer", "auditor"), "DescribePlayer": ("viewer", "auditor"),
           "BanPlayer": ("viewer", "support", "auditor"), "UnbanPlayer": ("viewer", "support", "auditor"),
           "EndSessions": ("viewer", "auditor"), "ExportPlayerData": ("viewer", "auditor"),
           "DeletePlayer": ("viewer", "support", "auditor"), "RecordStaffAction": (),
           "ListOperatorLog": ("viewer",)}


# ---- who may call ----------------------------------------------------------------------

@pytest.mark.parametrize("rpc", RPCS)
def test_a_player_token_is_refused_as_the_wrong_caller(svc, stub, player, rpc):
    call, _ = calls(stub, player.player_id)[rpc]
    refused(svc, lambda: call(bearer(player)), grpc.StatusCode.PERMISSION_DENIED, "WRONG_CALLER")


@pytest.mark.parametrize("rpc", RPCS)
def test_a_service_token_is_refused_as_the_wrong_caller(svc, stub, player, rpc):
    call, _ = calls(stub, player.player_id)[rpc]
    refused(svc, lambda: call(auth("matchmaking", "service")), grpc.StatusCode.PERMISSION_DENIED, "WRONG_CALLER")


@pytest.mark.parametrize("rpc", RPCS)
def test_no_token_or_a_forged_one_is_unauthenticated(svc, stub, player, rpc):
    call, _ = calls(stub, player.player_id)[rpc]
    refused(svc, lambda: call(()), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    refused(svc, lambda: call(FORGED), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")


@pytest.mark.parametrize("rpc,role", [(rpc, role) for rpc, roles in TOO_LOW.items() for role in roles])
def test_staff_without_the_role_the_call_needs_are_refused(svc, stub, player, rpc, role):
    call, _ = calls(stub, player.player_id)[rpc]
    refused(svc, lambda: call(staff(role)), grpc.StatusCode.PERMISSION_DENIED, "STAFF_ROLE_TOO_LOW")


def test_a_viewer_is_refused_every_action_on_a_player(svc, stub, player):
    for rpc, (call, _) in calls(stub, player.player_id).items():
        if rpc != "RecordStaffAction":
            refused(svc, lambda: call(viewer()), grpc.StatusCode.PERMISSION_DENIED, "STAFF_ROLE_TOO_LOW")


def test_an_unknown_player_is_not_found(svc, stub):
    for rpc, (call, role) in calls(stub, "no-such-player").items():
        if rpc not in ("FindPlayers", "RecordStaffAction", "ListOperatorLog"):
            refused(svc, lambda: call(role()), grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND")


# ---- bad input, each RPC ---------------------------------------------------------------

@pytest.mark.parametrize("query,page_size,field", [("", 0, "query"), ("   ", 0, "query"), ("x" * 65, 0, "query"),
                                                   ("Bad", -1, "page_size"), ("Bad", 51, "page_size")])
def test_find_players_refuses_a_bad_query_or_page_size(svc, stub, query, page_size, field):
    invalid(svc, lambda: stub.FindPlayers(admin.FindPlayersRequest(query=query, page_size=page_size),
                                          metadata=support()), field)


@pytest.mark.parametrize("player_id", ["", "p" * 201])
def test_describe_player_refuses_a_missing_or_oversized_player_id(svc, stub, player_id):
    invalid(svc, lambda: stub.DescribePlayer(admin.DescribePlayerRequest(player_id=player_id), metadata=support()),
            "player_id")


def ban(stub, named: str, **changes):
    fields = {"player_id": named, "reason": "cheating", "until": at(DAY), "why": "ticket 1", **changes}
    if fields["until"] is None:
        del fields["until"]
    return lambda: stub.BanPlayer(admin.BanPlayerRequest(**fields), metadata=operator())


@pytest.mark.parametrize("changes,field", [
    ({"player_id": ""}, "player_id"), ({"player_id": "p" * 201}, "player_id"),
    ({"reason": ""}, "reason"), ({"reason": "  "}, "reason"), ({"reason": "r" * 201}, "reason"),
    ({"reason": "cheat\x1b[2J"}, "reason"),
    ({"until": None}, "until"), ({"until": "past"}, "until"), ({"until": "eleven years"}, "until"),
    ({"why": ""}, "why"), ({"why": "w" * 501}, "why"),
])
def test_ban_player_refuses_each_bad_field(svc, stub, player, changes, field):
    until = {"past": at(-60), "eleven years": at(11 * 366 * DAY)}.get(changes.get("until"))  # type: ignore[arg-type]
    if until is not None:
        changes = {**changes, "until": until}
    invalid(svc, ban(stub, player.player_id, **changes), field)


@pytest.mark.parametrize("player_id,why,field", [("", "w", "player_id"), ("p" * 201, "w", "player_id"),
                                                 (None, "", "why"), (None, " ", "why"), (None, "w" * 501, "why")])
def test_the_changes_refuse_a_bad_player_id_or_why(svc, stub, player, player_id, why, field):
    target = player.player_id if player_id is None else player_id
    for call in (lambda: stub.UnbanPlayer(admin.UnbanPlayerRequest(player_id=target, why=why), metadata=operator()),
                 lambda: stub.EndSessions(admin.EndSessionsRequest(player_id=target, why=why), metadata=operator()),
                 lambda: stub.ExportPlayerData(admin.ExportPlayerDataRequest(player_id=target, why=why),
                                               metadata=operator()),
                 lambda: stub.DeletePlayer(admin.DeletePlayerRequest(player_id=target, why=why), metadata=operator())):
        invalid(svc, call, field)


@pytest.mark.parametrize("action,target,why,field", [
    ("", "", "", "action"), ("Console.Sign_In", "", "", "action"), ("a" * 65, "", "", "action"),
    ("console sign in", "", "", "action"), ("player.ban", "", "", "action"), ("player.ban.lifted", "", "", "action"),
    ("console.sign_in", "t" * 201, "", "target"), ("console.sign_in", "", "w" * 501, "why"),
    ("console.sign_in", "a\x00b", "", "target"), ("console.sign_in", "", "why\x00", "why"),
])
def test_record_staff_action_refuses_each_bad_field(svc, stub, action, target, why, field):
    invalid(svc, lambda: stub.RecordStaffAction(admin.RecordStaffActionRequest(action=action, target=target, why=why),
                                                metadata=viewer()), field)


@pytest.mark.parametrize("request_fields,field", [
    ({"page_size": -1}, "page_size"), ({"page_size": 201}, "page_size"), ({"target": "t" * 201}, "target"),
    ({"page_token": "not a token"}, "page_token"), ({"page_token": "e30="}, "page_token"),
])
def test_list_operator_log_refuses_a_bad_page_size_target_or_token(svc, stub, request_fields, field):
    invalid(svc, lambda: stub.ListOperatorLog(admin.ListOperatorLogRequest(**request_fields), metadata=support()),
            field)


def test_a_page_token_is_refused_for_another_target(svc, stub):
    for n in range(3):
        stub.RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in", target="t-1"),
                               metadata=viewer())
    token = stub.ListOperatorLog(admin.ListOperatorLogRequest(page_size=1, target="t-1"),
                                 metadata=support()).next_page_token
    assert token
    invalid(svc, lambda: stub.ListOperatorLog(admin.ListOperatorLogRequest(page_token=token, target="t-2"),
                                              metadata=support()), "page_token")
