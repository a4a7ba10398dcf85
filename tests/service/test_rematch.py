"""Rematch over real gRPC: real matches played to their end on a real match service (every
turn times out on the injected clock, then the server plays the seats), a real social
service whose inboxes tell of the REMATCH invites, and a real account service that says who
is gone. The module's tests share one system; each makes players of its own."""

from __future__ import annotations

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as account_pb
from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.social.v1 import social_service_pb2 as social_pb
from services.match.timers import TurnTimer

from .account_harness import bearer
from .invites_harness import code_and_reason, running_friends
from .matchmaking_harness import SERVICE


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("rematch")) as running:
        yield running


def play_out(friends, match_id: str) -> None:
    """Let every turn time out: after two timeouts a seat is away and the server plays it."""
    match = friends.system.match
    timer = TurnTimer(match.app)
    for _ in range(300):
        if friends.system.match_view(match_id).status == match_pb.MATCH_STATUS_ENDED:
            return
        friends.system.clock.advance(91)
        timer.follow_store()
        match.run(timer.step())
    raise AssertionError("the match did not end")


def started_room(friends, host, *guests, variant="draw-2", bots=0) -> pb.RoomView:
    """A room of ``host`` and ``guests`` (joined by code) and ``bots``, started; its match is played."""
    room = friends.create_room(host, variant=variant, target=51, request_id=f"r-{host.player_id}")
    for guest in guests:
        friends.stub.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=bearer(guest))
    for _ in range(bots):
        friends.stub.AddBot(pb.AddBotRequest(room_id=room.room_id), metadata=bearer(host))
    return friends.stub.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=bearer(host)).room


def finished(friends, host, *guests, **room) -> pb.RoomView:
    started = started_room(friends, host, *guests, **room)
    play_out(friends, started.match_id)
    return started


def seats(room: pb.RoomView) -> list[str]:
    return [s.player_id for s in room.seats]


def rematch_invite(friends, who, match_id: str) -> social_pb.Notification:
    [notice] = [n for n in friends.inbox(who) if n.kind == social_pb.NOTIFICATION_KIND_REMATCH
                and n.match_id == match_id]
    return notice


