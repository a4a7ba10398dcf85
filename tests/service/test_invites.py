"""Invites to rooms over real gRPC: matchmaking asks a real social service who is a friend
(friendships and blocks made through its own RPCs) and posts what it tells to the players'
real inboxes; players sign in through a real account service; rooms start real matches.
The module's tests share one system; each makes players of its own."""

from __future__ import annotations

import threading
import uuid

import grpc
import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.social.v1 import social_service_pb2 as social_pb
from services.matchmaking.notice_posting import NoticePosting
from services.matchmaking.notices import RoomNotices
from services.matchmaking.plumbing import Observer
from tests.support.errors import refusal

from .account_harness import bearer
from .invites_harness import code_and_reason, running_friends


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("invites")) as running:
        yield running


@pytest.fixture
def ann_and_bob(friends):
    """Two friends, and Ann's open block-4 room (Ann at seat 0)."""
    ann, bob = friends.player("Ann"), friends.player("Bob")
    friends.befriend(ann, bob)
    return ann, bob, friends.create_room(ann)


def notices_of(friends, who, kind) -> list[social_pb.Notification]:
    return [n for n in friends.inbox(who) if n.kind == kind]


def test_a_friend_invited_finds_the_invite_in_their_inbox_at_once(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    assert (invite.player_id, invite.invited_by, invite.kind, invite.status) == \
           (bob.player_id, ann.player_id, pb.INVITE_KIND_ROOM, pb.INVITE_STATUS_PENDING)
    [notice] = notices_of(friends, bob, social_pb.NOTIFICATION_KIND_INVITE)
    assert (notice.text_key, notice.invite_id, notice.room_id, notice.player_id) == \
           ("notice.invite", invite.invite_id, room.room_id, ann.player_id)
    assert dict(notice.args) == {"rules": "egyptian", "variant": "block-4", "inviter": ann.player_id}
    assert notice.expires_at == invite.expires_at


def test_an_invite_expires_the_invite_ttl_after_it_was_sent(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    assert invite.expires_at.seconds - invite.sent_at.seconds == 600


def test_a_player_who_is_not_a_friend_is_refused_and_nothing_is_stored(friends, ann_and_bob):
    ann, _, room = ann_and_bob
    stranger = friends.player("Stranger")
    before = friends.stored()
    assert code_and_reason(lambda: friends.invite(ann, room.room_id, stranger)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "NOT_FRIENDS")
    assert friends.stored() == before
    assert notices_of(friends, stranger, social_pb.NOTIFICATION_KIND_INVITE) == []


def test_a_block_either_way_is_refused_as_not_being_friends_with_the_same_words(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    stranger = friends.player("Stranger")
    with pytest.raises(grpc.RpcError) as not_friends:
        friends.invite(ann, room.room_id, stranger, request_id="i-stranger")
    friends.block(bob, ann)
    with pytest.raises(grpc.RpcError) as blocked:
        friends.invite(ann, room.room_id, bob, request_id="i-bob")
    first, second = refusal(not_friends.value), refusal(blocked.value)
    assert (second.code, second.reason) == (first.code, first.reason) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "NOT_FRIENDS")
    assert second.message.replace(bob.player_id, "X") == first.message.replace(stranger.player_id, "X")
    assert "block" not in second.message


def test_inviting_a_player_again_answers_the_pending_invite_and_tells_them_once(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [first] = friends.invite(ann, room.room_id, bob, request_id="i-1")
    [again] = friends.invite(ann, room.room_id, bob, request_id="i-2")
    assert again.invite_id == first.invite_id and again.status == pb.INVITE_STATUS_PENDING
    assert len(notices_of(friends, bob, social_pb.NOTIFICATION_KIND_INVITE)) == 1


def test_the_same_request_again_answers_as_the_first_time_and_stores_nothing(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [first] = friends.invite(ann, room.room_id, bob, request_id="i-1")
    before = friends.stored()
    [again] = friends.invite(ann, room.room_id, bob, request_id="i-1")
    assert again == first and friends.stored() == before


def test_inviting_a_pending_invitee_again_with_a_fresh_request_id_stores_nothing(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    friends.invite(ann, room.room_id, bob, request_id="i-1")
    before = friends.stored()
    for n in range(2, 6):
        friends.invite(ann, room.room_id, bob, request_id=f"i-{n}")
    assert friends.stored() == before


def test_more_invites_pending_than_free_seats_are_refused(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    cat, dan, eve = friends.player("Cat"), friends.player("Dan"), friends.player("Eve")
    for other in (cat, dan, eve):
        friends.befriend(ann, other)
    friends.invite(ann, room.room_id, bob, cat, dan)
    before = friends.stored()
    assert code_and_reason(lambda: friends.invite(ann, room.room_id, eve, request_id="i-2")) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "TOO_MANY_INVITES")
    assert friends.stored() == before


def test_a_member_who_is_not_the_host_may_invite_their_own_friends(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    cat = friends.player("Cat")
    friends.stub.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=bearer(bob))
    friends.befriend(bob, cat)
    [invite] = friends.invite(bob, room.room_id, cat)
    assert invite.invited_by == bob.player_id


def test_a_player_outside_the_room_may_not_invite(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    assert code_and_reason(lambda: friends.invite(bob, room.room_id, ann)) == \
           (grpc.StatusCode.PERMISSION_DENIED, "NOT_IN_ROOM")


def test_accepting_seats_the_invitee_and_the_host_sees_it_in_watch_room(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    stream = friends.stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=bearer(ann), timeout=10)
    try:
        for update in stream:
            if update.room.invites:
                assert [(i.player_id, i.status) for i in update.room.invites] == \
                       [(bob.player_id, pb.INVITE_STATUS_PENDING)]
                break
        answered = friends.answer(bob, invite.invite_id)
        assert answered.invite.status == pb.INVITE_STATUS_ACCEPTED
        assert answered.room.seats[1].player_id == bob.player_id
        for update in stream:
            if update.room.seats[1].player_id == bob.player_id:
                assert [i.status for i in update.room.invites] == [pb.INVITE_STATUS_ACCEPTED]
                break
    finally:
        stream.cancel()
    where = friends.stub.GetPresence(pb.GetPresenceRequest(), metadata=bearer(bob))
    assert where.room.room_id == room.room_id


def test_the_inviter_is_told_an_accepted_invite(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    friends.answer(bob, invite.invite_id)
    [notice] = notices_of(friends, ann, social_pb.NOTIFICATION_KIND_INVITE_ANSWERED)
    assert (notice.text_key, dict(notice.args), notice.player_id, notice.invite_id) == \
           ("notice.invite_accepted", {"answer": "accepted", "invitee": bob.player_id}, bob.player_id,
            invite.invite_id)


def test_declining_seats_nobody_and_tells_the_inviter(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    answered = friends.answer(bob, invite.invite_id, accept=False)
    assert answered.invite.status == pb.INVITE_STATUS_DECLINED and not answered.HasField("room")
    assert [s.player_id for s in friends.room(ann, room.room_id).seats] == [ann.player_id, "", "", ""]
    [notice] = notices_of(friends, ann, social_pb.NOTIFICATION_KIND_INVITE_ANSWERED)
    assert notice.text_key == "notice.invite_declined" and notice.args["answer"] == "declined"


def test_answering_again_the_same_way_answers_as_the_first_time(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    first = friends.answer(bob, invite.invite_id)
    before = friends.stored()
    again = friends.answer(bob, invite.invite_id)
    assert again.invite == first.invite and again.room.seats == first.room.seats
    assert friends.stored() == before


@pytest.mark.parametrize("first, then", [(True, False), (False, True)])
def test_answering_the_other_way_is_refused_as_expired(friends, ann_and_bob, first, then):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    friends.answer(bob, invite.invite_id, accept=first)
    assert code_and_reason(lambda: friends.answer(bob, invite.invite_id, accept=then)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "INVITE_EXPIRED")


def test_an_invite_expires_when_its_room_starts(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    for _ in range(3):
        friends.stub.AddBot(pb.AddBotRequest(room_id=room.room_id), metadata=bearer(ann))
    friends.stub.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=bearer(ann))
    assert friends.get_invite(bob, invite.invite_id).invite.status == pb.INVITE_STATUS_EXPIRED
    assert code_and_reason(lambda: friends.answer(bob, invite.invite_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "INVITE_EXPIRED")


def test_an_invite_expires_when_the_host_leaves(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    friends.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=bearer(ann))
    assert code_and_reason(lambda: friends.answer(bob, invite.invite_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "INVITE_EXPIRED")


def test_an_invite_expires_once_its_time_has_passed(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    friends.system.clock.advance(600)
    assert friends.get_invite(bob, invite.invite_id).invite.status == pb.INVITE_STATUS_EXPIRED
    assert code_and_reason(lambda: friends.answer(bob, invite.invite_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "INVITE_EXPIRED")


def test_an_expired_invite_no_longer_holds_a_free_seat(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    cat, dan, eve = friends.player("Cat"), friends.player("Dan"), friends.player("Eve")
    for other in (cat, dan, eve):
        friends.befriend(ann, other)
    friends.invite(ann, room.room_id, bob, cat, dan)
    friends.system.clock.advance(600)
    [invite] = friends.invite(ann, room.room_id, eve, request_id="i-2")
    assert invite.status == pb.INVITE_STATUS_PENDING


def test_an_invitee_seated_elsewhere_is_refused_and_the_invite_stays_pending(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    friends.create_room(bob, request_id="bobs-own")
    assert code_and_reason(lambda: friends.answer(bob, invite.invite_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_SEATED")
    assert friends.get_invite(bob, invite.invite_id).invite.status == pb.INVITE_STATUS_PENDING


def test_the_invitee_reads_the_room_without_its_code_and_a_member_with_it(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    as_invitee = friends.get_invite(bob, invite.invite_id)
    assert as_invitee.invite == invite
    assert as_invitee.room.room_id == room.room_id and as_invitee.room.code == ""
    assert [s.player_id for s in as_invitee.room.seats][0] == ann.player_id
    assert friends.get_invite(ann, invite.invite_id).room.code == room.code


def test_nobody_else_may_read_or_answer_an_invite(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    other = friends.player("Other")
    assert code_and_reason(lambda: friends.get_invite(other, invite.invite_id)) == \
           (grpc.StatusCode.NOT_FOUND, "INVITE_NOT_FOUND")
    assert code_and_reason(lambda: friends.answer(other, invite.invite_id)) == \
           (grpc.StatusCode.NOT_FOUND, "INVITE_NOT_FOUND")
    assert code_and_reason(lambda: friends.answer(ann, invite.invite_id)) == \
           (grpc.StatusCode.NOT_FOUND, "INVITE_NOT_FOUND")


def test_two_invitees_accepting_the_last_free_seat_at_once_seat_one_and_the_other_waits(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    cat, dan = friends.player("Cat"), friends.player("Dan")
    friends.befriend(ann, cat)
    bob_invite, cat_invite = friends.invite(ann, room.room_id, bob, cat)
    friends.stub.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=bearer(dan))
    friends.stub.AddBot(pb.AddBotRequest(room_id=room.room_id), metadata=bearer(ann))  # one free seat left
    outcomes: dict[str, tuple] = {}
    go = threading.Barrier(2)

    def accept(who, invite):
        go.wait()
        outcomes[who.player_id] = code_and_reason(lambda: friends.answer(who, invite.invite_id))

    threads = [threading.Thread(target=accept, args=a) for a in ((bob, bob_invite), (cat, cat_invite))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted((code.name, reason) for code, reason in outcomes.values()) == \
           [("FAILED_PRECONDITION", "ROOM_FULL"), ("OK", "")]
    loser = bob if outcomes[bob.player_id][0] != grpc.StatusCode.OK else cat
    seated = {s.player_id for s in friends.room(ann, room.room_id).seats}
    assert loser.player_id not in seated and len(seated) == 4
    loser_invite = bob_invite if loser is bob else cat_invite
    assert friends.get_invite(loser, loser_invite.invite_id).invite.status == pb.INVITE_STATUS_PENDING


def test_an_invite_is_refused_unavailable_while_the_social_service_is_away_and_nothing_is_stored(friends,
                                                                                              ann_and_bob):
    ann, bob, room = ann_and_bob
    before = friends.stored()
    with friends.social_away():
        with pytest.raises(grpc.RpcError) as caught:
            friends.invite(ann, room.room_id, bob)
    told = refusal(caught.value)
    assert (told.code, told.reason, told.domain) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE", "domino.matchmaking")
    assert told.retry_after and told.retry_after > 0
    assert friends.stored() == before


def test_an_answer_given_while_the_social_service_is_away_is_told_once_it_is_back(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    with friends.social_away():
        answered = friends.answer(bob, invite.invite_id)
        assert answered.invite.status == pb.INVITE_STATUS_ACCEPTED
    assert notices_of(friends, ann, social_pb.NOTIFICATION_KIND_INVITE_ANSWERED) == []
    friends.system.app.pending_starts.follow_store()
    friends.system.app.notices.step()
    [notice] = notices_of(friends, ann, social_pb.NOTIFICATION_KIND_INVITE_ANSWERED)
    assert notice.invite_id == invite.invite_id


def test_a_notice_the_social_service_refuses_is_dropped_and_the_rooms_other_notices_are_posted(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    with friends.social_away():
        friends.answer(bob, invite.invite_id)
    outbox_id = RoomNotices.create_id(room.room_id)
    outbox = friends.system.app.store.load_saved(RoomNotices, outbox_id)
    outbox.queue({**next(iter(outbox.pending.values())), "id": str(uuid.uuid4()), "text_key": "Not a key!"})
    friends.system.app.store.save_changes(outbox)
    assert friends.system.app.notices.post(outbox_id) is True
    [notice] = notices_of(friends, ann, social_pb.NOTIFICATION_KIND_INVITE_ANSWERED)
    assert notice.invite_id == invite.invite_id
    assert friends.system.app.store.load_saved(RoomNotices, outbox_id).pending == {}


def test_a_notice_the_social_service_refuses_is_counted_as_refused(friends, ann_and_bob):
    ann, bob, room = ann_and_bob
    [invite] = friends.invite(ann, room.room_id, bob)
    outbox_id = RoomNotices.create_id(room.room_id)
    outbox = friends.system.app.store.load_saved(RoomNotices, outbox_id)
    outbox.queue({"id": str(uuid.uuid4()), "recipient": bob.player_id, "kind": "INVITE", "text_key": "Not a key!",
                  "args": {}, "player_id": ann.player_id, "match_id": "", "room_id": room.room_id,
                  "invite_id": invite.invite_id, "expires_at": None})
    friends.system.app.store.save_changes(outbox)

    class Counted(Observer):
        refused = 0

        def notice_refused(self) -> None:
            self.refused += 1

    counted = Counted()
    assert NoticePosting(friends.system.app.store, friends.client, counted).post(outbox_id) is True
    assert counted.refused == 1
