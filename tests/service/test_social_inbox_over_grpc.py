"""The inbox over real gRPC: a real SocialService beside a real AccountService (SQLite
files), players signed in with real devices; notifications posted by the social service's
own use cases and by services' PostNotifications, listed, marked read, streamed, expired."""

from __future__ import annotations

import queue
import threading
import uuid

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import mint_token
from services.social.inbox import STREAM_BATCH
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .account_harness import bearer
from .social_harness import running_social

ACCOUNTS = auth("accounts", "account")
NOTIFIER = auth("notifier", "service")
_names = iter(range(10**6))


@pytest.fixture(scope="module")
def clock():
    return Clock(1_900_000_000.0)


@pytest.fixture(scope="module")
def svc(tmp_path_factory, clock):
    with running_social(tmp_path_factory.mktemp("social-inbox"), clock=clock, social_inbox_streams_per_player=2,
                        watch_poll_seconds=30.0) as service:
        yield service


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Inbox {next(_names)}")


@pytest.fixture
def bob(svc):
    return svc.sign_up(f"Bob Inbox {next(_names)}")


def post(svc, recipient, kind=pb.NOTIFICATION_KIND_ACCOUNT, key="notice.account.device_added", **fields):
    n = pb.NewNotification(notification_id=str(uuid.uuid4()), recipient_player_id=recipient.player_id, kind=kind,
                           text_key=key, **fields)
    poster = ACCOUNTS if kind == pb.NOTIFICATION_KIND_ACCOUNT else NOTIFIER
    svc.stub.PostNotifications(pb.PostNotificationsRequest(notifications=[n]), metadata=poster)
    return n.notification_id


def listed(svc, who, **request):
    return svc.stub.ListNotifications(pb.ListNotificationsRequest(**request), metadata=bearer(who))


def test_a_friend_request_tells_the_recipient_and_its_acceptance_tells_the_sender(svc, ann, bob):
    svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="r", display_name=bob.display_name),
                               metadata=bearer(ann))
    [request] = listed(svc, bob).notifications
    assert (request.kind, request.text_key, request.player_id, request.read) == (
        pb.NOTIFICATION_KIND_FRIEND_REQUEST, "notice.friend_request", ann.player_id, False)
    svc.stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=ann.player_id), metadata=bearer(bob))
    [accepted] = listed(svc, ann).notifications
    assert (accepted.kind, accepted.text_key, accepted.player_id) == (
        pb.NOTIFICATION_KIND_FRIEND_ACCEPTED, "notice.friend_accepted", bob.player_id)


def test_pages_follow_each_other_newest_first_with_the_unread_count(svc, clock, ann):
    ids = []
    for _ in range(5):
        ids.append(post(svc, ann))
        clock.advance(1)
    seen, token = [], ""
    while True:
        page = listed(svc, ann, page_size=2, page_token=token)
        assert page.unread_count == 5
        seen += [n.notification_id for n in page.notifications]
        token = page.next_page_token
        if not token:
            break
    assert seen == ids[::-1]


def test_unread_only_lists_the_unread_alone(svc, clock, ann):
    first, second = post(svc, ann), post(svc, ann)
    svc.stub.MarkNotificationsRead(pb.MarkNotificationsReadRequest(notification_ids=[first]), metadata=bearer(ann))
    page = listed(svc, ann, unread_only=True)
    assert [n.notification_id for n in page.notifications] == [second] and page.unread_count == 1


def test_marking_all_read_leaves_no_unread(svc, ann):
    post(svc, ann), post(svc, ann)
    reply = svc.stub.MarkNotificationsRead(pb.MarkNotificationsReadRequest(all=True), metadata=bearer(ann))
    assert reply.unread_count == 0 and all(n.read for n in listed(svc, ann).notifications)


def test_an_unknown_id_among_those_to_mark_marks_none(svc, ann, bob):
    mine, theirs = post(svc, ann), post(svc, bob)
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.MarkNotificationsRead(pb.MarkNotificationsReadRequest(notification_ids=[mine, theirs]),
                                       metadata=bearer(ann))
    assert (caught.value.code(), refusal(caught.value).reason) == (grpc.StatusCode.NOT_FOUND,
                                                                   "NOTIFICATION_NOT_FOUND")
    assert listed(svc, ann).unread_count == 1