def test_no_rematch_while_the_match_is_played(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    started = started_room(friends, ann, bob)
    before = friends.stored()
    assert code_and_reason(lambda: friends.rematch(ann, started.match_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "REMATCH_NOT_AVAILABLE")
    assert friends.stored() == before


def test_no_rematch_for_a_player_who_had_no_seat(friends):
    ann, bob, cat = friends.player("Ann"), friends.player("Bob"), friends.player("Cat")
    ended = finished(friends, ann, bob)
    before = friends.stored()
    assert code_and_reason(lambda: friends.rematch(cat, ended.match_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "REMATCH_NOT_AVAILABLE")
    assert friends.stored() == before


def test_the_first_asker_sits_in_their_old_seat_with_the_same_options_and_the_other_is_invited(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    room = friends.rematch(bob, ended.match_id)
    assert room.rematch_of_match_id == ended.match_id and room.host_player_id == bob.player_id
    assert seats(room) == ["", bob.player_id] and room.status == pb.ROOM_STATUS_OPEN
    assert room.options == ended.options
    [invite] = room.invites
    assert (invite.kind, invite.player_id, invite.seat, invite.status) == \
           (pb.INVITE_KIND_REMATCH, ann.player_id, 0, pb.INVITE_STATUS_PENDING)
    notice = rematch_invite(friends, ann, ended.match_id)
    assert (notice.text_key, notice.invite_id, notice.room_id, notice.player_id) == \
           ("notice.rematch", invite.invite_id, room.room_id, bob.player_id)
    assert notice.args["seat"] == "0"


def test_asking_again_answers_the_same_room(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    first = friends.rematch(ann, ended.match_id)
    before = friends.stored()
    assert friends.rematch(ann, ended.match_id).room_id == first.room_id
    assert friends.stored() == before


def test_the_second_asker_accepts_their_invite_and_the_room_starts_by_itself(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    friends.rematch(ann, ended.match_id)
    room = friends.rematch(bob, ended.match_id)
    assert seats(room) == [ann.player_id, bob.player_id]
    assert room.status == pb.ROOM_STATUS_PLAYING and room.match_id and room.match_id != ended.match_id
    sent = friends.system.sent(f"room:{room.room_id}")
    assert [s.player_id for s in sent.seats] == [ann.player_id, bob.player_id] and sent.rated


def test_a_declined_seat_is_a_bot_of_the_match_when_the_room_starts_by_itself(friends):
    ann, bob, cat = friends.player("Ann"), friends.player("Bob"), friends.player("Cat")
    ended = finished(friends, ann, bob, cat, variant="block-4", bots=1)
    room = friends.rematch(ann, ended.match_id)
    bot = seats(ended)[3]
    assert seats(room) == [ann.player_id, "", "", bot]
    friends.answer(bob, rematch_invite(friends, bob, ended.match_id).invite_id, accept=False)
    started = friends.answer(cat, rematch_invite(friends, cat, ended.match_id).invite_id).room
    assert seats(started) == [ann.player_id, "bot:greedy:1", cat.player_id, bot]
    assert started.status == pb.ROOM_STATUS_PLAYING


def test_the_host_starts_sooner_and_bots_take_the_seats_nobody_accepted(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    room = friends.rematch(ann, ended.match_id)
    started = friends.stub.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=bearer(ann)).room
    assert bob.player_id not in seats(started) and seats(started)[0] == ann.player_id
    assert started.status == pb.ROOM_STATUS_PLAYING
    assert code_and_reason(lambda: friends.rematch(bob, ended.match_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "INVITE_EXPIRED")


def test_a_rematch_is_rated_as_its_match_however_few_people_come_back(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    room = friends.rematch(ann, ended.match_id)
    friends.answer(bob, rematch_invite(friends, bob, ended.match_id).invite_id, accept=False)
    assert friends.system.sent(f"room:{room.room_id}").rated is True


def test_a_deleted_person_gets_a_bot_and_no_invite(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    friends.social.accounts.stub.DeleteAccount(account_pb.DeleteAccountRequest(), metadata=bearer(bob))
    room = friends.rematch(ann, ended.match_id)
    assert room.invites == [] and room.status == pb.ROOM_STATUS_PLAYING
    assert seats(room)[0] == ann.player_id and seats(room)[1].startswith("bot:")


def test_a_person_already_elsewhere_gets_a_bot_and_no_invite(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    friends.create_room(bob, request_id="bob-moved-on")
    room = friends.rematch(ann, ended.match_id)
    assert room.invites == [] and seats(room)[1].startswith("bot:")
    assert code_and_reason(lambda: friends.rematch(bob, ended.match_id)) == \
           (grpc.StatusCode.FAILED_PRECONDITION, "REMATCH_NOT_AVAILABLE")


def test_an_unanswered_rematch_starts_by_itself_once_its_invites_run_out(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    room = friends.rematch(ann, ended.match_id)
    app = friends.system.app
    app.pending_starts.follow_store()
    app.rematches.start_unanswered()
    assert friends.room(ann, room.room_id).status == pb.ROOM_STATUS_OPEN
    friends.system.clock.advance(600)
    assert app.rematches.start_unanswered() >= 1
    started = friends.room(ann, room.room_id)
    assert started.status == pb.ROOM_STATUS_PLAYING and bob.player_id not in seats(started)


def test_the_rematch_invite_waits_for_a_social_service_away_and_is_told_once_it_is_back(friends):
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    with friends.social_away():
        room = friends.rematch(ann, ended.match_id)
    assert [n for n in friends.inbox(bob) if n.kind == social_pb.NOTIFICATION_KIND_REMATCH] == []
    friends.system.app.pending_starts.follow_store()
    friends.system.app.notices.step()
    assert rematch_invite(friends, bob, ended.match_id).room_id == room.room_id


def test_a_rematch_comes_the_moment_the_match_service_has_stored_the_end(friends):
    """The end is asked of the match service (as the match_ended consumer confirms it), not
    waited for on the bus."""
    ann, bob = friends.player("Ann"), friends.player("Bob")
    ended = finished(friends, ann, bob)
    view = friends.system.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=ended.match_id), metadata=SERVICE)
    assert view.view.status == match_pb.MATCH_STATUS_ENDED
    assert friends.system.app.match_link(ended.match_id).released is False
    assert friends.rematch(ann, ended.match_id).rematch_of_match_id == ended.match_id
