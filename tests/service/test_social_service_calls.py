"""The services' calls over real gRPC (a real SocialService beside a real AccountService):
PostNotifications and who it skips, CheckRelations, and ClaimPush deciding once per
notification with the recipient's phones registered through RegisterPushToken."""

from __future__ import annotations

import uuid

import pytest

from domino.social.v1 import social_service_pb2 as pb
from tests.support.keys import auth

from .account_harness import bearer
from .social_harness import running_social

NOTIFIER = auth("notifier", "service")
MATCHMAKING = auth("matchmaking", "service")
ACCOUNTS = auth("accounts", "account")
_names = iter(range(10**6))


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_social(tmp_path_factory.mktemp("social-calls")) as service:
        yield service


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Calls {next(_names)}")


@pytest.fixture
def bob(svc):
    return svc.sign_up(f"Bob Calls {next(_names)}")


def notice(recipient_id: str, kind=pb.NOTIFICATION_KIND_INVITE, about: str = "p-inviter", key="notice.invite",
           **fields) -> pb.NewNotification:
    return pb.NewNotification(notification_id=str(uuid.uuid4()), recipient_player_id=recipient_id, kind=kind,
                              text_key=key, player_id=about, **fields)


def posted(svc, *notices, metadata=MATCHMAKING) -> int:
    return svc.stub.PostNotifications(pb.PostNotificationsRequest(notifications=notices), metadata=metadata).stored


def inbox(svc, who):
    return svc.stub.ListNotifications(pb.ListNotificationsRequest(), metadata=bearer(who)).notifications


@pytest.mark.parametrize("metadata, kind", [
    (NOTIFIER, pb.NOTIFICATION_KIND_YOUR_TURN), (NOTIFIER, pb.NOTIFICATION_KIND_MATCH_RESULT),
    (NOTIFIER, pb.NOTIFICATION_KIND_RATING_CHANGE), (MATCHMAKING, pb.NOTIFICATION_KIND_INVITE),
    (MATCHMAKING, pb.NOTIFICATION_KIND_REMATCH), (MATCHMAKING, pb.NOTIFICATION_KIND_INVITE_ANSWERED),
    (ACCOUNTS, pb.NOTIFICATION_KIND_BAN), (ACCOUNTS, pb.NOTIFICATION_KIND_ACCOUNT)],
    ids=["notifier-turn", "notifier-result", "notifier-rating", "matchmaking-invite", "matchmaking-rematch",
         "matchmaking-answer", "accounts-ban", "accounts-account"])
def test_each_poster_may_post_its_own_kinds(svc, ann, metadata, kind):
    assert posted(svc, notice(ann.player_id, kind=kind), metadata=metadata) == 1


def test_a_notification_posted_twice_is_stored_once(svc, ann):
    n = notice(ann.player_id, room_id="room-1", invite_id="inv-1", args={"room_code": "ABCD1234"})
    assert posted(svc, n) == 1 and posted(svc, n) == 0
    [kept] = inbox(svc, ann)
    assert (kept.notification_id, kept.room_id, kept.invite_id, dict(kept.args)) == (
        n.notification_id, "room-1", "inv-1", {"room_code": "ABCD1234"})


def test_a_bot_recipient_is_skipped(svc):
    assert posted(svc, notice("bot:greedy:1")) == 0


def test_an_invite_from_a_player_the_recipient_blocks_is_dropped(svc, ann, bob):
    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    assert posted(svc, notice(ann.player_id, about=bob.player_id)) == 0
    assert posted(svc, notice(ann.player_id, kind=pb.NOTIFICATION_KIND_MATCH_RESULT, about=bob.player_id),
                  metadata=NOTIFIER) == 1


def test_an_erased_recipient_gets_no_new_notification(svc, ann):
    svc.stub.ErasePlayer(pb.ErasePlayerRequest(player_id=ann.player_id), metadata=ACCOUNTS)
    assert posted(svc, notice(ann.player_id)) == 0
    assert ann.player_id not in str(svc.social.store.dump())


