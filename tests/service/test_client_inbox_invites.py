"""Invites through the terminal client, over real gRPC: matchmaking wired to a real social
service and account service (tests/service/invites_harness.py). The host invites a friend
from the Friends screen, the friend finds it in the Inbox in the client's words, accepts
it, waits in the room's lobby and is taken to the match once the host starts it; a decline
is told to the host's inbox. The module's tests share one system; each makes its players."""

from __future__ import annotations

import threading
import time

import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.client import names
from services.client.account_api import AccountApi
from services.client.api import MatchmakingApi
from services.client.social_api import SocialApi
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import scripted

from .account_harness import bearer
from .invites_harness import running_friends

pytestmark = pytest.mark.usefixtures("served_rules")


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("client-invites")) as running:
        yield running


@pytest.fixture
def client(friends):
    """The client's stubs for a player: (SocialApi, MatchmakingApi), names from the real account service."""
    opened: list = []
    accounts = AccountApi(f"127.0.0.1:{friends.social.accounts.port}")

    def stubs(session) -> tuple[SocialApi, MatchmakingApi]:
        social = SocialApi(f"127.0.0.1:{friends.social.port}", session.access_token)
        matchmaking = MatchmakingApi(f"127.0.0.1:{friends.system.port}", session.access_token)
        opened.extend((social, matchmaking))
        accounts.fixed = session.access_token  # names are asked with the newest player's token
        return social, matchmaking

    names.use(names.Names(accounts.display_names))
    yield stubs
    names.use(names.PLAIN)
    for api in opened:
        api.close()
    accounts.close()


@pytest.fixture
def ann_and_bob(friends, client):
    """Two friends; Ann is in her open two-seat room."""
    ann, bob = friends.player("Ann"), friends.player("Bob")
    friends.befriend(ann, bob)
    room = friends.create_room(ann, variant="draw-2", request_id=f"room-{ann.player_id}")
    return ann, bob, room


def screen_of(client, session, tmp_path, lines, closed=True):
    social, matchmaking = client(session)
    return scripted(lines, tmp_path / session.player_id, social, player=session.player_id, matchmaking=matchmaking,
                    closed=closed)


def invite_from_friends_screen(client, ann, tmp_path) -> str:
    done = screen_of(client, ann, tmp_path, ["1", "i", ""])
    done.app.friends.run()
    return done.text


def test_the_host_invites_a_friend_from_the_friends_screen(friends, client, ann_and_bob, tmp_path):
    ann, bob, room = ann_and_bob
    text = invite_from_friends_screen(client, ann, tmp_path)
    assert f"Invited {names.name(bob.player_id)} to your room." in text
    invites = friends.room(ann, room.room_id).invites
    assert [(i.player_id, i.status) for i in invites] == [(bob.player_id, mm.INVITE_STATUS_PENDING)]


def test_the_invitee_finds_the_invite_in_the_inbox_in_the_clients_words(friends, client, ann_and_bob, tmp_path):
    ann, bob, _ = ann_and_bob
    invite_from_friends_screen(client, ann, tmp_path)
    done = screen_of(client, bob, tmp_path, [""])
    done.app.notices.run()
    assert f"{names.name(ann.player_id)} invites you to play Egyptian draw-2" in done.text


def test_accepting_from_the_inbox_seats_the_invitee_and_plays_the_match_the_host_starts(friends, client,
                                                                                          ann_and_bob, tmp_path):
    ann, bob, room = ann_and_bob
    invite_from_friends_screen(client, ann, tmp_path)
    done = screen_of(client, bob, tmp_path, ["1", "a"], closed=False)  # Bob waits in the lobby
    waiting = threading.Thread(target=done.app.notices.run, daemon=True)
    waiting.start()
    deadline = time.monotonic() + 10
    while friends.room(ann, room.room_id).seats[1].player_id != bob.player_id and time.monotonic() < deadline:
        time.sleep(0.05)
    started = friends.stub.StartRoom(mm.StartRoomRequest(room_id=room.room_id), metadata=bearer(ann)).room
    waiting.join(timeout=10)
    match_id = started.match_id or friends.room(ann, room.room_id).match_id
    assert not waiting.is_alive() and match_id and done.played == [match_id]
    assert "Waiting for the host to start" in done.text


def test_declining_from_the_inbox_tells_the_hosts_inbox(friends, client, ann_and_bob, tmp_path):
    ann, bob, room = ann_and_bob
    invite_from_friends_screen(client, ann, tmp_path)
    bobs = screen_of(client, bob, tmp_path, ["1", "d", ""])
    bobs.app.notices.run()
    assert [i.status for i in friends.room(ann, room.room_id).invites] == [mm.INVITE_STATUS_DECLINED]
    anns = screen_of(client, ann, tmp_path, [""])
    anns.app.notices.run()
    assert f"{names.name(bob.player_id)} declined your invite" in anns.text


def test_the_hosts_lobby_shows_who_was_invited(friends, client, ann_and_bob, tmp_path):
    ann, bob, room = ann_and_bob
    invite_from_friends_screen(client, ann, tmp_path)
    done = screen_of(client, ann, tmp_path, ["q"])
    done.app.room_lobby.run(friends.room(ann, room.room_id))
    assert f"Invited: {names.name(bob.player_id)} (asked)" in done.text
