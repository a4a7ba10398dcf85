"""The terminal client's Inbox against a real SocialService and AccountService on loopback:
a friend request stored by the social service is listed in the client's own words, accepted
from the inbox, marked read; the menu's unread count follows a real WatchNotifications stream."""

from __future__ import annotations

import time

import pytest

from domino.social.v1 import social_service_pb2 as so
from services.client import names
from services.client.account_api import AccountApi
from services.client.social_api import SocialApi
from services.client.unread import UnreadCount
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import scripted

from .account_harness import bearer
from .social_harness import running_social

pytestmark = pytest.mark.usefixtures("served_rules")


@pytest.fixture
def svc(tmp_path):
    with running_social(tmp_path) as service:
        yield service


@pytest.fixture
def people(svc):
    ann, bob = svc.sign_up("Ann Inboxy"), svc.sign_up("Bob Inboxy")
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


def ask_friendship(svc, sender, recipient_name: str) -> None:
    svc.stub.SendFriendRequest(so.SendFriendRequestRequest(request_id=f"r-{recipient_name}",
                                                           display_name=recipient_name), metadata=bearer(sender))


def inbox_screen(lines, tmp_path, social, session):
    done = scripted(lines + [""], tmp_path / session.player_id, social, player=session.player_id)
    done.app.notices.run()
    return done


def unread(svc, session) -> int:
    return svc.stub.ListNotifications(so.ListNotificationsRequest(unread_only=True),
                                      metadata=bearer(session)).unread_count


def test_a_friend_request_is_listed_in_the_clients_words_with_the_senders_name(svc, people, tmp_path):
    ann, bob, social = people
    ask_friendship(svc, ann, "Bob Inboxy")
    done = inbox_screen([], tmp_path, social(bob), bob)
    assert "1 unread" in done.text
    assert any("new" in line and "Ann Inboxy wants to be your friend" in line for line in done.text.splitlines())


def test_accepting_a_request_from_the_inbox_befriends_both_and_tells_the_sender(svc, people, tmp_path):
    ann, bob, social = people
    ask_friendship(svc, ann, "Bob Inboxy")
    inbox_screen(["1", "a"], tmp_path, social(bob), bob)
    friends = svc.stub.ListFriends(so.ListFriendsRequest(), metadata=bearer(ann)).friends
    assert [f.player_id for f in friends] == [bob.player_id]
    assert unread(svc, bob) == 0  # opening it marked it read
    assert "Bob Inboxy accepted your friend request" in inbox_screen([], tmp_path, social(ann), ann).text


def test_r_marks_every_notification_read_on_the_server(svc, people, tmp_path):
    ann, bob, social = people
    carl = svc.sign_up("Carl Inboxy")
    ask_friendship(svc, ann, "Bob Inboxy")
    ask_friendship(svc, carl, "Bob Inboxy")
    assert unread(svc, bob) == 2
    done = inbox_screen(["r"], tmp_path, social(bob), bob)
    assert unread(svc, bob) == 0 and "All marked read." in done.text


def test_the_menus_unread_count_follows_the_notifications_stream(svc, people):
    ann, bob, social = people
    counter = UnreadCount(social(bob))
    counter.start()
    try:
        deadline = time.monotonic() + 10
        while counter.count is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the stream's first message: how things stand
        assert counter.count == 0
        ask_friendship(svc, ann, "Bob Inboxy")
        while counter.count == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert counter.label() == "Inbox (1 unread)"
        assert counter.latest is not None and counter.latest.player_id == ann.player_id
    finally:
        counter.stop()


def test_the_menu_shows_the_unread_count_the_server_keeps(svc, people, tmp_path):
    ann, bob, social = people
    ask_friendship(svc, ann, "Bob Inboxy")
    done = scripted(["q"], tmp_path, social(bob), player=bob.player_id)
    done.app.main_menu.way_back = lambda: None
    assert done.app.menu() == 0
    assert "i) Inbox (1 unread)" in done.text
