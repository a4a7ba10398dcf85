"""The terminal client's Friends screen against a real SocialService and AccountService on
loopback: players signed in with real devices, found by their display names and friend
codes, each screen a player's typed lines in and what the terminal showed out. Where the
player is (a room to invite to) and what a watch opens are the client's matchmaking and
match seams (tests/support/social_client.py)."""

from __future__ import annotations

import time

import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.social.v1 import social_service_pb2 as so
from services.client import names
from services.client.account_api import AccountApi
from services.client.social_api import SocialApi
from services.client.unread import UnreadCount
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import Matchmaking, scripted

from .account_harness import bearer
from .social_harness import running_social

pytestmark = pytest.mark.usefixtures("served_rules")


@pytest.fixture
def svc(tmp_path):
    with running_social(tmp_path) as service:
        yield service


@pytest.fixture
def people(svc):
    """Ann and Bob, signed up; display names through the real account service."""
    ann, bob = svc.sign_up("Ann Friendly"), svc.sign_up("Bob Friendly")
    accounts = AccountApi(f"127.0.0.1:{svc.accounts.port}", ann.access_token)
    names.use(names.Names(accounts.display_names))
    apis: list[SocialApi] = []

    def social(session) -> SocialApi:
        api = SocialApi(f"127.0.0.1:{svc.port}", session.access_token)
        apis.append(api)
        return api

    yield ann, bob, social
    names.use(names.PLAIN)
    for api in apis:
        api.close()
    accounts.close()


def friends_screen(lines, tmp_path, social, session, **kw):
    """The Friends screen, answered with ``lines`` and then Enter (back)."""
    done = scripted(lines + [""], tmp_path / session.player_id, social, player=session.player_id, **kw)
    done.app.friends.run()
    return done


def pending(svc, session, direction):
    return [r.player_id for r in svc.stub.ListFriendRequests(so.ListFriendRequestsRequest(direction=direction),
                                                              metadata=bearer(session)).requests]


def friend_ids(svc, session):
    return [f.player_id for f in svc.stub.ListFriends(so.ListFriendsRequest(), metadata=bearer(session)).friends]


def test_the_screen_shows_the_players_own_friend_code(svc, people, tmp_path):
    ann, _, social = people
    code = svc.stub.GetFriendCode(so.GetFriendCodeRequest(), metadata=bearer(ann)).friend_code
    done = friends_screen([], tmp_path, social(ann), ann)
    assert f"Your friend code   {code} " in done.text


def test_a_request_sent_by_display_name_reaches_the_other_player(svc, people, tmp_path):
    ann, bob, social = people
    done = friends_screen(["s bob friendly"], tmp_path, social(ann), ann)
    assert "Friend request sent to Bob Friendly." in done.text
    assert pending(svc, bob, so.FRIEND_REQUEST_DIRECTION_INCOMING) == [ann.player_id]


def test_a_request_sent_by_friend_code_reaches_the_other_player(svc, people, tmp_path):
    ann, bob, social = people
    code = svc.stub.GetFriendCode(so.GetFriendCodeRequest(), metadata=bearer(bob)).friend_code
    friends_screen([f"s {code.lower()}"], tmp_path, social(ann), ann)
    assert pending(svc, bob, so.FRIEND_REQUEST_DIRECTION_INCOMING) == [ann.player_id]


