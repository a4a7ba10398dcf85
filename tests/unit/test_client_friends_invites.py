"""Inviting friends from a room's lobby (``i``): the friends not in the room are listed with
where they are, and those chosen by number are invited (MatchmakingService.InviteToRoom);
with the social service and matchmaking at the client's API seam."""

from __future__ import annotations

import grpc
import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.social.v1 import social_service_pb2 as so
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import Matchmaking, Social, refused, scripted

pytestmark = pytest.mark.usefixtures("served_rules")


def lobby() -> Matchmaking:
    fake = Matchmaking(room_view=mm.RoomView(room_id="r-5", code="AB2CD3EF", host_player_id="ann", version=1,
                                             status=mm.ROOM_STATUS_OPEN,
                                             options=mm.MatchOptions(rules="classic", seat_count=2)))
    fake.room_view.seats.add(seat=0, player_id="ann")
    fake.room_view.seats.add(seat=1)
    return fake


FRIENDS = [so.Friend(player_id="p-2", presence=so.FriendPresence(availability=so.AVAILABILITY_ONLINE)),
           so.Friend(player_id="p-3")]


def test_i_in_a_rooms_lobby_invites_the_friends_chosen_by_number(tmp_path):
    social = Social(friend_list=list(FRIENDS))
    room = lobby()
    done = scripted(["i", "2", "q"], tmp_path, social, matchmaking=room)
    assert done.app.room_lobby.run(room.room_view) is None
    assert ("invite", "r-5", ["p-3"]) in done.matchmaking.calls
    assert "1) p-2  online" in done.text and "Invited p-3 to your room." in done.text
    assert "i invites friends" in done.text


def test_friends_already_seated_are_not_listed(tmp_path):
    room = lobby()
    room.room_view.seats[1].player_id = "p-2"
    done = scripted(["i", "", "q"], tmp_path, Social(friend_list=list(FRIENDS)), matchmaking=room)
    done.app.room_lobby.run(room.room_view)
    assert "1) p-3" in done.text and "p-2  online" not in done.text and "Nobody invited." in done.text


def test_a_refused_invite_is_told_in_the_lobby(tmp_path):
    room = lobby()
    room.refuse = refused(grpc.StatusCode.FAILED_PRECONDITION, "p-3 is not your friend", "NOT_FRIENDS")
    done = scripted(["i", "2", "q"], tmp_path, Social(friend_list=list(FRIENDS)), matchmaking=room)
    done.app.room_lobby.run(room.room_view)
    assert "Not invited: p-3 is not your friend" in done.text


def test_without_a_social_service_the_lobby_says_invites_need_an_account(tmp_path):
    room = lobby()
    done = scripted(["i", "q"], tmp_path, None, matchmaking=room)
    done.app.room_lobby.run(room.room_view)
    assert "Invites need your account's friends" in done.text and "i invites friends" not in done.text
