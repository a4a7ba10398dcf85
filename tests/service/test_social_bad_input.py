"""Every SocialService RPC refuses bad input (no or the wrong kind of token, missing,
oversized or malformed fields, what names no one, what the state does not allow) with its
status code and ErrorInfo reason (domain "domino.social"), and the refusal changes nothing
in the social store but the hour's count of sent requests (docs/social.md)."""

from __future__ import annotations

from contextlib import contextmanager

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from services.social.use_cases import Limits
from tests.support.errors import refusal
from tests.support.keys import auth

from .account_harness import bearer
from .social_harness import running_social

C = grpc.StatusCode
PLAYER_RPCS = ("GetFriendCode", "SendFriendRequest", "AcceptFriendRequest", "DeclineFriendRequest",
               "CancelFriendRequest", "RemoveFriend", "BlockPlayer", "UnblockPlayer", "ListFriends",
               "ListFriendRequests", "ListBlockedPlayers", "ListNotifications", "MarkNotificationsRead")
ACCOUNT_SERVICE_RPCS = ("ExportPlayerData", "ErasePlayer")  # the account service's `account` token alone
# Refused as these are, in files of their own: the inbox stream and the services' calls
# (test_social_inbox_bad_input.py), and the push RPCs.
ELSEWHERE = ("WatchNotifications", "PostNotifications", "CheckRelations", "ClaimPush", "RegisterPushToken",
             "UnregisterPushToken", "GetNotificationSettings", "UpdateNotificationSettings", "ForgetPushToken")
RPCS = PLAYER_RPCS + ACCOUNT_SERVICE_RPCS
EMPTY = {name: getattr(pb, f"{name}Request")() for name in RPCS}
ACCOUNT_SERVICE = auth("accounts", "account")
FORGED = (("authorization", f"Bearer {mint_token('someone', KeyRing.generate(), 'player')}"),)


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_social(tmp_path_factory.mktemp("social-bad"), Limits(friends=2, pending_requests=2,
                                                                      requests_per_hour=1000, blocks=2)) as service:
        yield service


_names = iter(range(10**6))


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Bad {next(_names)}")


@pytest.fixture
def bob(svc):
    return svc.sign_up(f"Bob Bad {next(_names)}")


@contextmanager
def nothing_changed(svc):
    def rows():
        dump = svc.social.store.dump()
        dump.pop("domino_social_sends")  # every send that names someone counts, refused or not
        return dump

    before = rows()
    yield
    assert rows() == before, "the refused call changed the store"


def refused(svc, code: C, reason: str, call, field: str | None = None) -> None:
    with nothing_changed(svc), pytest.raises(grpc.RpcError) as caught:
        call()
    got = refusal(caught.value)
    assert (caught.value.code(), got.reason, got.domain) == (code, reason, "domino.social"), got
    if field is not None:
        assert got.fields == (field,), got


def rpc(svc, name: str, request=None, metadata=()):
    return lambda: getattr(svc.stub, name)(request if request is not None else EMPTY[name], metadata=metadata)


def send(svc, who, request_id: str = "", **target):
    return svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id=request_id or f"r{next(_names)}",
                                                                  **target), metadata=bearer(who))


def test_the_service_covers_every_rpc_of_the_proto():
    assert set(RPCS + ELSEWHERE) == set(pb.DESCRIPTOR.services_by_name["SocialService"].methods_by_name)


@pytest.mark.parametrize("rpc_name", PLAYER_RPCS)
@pytest.mark.parametrize("metadata, reason", [
    ((), "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("social", "service"), "WRONG_CALLER"),
    (auth("bot:greedy:1", "bot"), "WRONG_CALLER"), (ACCOUNT_SERVICE, "WRONG_CALLER")],
    ids=["none", "forged", "service", "bot", "account-service"])
def test_every_rpc_refuses_callers_without_a_players_token(svc, rpc_name, metadata, reason):
    refused(svc, C.UNAUTHENTICATED, reason, rpc(svc, rpc_name, metadata=metadata))


@pytest.mark.parametrize("rpc_name", ["AcceptFriendRequest", "DeclineFriendRequest", "CancelFriendRequest",
                                      "RemoveFriend", "BlockPlayer", "UnblockPlayer"])
@pytest.mark.parametrize("player_id", ["", "x" * 201], ids=["missing", "oversized"])
def test_every_rpc_naming_a_player_refuses_a_missing_or_oversized_player_id(svc, ann, rpc_name, player_id):
    request = getattr(pb, f"{rpc_name}Request")(player_id=player_id)
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", rpc(svc, rpc_name, request, bearer(ann)), "player_id")


@pytest.mark.parametrize("rpc_name", ["ListFriends", "ListFriendRequests", "ListBlockedPlayers"])
@pytest.mark.parametrize("fields, field", [
    (dict(page_size=101), "page_size"), (dict(page_size=-1), "page_size"), (dict(page_token="not-a-token"), "page_token"),
], ids=["too-big", "negative", "bad-token"])
def test_every_list_refuses_a_page_size_out_of_range_or_a_token_it_did_not_give(svc, ann, rpc_name, fields, field):
    request = getattr(pb, f"{rpc_name}Request")(**fields)
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", rpc(svc, rpc_name, request, bearer(ann)), field)


def test_list_friend_requests_refuses_a_direction_it_does_not_know(svc, ann):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", rpc(svc, "ListFriendRequests",
            pb.ListFriendRequestsRequest(direction=99), bearer(ann)), "direction")  # type: ignore[arg-type]


