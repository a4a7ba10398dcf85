"""Invites and rematch on the real stores, SQLite and PostgreSQL (either_store_env): two
matchmaking replicas on one store, asking a real social service (over gRPC, with
matchmaking's own client and token) who is a friend and posting to its real inboxes.

What one replica stored the other reads the same, races between replicas end with one
winner, and notices queued while the social service was away are posted by whichever
replica runs its timer once it is back.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as social_pb
from services.common.service_tokens import ServiceToken
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.errors import MatchmakingError, RoomFull
from services.matchmaking.options import Options
from services.matchmaking.rooms import Room
from services.matchmaking.social_client import GrpcSocial
from tests.service.account_harness import bearer
from tests.service.invites_harness import SocialDoor
from tests.service.social_harness import running_social
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches
from tests.support.keys import KEYS

pytestmark = pytest.mark.integration

BLOCK_4 = Options.chosen("egyptian", "block-4")


@pytest.fixture
def world(either_store_env, tmp_path):
    """(social service, its door for matchmaking, matches, make a replica on the store)."""
    with ExitStack() as stack:
        social = stack.enter_context(running_social(tmp_path))
        door = SocialDoor(social)
        door.open()
        stack.callback(door.close)
        matches, clock = FakeMatches(), Clock()

        def replica() -> MatchmakingApplication:
            client = GrpcSocial(f"127.0.0.1:{door.port}", ServiceToken("matchmaking", KEYS, 600))
            stack.callback(client.close)
            app = MatchmakingApplication(env=either_store_env, matches=matches, clock=clock, social=client)
            stack.callback(app.close)
            return app

        yield social, door, matches, replica


def befriend(social, one, other) -> None:
    code = social.stub.GetFriendCode(social_pb.GetFriendCodeRequest(), metadata=bearer(other)).friend_code
    social.stub.SendFriendRequest(social_pb.SendFriendRequestRequest(request_id=f"f-{other.player_id}", friend_code=code),
                                  metadata=bearer(one))
    social.stub.AcceptFriendRequest(social_pb.AcceptFriendRequestRequest(player_id=one.player_id),
                                    metadata=bearer(other))


def inbox(social, who) -> list[social_pb.Notification]:
    return list(social.stub.ListNotifications(social_pb.ListNotificationsRequest(),
                                              metadata=bearer(who)).notifications)


def test_invites_and_answers_read_back_the_same_on_another_replica(world):
    social, _, _, replica = world
    ann, bob = social.sign_up("Ann Store"), social.sign_up("Bob Store")
    befriend(social, ann, bob)
    first, other = replica(), replica()
    room = first.rooms.create_room(ann.player_id, "r1", BLOCK_4, None)
    _, [invite_id] = first.invites.invite(ann.player_id, "i1", room.id, [bob.player_id])
    read, _ = other.invites.invite_of(bob.player_id, invite_id)
    assert read.invites == first.rooms.room(room.id).invites
    seated, _ = other.invites.answer(bob.player_id, invite_id, True)
    assert first.rooms.room(room.id).seats == seated.seats == [ann.player_id, bob.player_id, "", ""]
    assert first.presence(bob.player_id).is_at("room", str(room.id))


def test_two_invitees_accepting_the_last_seat_on_two_replicas_seat_one(world):
    social, _, _, replica = world
    ann, bob, cat = (social.sign_up(f"{n} Race") for n in ("Ann", "Bob", "Cat"))
    befriend(social, ann, bob)
    befriend(social, ann, cat)
    replicas = [replica(), replica()]
    room = replicas[0].rooms.create_room(ann.player_id, "r1", BLOCK_4, None)
    _, ids = replicas[0].invites.invite(ann.player_id, "i1", room.id, [bob.player_id, cat.player_id])
    for _ in range(2):
        replicas[0].rooms.add_bot(ann.player_id, room.id, None, "greedy")  # one seat left for two invitees
    outcomes: list[object] = []
    go = threading.Barrier(2)

    def accept(app, who, invite_id):
        go.wait()
        try:
            app.invites.answer(who, invite_id, True)
            outcomes.append("seated")
        except MatchmakingError as e:
            outcomes.append(type(e))

    threads = [threading.Thread(target=accept, args=(app, who.player_id, invite_id))
               for app, who, invite_id in zip(replicas, (bob, cat), ids)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(map(str, outcomes)) == sorted(map(str, ["seated", RoomFull]))
    assert len([p for p in replicas[1].rooms.room(room.id).seats if p]) == 4


def test_two_players_asking_for_a_rematch_on_two_replicas_get_one_room(world):
    social, _, matches, replica = world
    ann, bob = social.sign_up("Ann Again"), social.sign_up("Bob Again")
    replicas = [replica(), replica()]
    room = replicas[0].rooms.create_room(ann.player_id, "r1", Options.chosen("egyptian", "draw-2"), None)
    replicas[0].rooms.join_room(bob.player_id, room.code, None)
    match_id = replicas[0].rooms.start_room(ann.player_id, room.id).match_id
    matches.finished.add(match_id)
    rooms: list[Room] = []
    go = threading.Barrier(2)

    def ask(app, who):
        go.wait()
        try:
            rooms.append(app.rematches.request_rematch(who, match_id))
        except Exception as e:
            rooms.append(e)

    threads = [threading.Thread(target=ask, args=(app, who.player_id)) for app, who in zip(replicas, (ann, bob))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(isinstance(r, Room) for r in rooms), rooms
    assert len({r.id for r in rooms}) == 1
    again = replicas[1].rooms.room(rooms[0].id)
    assert again.seats == [ann.player_id, bob.player_id] and again.status == Room.PLAYING


def test_notices_queued_while_the_social_service_was_away_are_posted_by_another_replica(world):
    social, door, _, replica = world
    ann, bob = social.sign_up("Ann Away"), social.sign_up("Bob Away")
    befriend(social, ann, bob)
    first = replica()
    room = first.rooms.create_room(ann.player_id, "r1", BLOCK_4, None)
    _, [invite_id] = first.invites.invite(ann.player_id, "i1", room.id, [bob.player_id])
    with door.closed():
        first.invites.answer(bob.player_id, invite_id, False)
    assert [n for n in inbox(social, ann) if n.kind == social_pb.NOTIFICATION_KIND_INVITE_ANSWERED] == []
    restarted = replica()
    grpc.channel_ready_future(restarted.notices.social.channel).result(timeout=10)  # the door is open again
    restarted.pending_starts.follow_store()
    assert restarted.notices.step() == 1
    [told] = [n for n in inbox(social, ann) if n.kind == social_pb.NOTIFICATION_KIND_INVITE_ANSWERED]
    assert told.invite_id == invite_id and told.text_key == "notice.invite_declined"