def test_requests_are_listed_both_ways_with_their_senders_names(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    mine = friends_screen([], tmp_path, social(ann), ann).text
    theirs = friends_screen([], tmp_path, social(bob), bob).text
    assert "Your requests" in mine and "Bob Friendly" in mine and "Requests to you" not in mine
    assert "Requests to you" in theirs and "Ann Friendly" in theirs and "sent just now" in theirs


def test_accepting_an_incoming_request_makes_both_friends(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    done = friends_screen(["1", "a"], tmp_path, social(bob), bob)
    assert "You and Ann Friendly are friends now." in done.text
    assert friend_ids(svc, ann) == [bob.player_id] and friend_ids(svc, bob) == [ann.player_id]


def test_a_request_to_someone_who_asked_first_says_both_are_friends(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    done = friends_screen(["s Ann Friendly"], tmp_path, social(bob), bob)
    assert "You and Ann Friendly are friends now: they had asked you." in done.text


def test_declining_an_incoming_request_ends_it(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    done = friends_screen(["1", "d"], tmp_path, social(bob), bob)
    assert "Declined Ann Friendly's request." in done.text
    assert pending(svc, ann, so.FRIEND_REQUEST_DIRECTION_OUTGOING) == [] and friend_ids(svc, bob) == []


def test_cancelling_an_outgoing_request_withdraws_it(svc, people, tmp_path):
    ann, bob, social = people
    done = friends_screen(["s Bob Friendly", "1", "c"], tmp_path, social(ann), ann)
    assert "Your request to Bob Friendly is withdrawn." in done.text
    assert pending(svc, bob, so.FRIEND_REQUEST_DIRECTION_INCOMING) == []


def test_a_friend_is_listed_with_where_they_are_and_can_be_removed_once_confirmed(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    friends_screen(["1", "a"], tmp_path, social(bob), bob)
    done = friends_screen(["1", "r", "n", "1", "r", "y"], tmp_path, social(ann), ann)
    assert "Friends (1)" in done.text and "Nothing changed." in done.text
    assert "Bob Friendly is no longer your friend." in done.text
    assert friend_ids(svc, ann) == [] and friend_ids(svc, bob) == []


def test_blocking_a_friend_ends_the_friendship_and_lists_them_as_blocked(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    friends_screen(["1", "a"], tmp_path, social(bob), bob)
    done = friends_screen(["1", "x", "y"], tmp_path, social(ann), ann)
    last = done.text[done.text.rindex(" friends "):]  # the screen after the block
    assert "Bob Friendly is blocked." in last and "Blocked\n" in last and "Friends (" not in last
    assert friend_ids(svc, ann) == []
    blocked = svc.stub.ListBlockedPlayers(so.ListBlockedPlayersRequest(), metadata=bearer(ann)).blocked
    assert [b.player_id for b in blocked] == [bob.player_id]


def test_unblocking_lifts_the_block(svc, people, tmp_path):
    ann, bob, social = people
    svc.stub.BlockPlayer(so.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    done = friends_screen(["1", "u"], tmp_path, social(ann), ann)
    assert "Bob Friendly is no longer blocked." in done.text
    assert svc.stub.ListBlockedPlayers(so.ListBlockedPlayersRequest(), metadata=bearer(ann)).blocked == []


def test_a_request_the_server_refuses_is_told_and_changes_nothing(svc, people, tmp_path):
    ann, bob, social = people
    done = friends_screen(["s Nobody Atall"], tmp_path, social(ann), ann)
    assert "Not sent: " in done.text
    assert pending(svc, ann, so.FRIEND_REQUEST_DIRECTION_OUTGOING) == []


def test_a_request_to_oneself_is_refused_in_the_servers_words(svc, people, tmp_path):
    ann, _, social = people
    done = friends_screen(["s Ann Friendly"], tmp_path, social(ann), ann)
    line = next(line for line in done.text.splitlines() if line.startswith("Not sent: "))
    assert len(line) > len("Not sent: ")
    assert pending(svc, ann, so.FRIEND_REQUEST_DIRECTION_OUTGOING) == []


def test_a_friend_is_invited_to_the_open_room_the_player_is_in(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    friends_screen(["1", "a"], tmp_path, social(bob), bob)
    place = mm.GetPresenceResponse(room=mm.RoomView(room_id="r-7", status=mm.ROOM_STATUS_OPEN))
    done = friends_screen(["1", "i"], tmp_path, social(ann), ann, matchmaking=Matchmaking(place=place))
    assert "i N invites friend N to your room" in done.text
    assert done.matchmaking.calls == [("invite", "r-7", [bob.player_id])]
    assert "Invited Bob Friendly to your room." in done.text


def test_no_invite_is_offered_outside_a_room(svc, people, tmp_path):
    ann, bob, social = people
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    friends_screen(["1", "a"], tmp_path, social(bob), bob)
    done = friends_screen(["i 1"], tmp_path, social(ann), ann)
    assert "invite to your room" not in done.text and "You are in no open room to invite them to." in done.text
    assert done.matchmaking.calls == []


def test_an_unreadable_line_says_what_may_be_typed(svc, people, tmp_path):
    ann, _, social = people
    done = friends_screen(["hello"], tmp_path, social(ann), ann)
    assert "'hello'? N picks one · s NAME or CODE sends a friend request" in done.text


def test_a_number_without_a_row_is_told(svc, people, tmp_path):
    ann, _, social = people
    done = friends_screen(["4"], tmp_path, social(ann), ann)
    assert "There is no 4 here." in done.text


def befriend(tmp_path, social, ann, bob) -> None:
    friends_screen(["s Bob Friendly"], tmp_path, social(ann), ann)
    friends_screen(["1", "a"], tmp_path, social(bob), bob)


def test_a_friend_with_the_app_open_is_listed_online(svc, people, tmp_path):
    ann, bob, social = people
    befriend(tmp_path, social, ann, bob)
    counter = UnreadCount(social(bob))  # what Bob's menu keeps open
    counter.start()
    try:
        deadline = time.monotonic() + 10
        while counter.count is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the stream is open once its first message came
        done = friends_screen([], tmp_path, social(ann), ann)
    finally:
        counter.stop()
    assert any("Bob Friendly" in line and "online" in line for line in done.text.splitlines())


def test_a_friend_whose_app_closed_is_listed_by_when_they_were_last_seen(svc, people, tmp_path):
    ann, bob, social = people
    befriend(tmp_path, social, ann, bob)
    counter = UnreadCount(social(bob))
    counter.start()
    deadline = time.monotonic() + 10
    while counter.count is None and time.monotonic() < deadline:
        time.sleep(0.05)
    counter.stop()
    line = ""
    while "last seen" not in line and time.monotonic() < deadline:
        text = friends_screen([], tmp_path, social(ann), ann).text
        line = next(line for line in text.splitlines() if "Bob Friendly" in line)
    assert "last seen just now" in line