def test_get_friend_code_answers_a_player_the_same_code_twice(svc, ann):
    first = svc.stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(ann)).friend_code
    assert svc.stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(ann)).friend_code == first


@pytest.mark.parametrize("fields, field", [
    (dict(display_name="Someone"), "request_id"), (dict(request_id="r" * 65, display_name="Someone"), "request_id"),
    (dict(request_id="r-none"), "display_name"), (dict(request_id="r-long", display_name="n" * 81), "display_name"),
    (dict(request_id="r-code", friend_code="OOOO-OOOO"), "friend_code"),
    (dict(request_id="r-code", friend_code="2345"), "friend_code"),
], ids=["no-request-id", "long-request-id", "no-target", "long-name", "look-alikes", "short-code"])
def test_send_friend_request_refuses_malformed_fields_in_field_order(svc, ann, fields, field):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", rpc(svc, "SendFriendRequest",
            pb.SendFriendRequestRequest(**fields), bearer(ann)), field)


def test_send_friend_request_refuses_a_request_id_used_for_another_target(svc, ann, bob):
    send(svc, ann, "same-id", display_name=bob.display_name)
    refused(svc, C.INVALID_ARGUMENT, "REQUEST_ID_REUSED", lambda: send(svc, ann, "same-id", friend_code="2222-2222"),
            "request_id")


@pytest.mark.parametrize("target", [dict(display_name="Nobody Has This"), dict(friend_code="ZZZZ-ZZZZ")],
                         ids=["name", "code"])
def test_send_friend_request_to_no_one_is_not_found(svc, ann, target):
    refused(svc, C.NOT_FOUND, "PLAYER_NOT_FOUND", lambda: send(svc, ann, **target))


def test_send_friend_request_to_yourself_is_refused(svc, ann):
    refused(svc, C.FAILED_PRECONDITION, "YOURSELF", lambda: send(svc, ann, display_name=ann.display_name))


def test_send_friend_request_to_a_friend_is_refused(svc, ann, bob):
    send(svc, ann, display_name=bob.display_name)
    send(svc, bob, display_name=ann.display_name)
    refused(svc, C.FAILED_PRECONDITION, "ALREADY_FRIENDS", lambda: send(svc, ann, display_name=bob.display_name))


def test_send_friend_request_to_a_player_you_block_is_refused(svc, ann, bob):
    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    refused(svc, C.FAILED_PRECONDITION, "PLAYER_BLOCKED", lambda: send(svc, ann, display_name=bob.display_name))


def test_send_friend_request_to_your_blocker_is_not_found(svc, ann, bob):
    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    refused(svc, C.NOT_FOUND, "PLAYER_NOT_FOUND", lambda: send(svc, bob, display_name=ann.display_name))


def test_send_friend_request_past_the_pending_limit_is_refused(svc, ann):
    for _ in range(2):
        send(svc, ann, display_name=svc.sign_up(f"Pending {next(_names)}").display_name)
    other = svc.sign_up(f"Pending {next(_names)}")
    refused(svc, C.FAILED_PRECONDITION, "TOO_MANY_PENDING_REQUESTS",
            lambda: send(svc, ann, display_name=other.display_name))


def test_accept_friend_request_past_the_friend_limit_is_refused(svc, ann):
    for _ in range(2):
        friend = svc.sign_up(f"Friend {next(_names)}")
        send(svc, friend, display_name=ann.display_name)
        send(svc, ann, display_name=friend.display_name)
    late = svc.sign_up(f"Friend {next(_names)}")
    send(svc, late, display_name=ann.display_name)
    refused(svc, C.FAILED_PRECONDITION, "TOO_MANY_FRIENDS", rpc(svc, "AcceptFriendRequest",
            pb.AcceptFriendRequestRequest(player_id=late.player_id), bearer(ann)))


@pytest.mark.parametrize("rpc_name", ["AcceptFriendRequest", "DeclineFriendRequest", "CancelFriendRequest"])
def test_answering_or_cancelling_a_request_that_does_not_exist_is_not_found(svc, ann, bob, rpc_name):
    request = getattr(pb, f"{rpc_name}Request")(player_id=bob.player_id)
    refused(svc, C.NOT_FOUND, "FRIEND_REQUEST_NOT_FOUND", rpc(svc, rpc_name, request, bearer(ann)))