def test_check_relations_says_friends_and_blocks_either_way(svc, ann, bob):
    cat, dan = svc.sign_up(f"Cat Calls {next(_names)}"), svc.sign_up(f"Dan Calls {next(_names)}")
    svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="r", display_name=bob.display_name),
                               metadata=bearer(ann))
    svc.stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=ann.player_id), metadata=bearer(bob))
    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=ann.player_id), metadata=bearer(cat))
    reply = svc.stub.CheckRelations(pb.CheckRelationsRequest(player_id=ann.player_id, others=[
        bob.player_id, cat.player_id, dan.player_id]), metadata=MATCHMAKING)
    assert [(r.player_id, r.friends, r.blocked) for r in reply.relations] == [
        (bob.player_id, True, False), (cat.player_id, False, True), (dan.player_id, False, False)]


def test_the_match_service_may_check_relations(svc, ann, bob):
    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    reply = svc.stub.CheckRelations(pb.CheckRelationsRequest(player_id=bob.player_id, others=[ann.player_id]),
                                    metadata=auth("match", "service"))
    assert [(r.player_id, r.friends, r.blocked) for r in reply.relations] == [(ann.player_id, False, True)]


def claim(svc, notification_id: str, claim_id: str = "") -> pb.ClaimPushResponse:
    return svc.stub.ClaimPush(pb.ClaimPushRequest(notification_id=notification_id, claim_id=claim_id),
                              metadata=NOTIFIER)


def test_a_claim_sends_to_the_recipients_phones_with_both_names_then_later_claims_are_told(svc, ann, bob):
    svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(installation_id=str(uuid.uuid4()),
                                                           platform=pb.PUSH_PLATFORM_FCM, token="fcm-token-1",
                                                           locale="es-ES"), metadata=bearer(ann))
    n = notice(ann.player_id, about=bob.player_id)
    posted(svc, n)
    first = claim(svc, n.notification_id)
    assert first.decision == pb.PUSH_DECISION_SEND and first.recipient_player_id == ann.player_id
    assert [(t.platform, t.token, t.locale) for t in first.targets] == [(pb.PUSH_PLATFORM_FCM, "fcm-token-1", "es-ES")]
    assert dict(first.display_names) == {ann.player_id: ann.display_name, bob.player_id: bob.display_name}
    assert first.notification.notification_id == n.notification_id
    assert claim(svc, n.notification_id).decision == pb.PUSH_DECISION_ALREADY_CLAIMED


def test_the_retry_of_the_claim_that_took_a_notification_is_answered_as_it_was(svc, ann):
    """The notifier's reply lost to its deadline: the redelivered notice claims again under
    the same claim id and still gets the phones; any other claim is told it was claimed."""
    svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(installation_id=str(uuid.uuid4()),
                                                           platform=pb.PUSH_PLATFORM_FCM, token="fcm-token-2",
                                                           locale="es-ES"), metadata=bearer(ann))
    n = notice(ann.player_id)
    posted(svc, n)
    first = claim(svc, n.notification_id, "stream:41")
    again = claim(svc, n.notification_id, "stream:41")
    assert first.decision == again.decision == pb.PUSH_DECISION_SEND
    assert [t.token for t in again.targets] == ["fcm-token-2"]
    assert claim(svc, n.notification_id, "stream:42").decision == pb.PUSH_DECISION_ALREADY_CLAIMED
    assert claim(svc, n.notification_id).decision == pb.PUSH_DECISION_ALREADY_CLAIMED


def test_the_retry_of_a_claim_that_was_not_sent_is_not_sent_either(svc, ann):
    n = notice(ann.player_id)
    posted(svc, n)
    assert claim(svc, n.notification_id, "stream:7").decision == pb.PUSH_DECISION_NO_TOKENS
    svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(installation_id=str(uuid.uuid4()),
                                                           platform=pb.PUSH_PLATFORM_FCM, token="fcm-token-3",
                                                           locale="es-ES"), metadata=bearer(ann))
    assert claim(svc, n.notification_id, "stream:7").decision == pb.PUSH_DECISION_NO_TOKENS


def test_a_claim_of_a_recipient_without_phones_is_no_tokens(svc, ann):
    n = notice(ann.player_id)
    posted(svc, n)
    assert claim(svc, n.notification_id).decision == pb.PUSH_DECISION_NO_TOKENS


def test_a_claim_of_an_unknown_or_read_notification_is_gone(svc, ann):
    assert claim(svc, str(uuid.uuid4())).decision == pb.PUSH_DECISION_GONE
    n = notice(ann.player_id)
    posted(svc, n)
    svc.stub.MarkNotificationsRead(pb.MarkNotificationsReadRequest(all=True), metadata=bearer(ann))
    assert claim(svc, n.notification_id).decision == pb.PUSH_DECISION_GONE
