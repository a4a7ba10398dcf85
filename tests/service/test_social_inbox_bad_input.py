"""The inbox RPCs and the services' calls refuse bad input with their status code and
ErrorInfo reason (domain "domino.social"), naming the field, and change nothing in the
social store: ListNotifications, MarkNotificationsRead, WatchNotifications,
PostNotifications, CheckRelations, ClaimPush."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Any

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from tests.support.errors import refusal
from tests.support.keys import auth

from .account_harness import bearer
from .social_harness import running_social

C = grpc.StatusCode
NOTIFIER = auth("notifier", "service")
FORGED = (("authorization", f"Bearer {mint_token('someone', KeyRing.generate(), 'player')}"),)
_names = iter(range(10**6))


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_social(tmp_path_factory.mktemp("social-inbox-bad")) as service:
        yield service


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Inbad {next(_names)}")


@contextmanager
def nothing_changed(svc):
    before = svc.social.store.dump()
    yield
    assert svc.social.store.dump() == before, "the refused call changed the store"


def refused(svc, code: C, reason: str, call, field: str | None = None) -> None:
    with nothing_changed(svc), pytest.raises(grpc.RpcError) as caught:
        call()
    got = refusal(caught.value)
    assert (caught.value.code(), got.reason, got.domain) == (code, reason, "domino.social"), got
    if field is not None:
        assert got.fields == (field,), got


def watch(svc, metadata):
    return lambda: next(iter(svc.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=metadata)))


def good(recipient: str, **fields) -> pb.NewNotification:
    values: dict[str, Any] = dict(notification_id=str(uuid.uuid4()), recipient_player_id=recipient,
                  kind=pb.NOTIFICATION_KIND_ACCOUNT, text_key="notice.account.device_added")
    values.update(fields)
    return pb.NewNotification(**values)


def post(svc, notices, metadata=auth("accounts", "account")):
    return lambda: svc.stub.PostNotifications(pb.PostNotificationsRequest(notifications=notices), metadata=metadata)


@pytest.mark.parametrize("metadata, reason", [
    ((), "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("notifier", "service"), "WRONG_CALLER"),
    (auth("bot:greedy:1", "bot"), "WRONG_CALLER"), (auth("accounts", "account"), "WRONG_CALLER")],
    ids=["none", "forged", "service", "bot", "account-service"])
def test_the_inbox_stream_refuses_callers_without_a_players_token(svc, metadata, reason):
    refused(svc, C.UNAUTHENTICATED, reason, watch(svc, metadata))


@pytest.mark.parametrize("rpc_name, request_", [
    ("PostNotifications", pb.PostNotificationsRequest()), ("CheckRelations", pb.CheckRelationsRequest()),
    ("ClaimPush", pb.ClaimPushRequest())], ids=["post", "relations", "claim"])
@pytest.mark.parametrize("metadata, reason", [
    ((), "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("someone"), "WRONG_CALLER"),
    (auth("bots", "service"), "WRONG_CALLER"), (auth("social", "service"), "WRONG_CALLER")],
    ids=["none", "forged", "player", "other-service", "itself"])
def test_the_services_calls_refuse_other_callers(svc, rpc_name, request_, metadata, reason):
    refused(svc, C.UNAUTHENTICATED, reason, lambda: getattr(svc.stub, rpc_name)(request_, metadata=metadata))


@pytest.mark.parametrize("rpc_name, subject", [("CheckRelations", "notifier"), ("ClaimPush", "matchmaking")])
def test_each_service_call_is_one_services_alone(svc, rpc_name, subject):
    request = getattr(pb, f"{rpc_name}Request")()
    refused(svc, C.UNAUTHENTICATED, "WRONG_CALLER",
            lambda: getattr(svc.stub, rpc_name)(request, metadata=auth(subject, "service")))


def test_claim_push_refuses_the_account_services_token(svc):
    refused(svc, C.UNAUTHENTICATED, "WRONG_CALLER", lambda: svc.stub.ClaimPush(
        pb.ClaimPushRequest(notification_id=str(uuid.uuid4())), metadata=auth("accounts", "account")))


@pytest.mark.parametrize("fields, field", [
    (dict(page_size=101), "page_size"), (dict(page_size=-1), "page_size"), (dict(page_token="nope"), "page_token"),
], ids=["too-big", "negative", "bad-token"])
def test_list_notifications_refuses_a_page_size_out_of_range_or_a_token_it_did_not_give(svc, ann, fields, field):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.ListNotifications(
        pb.ListNotificationsRequest(**fields), metadata=bearer(ann)), field)


def test_list_notifications_refuses_a_token_of_the_friends_list(svc, ann):
    friends = [svc.sign_up(f"Fay Inbad {next(_names)}") for _ in range(2)]
    for friend in friends:
        svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id=friend.player_id,
                                                               display_name=ann.display_name), metadata=bearer(friend))
        svc.stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=friend.player_id), metadata=bearer(ann))
    token = svc.stub.ListFriends(pb.ListFriendsRequest(page_size=1), metadata=bearer(ann)).next_page_token
    assert token
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.ListNotifications(
        pb.ListNotificationsRequest(page_token=token), metadata=bearer(ann)), "page_token")


def test_an_unread_only_page_token_is_refused_by_the_whole_list(svc, ann):
    for _ in range(2):
        post(svc, [good(ann.player_id)])()
    token = svc.stub.ListNotifications(pb.ListNotificationsRequest(page_size=1, unread_only=True),
                                       metadata=bearer(ann)).next_page_token
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.ListNotifications(
        pb.ListNotificationsRequest(page_token=token), metadata=bearer(ann)), "page_token")


@pytest.mark.parametrize("fields", [dict(), dict(notification_ids=["a"], all=True),
                                    dict(notification_ids=["x"] * 101), dict(notification_ids=[""]),
                                    dict(notification_ids=["x" * 65])],
                         ids=["neither", "both", "too-many", "empty-id", "long-id"])
def test_mark_read_refuses_malformed_ids(svc, ann, fields):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.MarkNotificationsRead(
        pb.MarkNotificationsReadRequest(**fields), metadata=bearer(ann)), "notification_ids")


def test_mark_read_refuses_an_id_of_another_players_inbox(svc, ann):
    bob = svc.sign_up(f"Bob Inbad {next(_names)}")
    theirs = good(bob.player_id)
    post(svc, [theirs])()
    refused(svc, C.NOT_FOUND, "NOTIFICATION_NOT_FOUND", lambda: svc.stub.MarkNotificationsRead(
        pb.MarkNotificationsReadRequest(notification_ids=[theirs.notification_id]), metadata=bearer(ann)))


def test_post_refuses_an_empty_or_oversized_batch(svc):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", post(svc, []), "notifications")
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", post(svc, [good("p")] * 101), "notifications")


@pytest.mark.parametrize("fields, field", [
    (dict(notification_id="not-a-uuid"), "notification_id"), (dict(notification_id=""), "notification_id"),
    (dict(recipient_player_id=""), "recipient_player_id"), (dict(recipient_player_id="p" * 201), "recipient_player_id"),
    (dict(kind=pb.NOTIFICATION_KIND_UNSPECIFIED), "kind"), (dict(kind=99), "kind"),
    (dict(text_key="You have a friend request!"), "text_key"), (dict(text_key="notice."), "text_key"),
    (dict(text_key="notice." + "a" * 61), "text_key"), (dict(text_key="other.key"), "text_key"),
    (dict(args={f"a{i}": "1" for i in range(13)}), "args"), (dict(args={"Bad Name": "1"}), "args"),
    (dict(args={"name": "x" * 201}), "args"), (dict(player_id="p" * 201), "player_id"),
    (dict(match_id="m" * 201), "match_id"), (dict(room_id="r" * 201), "room_id"),
    (dict(invite_id="i" * 201), "invite_id"), (dict(expires_at={"seconds": 4_000_000_000}), "expires_at"),
], ids=["bad-id", "no-id", "no-recipient", "long-recipient", "no-kind", "unknown-kind", "sentence", "empty-key",
        "long-key", "other-key", "many-args", "bad-arg-name", "long-arg", "long-player", "long-match", "long-room",
        "long-invite", "far-expiry"])
def test_post_refuses_each_malformed_field_and_stores_none_of_the_batch(svc, ann, fields, field):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            post(svc, [good(ann.player_id), good(ann.player_id, **fields)]), f"notifications[1].{field}")


@pytest.mark.parametrize("metadata, kind", [
    (NOTIFIER, pb.NOTIFICATION_KIND_INVITE), (NOTIFIER, pb.NOTIFICATION_KIND_BAN),
    (auth("matchmaking", "service"), pb.NOTIFICATION_KIND_YOUR_TURN),
    (auth("matchmaking", "service"), pb.NOTIFICATION_KIND_FRIEND_REQUEST),
    (auth("accounts", "account"), pb.NOTIFICATION_KIND_MATCH_RESULT),
    (auth("accounts", "account"), pb.NOTIFICATION_KIND_FRIEND_ACCEPTED)],
    ids=["notifier-invite", "notifier-ban", "matchmaking-turn", "matchmaking-friend-request", "accounts-result",
         "accounts-friend-accepted"])
def test_post_refuses_a_kind_another_service_tells_of(svc, ann, metadata, kind):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            post(svc, [good(ann.player_id, kind=kind, player_id="p-sender")], metadata), "notifications[0].kind")


def test_post_refuses_a_notification_a_player_sends_without_that_player(svc, ann):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            post(svc, [good(ann.player_id, kind=pb.NOTIFICATION_KIND_INVITE, text_key="notice.invite")],
                 auth("matchmaking", "service")), "notifications[0].player_id")


@pytest.mark.parametrize("fields, field", [
    (dict(others=["x"]), "player_id"), (dict(player_id="p" * 201), "player_id"),
    (dict(player_id="p", others=["x"] * 101), "others"), (dict(player_id="p", others=[""]), "others"),
    (dict(player_id="p", others=["x" * 201]), "others"),
], ids=["no-player", "long-player", "too-many", "empty-other", "long-other"])
def test_check_relations_refuses_malformed_fields(svc, fields, field):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.CheckRelations(
        pb.CheckRelationsRequest(**fields), metadata=auth("matchmaking", "service")), field)


@pytest.mark.parametrize("notification_id", ["", "nope", "x" * 300])
def test_claim_push_refuses_an_id_that_is_no_uuid(svc, notification_id):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.ClaimPush(
        pb.ClaimPushRequest(notification_id=notification_id), metadata=NOTIFIER), "notification_id")


def test_claim_push_refuses_a_claim_id_over_64_characters(svc):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST", lambda: svc.stub.ClaimPush(
        pb.ClaimPushRequest(notification_id=str(uuid.uuid4()), claim_id="x" * 65), metadata=NOTIFIER), "claim_id")