def test_remove_friend_and_unblock_of_no_one_answer_that_nothing_changed(svc, ann, bob):
    assert not svc.stub.RemoveFriend(pb.RemoveFriendRequest(player_id=bob.player_id), metadata=bearer(ann)).removed
    assert not svc.stub.UnblockPlayer(pb.UnblockPlayerRequest(player_id=bob.player_id),
                                      metadata=bearer(ann)).unblocked


@pytest.mark.parametrize("player_id", ["0" * 32, "bot:greedy:1"], ids=["unknown", "bot"])
def test_block_player_of_no_person_is_not_found(svc, ann, player_id):
    refused(svc, C.NOT_FOUND, "PLAYER_NOT_FOUND", rpc(svc, "BlockPlayer", pb.BlockPlayerRequest(player_id=player_id),
                                                      bearer(ann)))


def test_block_player_of_yourself_is_refused(svc, ann):
    refused(svc, C.FAILED_PRECONDITION, "YOURSELF", rpc(svc, "BlockPlayer",
            pb.BlockPlayerRequest(player_id=ann.player_id), bearer(ann)))


def test_block_player_past_the_block_limit_is_refused(svc, ann):
    for _ in range(2):
        other = svc.sign_up(f"Blocked {next(_names)}")
        svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=other.player_id), metadata=bearer(ann))
    last = svc.sign_up(f"Blocked {next(_names)}")
    refused(svc, C.FAILED_PRECONDITION, "TOO_MANY_BLOCKS", rpc(svc, "BlockPlayer",
            pb.BlockPlayerRequest(player_id=last.player_id), bearer(ann)))


def test_send_friend_request_past_the_hours_limit_says_when_to_try_again(tmp_path):
    with running_social(tmp_path, Limits(requests_per_hour=1)) as svc:
        ann, bob = svc.sign_up("Ann Hourly"), svc.sign_up("Bob Hourly")
        with pytest.raises(grpc.RpcError):
            send(svc, ann, display_name="Nobody Hourly")
        with pytest.raises(grpc.RpcError) as caught:
            send(svc, ann, display_name=bob.display_name)
        got = refusal(caught.value)
        assert (caught.value.code(), got.reason) == (C.RESOURCE_EXHAUSTED, "FRIEND_REQUESTS_EXHAUSTED")
        assert got.retry_after is not None and 3500 < got.retry_after <= 3600


# ---- the account service's calls: ExportPlayerData and ErasePlayer ----------------------------

@pytest.mark.parametrize("rpc_name", ACCOUNT_SERVICE_RPCS)
@pytest.mark.parametrize("metadata, reason", [
    ((), "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("accounts", "service"), "WRONG_CALLER"),
    (auth("bot:greedy:1", "bot"), "WRONG_CALLER"), (auth("somebody", "player"), "WRONG_CALLER"),
    (auth("matchmaking", "account"), "WRONG_CALLER")],
    ids=["none", "forged", "service", "bot", "player", "account-token-of-another-subject"])
def test_the_account_services_calls_refuse_every_other_caller(svc, ann, rpc_name, metadata, reason):
    request = getattr(pb, f"{rpc_name}Request")(player_id=ann.player_id)
    refused(svc, C.UNAUTHENTICATED, reason, rpc(svc, rpc_name, request, metadata))


def test_a_player_cannot_export_or_erase_even_their_own_social_data(svc, ann):
    for name in ACCOUNT_SERVICE_RPCS:
        request = getattr(pb, f"{name}Request")(player_id=ann.player_id)
        refused(svc, C.UNAUTHENTICATED, "WRONG_CALLER", rpc(svc, name, request, bearer(ann)))


@pytest.mark.parametrize("rpc_name", ACCOUNT_SERVICE_RPCS)
@pytest.mark.parametrize("player_id", ["", "x" * 201, "bot:greedy:1"], ids=["missing", "oversized", "bot"])
def test_the_account_services_calls_refuse_a_missing_oversized_or_bots_player_id(svc, rpc_name, player_id):
    request = getattr(pb, f"{rpc_name}Request")(player_id=player_id)
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", rpc(svc, rpc_name, request, ACCOUNT_SERVICE), "player_id")


def test_export_player_data_of_a_player_the_store_knows_nothing_of_is_empty(svc):
    with nothing_changed(svc):
        reply = svc.stub.ExportPlayerData(pb.ExportPlayerDataRequest(player_id="0" * 32), metadata=ACCOUNT_SERVICE)
    assert reply == pb.ExportPlayerDataResponse()
    assert not reply.HasField("friend_code_created_at")


def test_erase_player_is_idempotent_and_a_second_call_erases_nothing(svc, ann, bob):
    send(svc, ann, display_name=bob.display_name)
    svc.stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(ann))
    first = svc.stub.ErasePlayer(pb.ErasePlayerRequest(player_id=ann.player_id), metadata=ACCOUNT_SERVICE)
    assert first.rows >= 3  # the code, the request, the hour's send, the request id's outcome
    with nothing_changed(svc):
        again = svc.stub.ErasePlayer(pb.ErasePlayerRequest(player_id=ann.player_id), metadata=ACCOUNT_SERVICE)
    assert again.rows == 0