def test_an_expired_notification_is_never_listed_and_is_swept(svc, clock, ann):
    soon = post(svc, ann, kind=pb.NOTIFICATION_KIND_YOUR_TURN, key="notice.your_turn",
                expires_at={"seconds": int(clock.now) + 45})
    assert [n.notification_id for n in listed(svc, ann).notifications] == [soon]
    clock.advance(46)
    assert listed(svc, ann).notifications == [] and listed(svc, ann).unread_count == 0
    assert svc.social.inbox.sweep() >= 1
    assert all(soon not in str(row) for row in svc.social.store.dump()["domino_social_notifications"])


def test_a_kind_without_an_expiry_of_its_own_lives_thirty_days(svc, clock, ann):
    post(svc, ann)
    [n] = listed(svc, ann).notifications
    assert n.expires_at.seconds - n.created_at.seconds == 30 * 86400


def watching(svc, who):
    """A WatchNotifications stream read on a thread: (its messages as they come, the call)."""
    call = svc.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=bearer(who))
    got: queue.Queue = queue.Queue()

    def read():
        try:
            for message in call:
                got.put(message)
        except grpc.RpcError as error:
            got.put(error)

    threading.Thread(target=read, daemon=True).start()
    return got, call


def test_a_stream_says_how_things_stand_then_sends_each_new_notification_once(svc, ann):
    post(svc, ann)
    got, call = watching(svc, ann)
    try:
        first = got.get(timeout=10)
        assert not first.HasField("notification") and first.unread_count == 1 and first.server_time.seconds > 0
        new = post(svc, ann)
        message = got.get(timeout=10)
        assert message.notification.notification_id == new and message.unread_count == 2
        again = svc.stub.PostNotifications(pb.PostNotificationsRequest(notifications=[pb.NewNotification(
            notification_id=new, recipient_player_id=ann.player_id, kind=pb.NOTIFICATION_KIND_ACCOUNT,
            text_key="notice.account.device_added")]), metadata=ACCOUNTS)
        assert again.stored == 0
        last = post(svc, ann)
        assert got.get(timeout=10).notification.notification_id == last  # the repeat sent nothing
    finally:
        call.cancel()


def test_a_stream_sends_each_of_more_than_a_batch_stored_in_one_instant(svc, ann):
    got, call = watching(svc, ann)
    try:
        got.get(timeout=10)
        ids = [str(uuid.uuid4()) for _ in range(STREAM_BATCH + 20)]
        for at in range(0, len(ids), 100):
            svc.stub.PostNotifications(pb.PostNotificationsRequest(notifications=[pb.NewNotification(
                notification_id=i, recipient_player_id=ann.player_id, kind=pb.NOTIFICATION_KIND_ACCOUNT,
                text_key="notice.account.device_added") for i in ids[at:at + 100]]), metadata=ACCOUNTS)
        streamed = {got.get(timeout=10).notification.notification_id for _ in ids}
        assert streamed == set(ids)
    finally:
        call.cancel()


def test_a_player_may_hold_only_so_many_streams(svc, ann):
    calls = []
    try:
        for _ in range(2):
            got, call = watching(svc, ann)
            calls.append(call)
            got.get(timeout=10)
        got, call = watching(svc, ann)
        calls.append(call)
        error = got.get(timeout=10)
        assert isinstance(error, grpc.RpcError)
        assert (error.code(), refusal(error).reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STREAM_LIMIT")
    finally:
        for call in calls:
            call.cancel()


def test_a_stream_ends_when_its_token_expires(svc):
    token = mint_token(f"p-{uuid.uuid4()}", KEYS, "player", ttl_seconds=1)
    call = svc.stub.WatchNotifications(pb.WatchNotificationsRequest(), metadata=(("authorization", f"Bearer {token}"),))
    with pytest.raises(grpc.RpcError) as caught:
        for _ in call:
            pass
    assert (caught.value.code(), refusal(caught.value).reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED")
