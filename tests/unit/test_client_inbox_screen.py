"""The Inbox screen and the menu's unread count, with the social service and matchmaking at
the client's API seam (tests/support/social_client.py): typed lines in, calls and screens
out. Acting on a notification: accept or decline a friend request, accept or decline an
invite (then the room's lobby and its match), open the match whose turn it is."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.social.v1 import social_service_pb2 as so
from services.client.unread import UnreadCount
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import Matchmaking, Social, refused, scripted

pytestmark = pytest.mark.usefixtures("served_rules")


def notice(n: int, kind: so.NotificationKind.ValueType, key: str, read: bool = False, **about) -> so.Notification:
    return so.Notification(notification_id=f"n-{n}", kind=kind, text_key=key, args={"name": "Bob"}, read=read,
                           player_id="p-bob", created_at=Timestamp(seconds=1), **about)


REQUEST = notice(1, so.NOTIFICATION_KIND_FRIEND_REQUEST, "notice.friend_request")
INVITE = notice(2, so.NOTIFICATION_KIND_INVITE, "notice.invite", invite_id="i-7", room_id="r-9")
TURN = notice(3, so.NOTIFICATION_KIND_YOUR_TURN, "notice.your_turn", match_id="m-4")
RESULT = notice(4, so.NOTIFICATION_KIND_MATCH_RESULT, "notice.match_won", read=True)


def inbox_screen(lines, tmp_path, *notices, matchmaking=None):
    social = Social(inbox=[copy(n) for n in notices])
    done = scripted(lines + [""], tmp_path, social, matchmaking=matchmaking)
    done.app.notices.run()
    return done, social


def copy(message: so.Notification) -> so.Notification:
    out = so.Notification()
    out.CopyFrom(message)
    return out


def test_the_inbox_lists_each_notification_in_words_with_the_unread_ones_marked(tmp_path):
    done, _ = inbox_screen([], tmp_path, REQUEST, RESULT)
    assert "1 unread" in done.text
    lines = done.text.splitlines()
    assert any("new" in line and "Bob wants to be your friend" in line for line in lines)
    assert any("new" not in line and "You won the match" in line for line in lines)


def test_accepting_a_friend_request_from_the_inbox_accepts_it_and_marks_it_read(tmp_path):
    done, social = inbox_screen(["1", "a"], tmp_path, REQUEST)
    assert social.calls == [("read", ["n-1"]), ("accept", "p-bob")]
    assert "You and Bob are friends now." in done.text


def test_declining_a_friend_request_from_the_inbox_declines_it(tmp_path):
    _, social = inbox_screen(["1", "d"], tmp_path, REQUEST)
    assert social.calls[-1] == ("decline", "p-bob")


def test_accepting_an_invite_answers_it_and_goes_through_the_room_to_its_match(tmp_path):
    done, _ = inbox_screen(["1", "a"], tmp_path, INVITE)
    assert done.matchmaking.calls == [("answer", "i-7", True)]
    assert done.played == ["m-next"]


def test_declining_an_invite_answers_no_and_stays_in_the_inbox(tmp_path):
    done, _ = inbox_screen(["1", "d"], tmp_path, INVITE)
    assert done.matchmaking.calls == [("answer", "i-7", False)] and done.played == []
    assert "Declined Bob's invite." in done.text


def test_an_invite_that_is_over_says_so(tmp_path):
    over = Matchmaking(refuse=refused(grpc.StatusCode.FAILED_PRECONDITION, "the room started", "INVITE_EXPIRED"))
    done, _ = inbox_screen(["1", "a"], tmp_path, INVITE, matchmaking=over)
    assert "This invite is over: the room started or closed, or it was answered." in done.text
    assert done.played == []


def test_your_turn_opens_the_match(tmp_path):
    done, _ = inbox_screen(["1", "o"], tmp_path, TURN)
    assert done.played == ["m-4"]


def test_r_marks_every_notification_read(tmp_path):
    done, social = inbox_screen(["r"], tmp_path, REQUEST, TURN)
    assert social.calls == [("read", [])] and "all read" in done.text and "All marked read." in done.text


def test_a_notification_with_nothing_to_do_is_shown_and_marked_read(tmp_path):
    unread_result = copy(RESULT)
    unread_result.read = False
    done, social = inbox_screen(["1"], tmp_path, unread_result)
    assert social.calls == [("read", ["n-4"])]
    assert done.text.count("You won the match") >= 2  # listed, then said under the list


def test_an_empty_inbox_says_so(tmp_path):
    done, _ = inbox_screen([], tmp_path)
    assert "Nothing here yet." in done.text


def test_the_menu_offers_friends_and_the_inbox_with_its_unread_count(tmp_path):
    social = Social(inbox=[copy(REQUEST), copy(TURN)])
    done = scripted(["q"], tmp_path, social)
    done.app.main_menu.way_back = lambda: None
    assert done.app.menu() == 0
    assert "f) Friends" in done.text and "i) Inbox (2 unread)" in done.text


def test_the_unread_count_follows_the_notifications_stream(tmp_path):
    counter = UnreadCount(Social())  # type: ignore[arg-type]
    counter.put("notice", so.WatchNotificationsResponse(unread_count=4))
    assert counter.label() == "Inbox (4 unread)"
    counter.put("notice", so.WatchNotificationsResponse(notification=REQUEST, unread_count=5))
    assert counter.now() == 5 and counter.latest == REQUEST


def test_without_the_stream_the_unread_count_is_asked(tmp_path):
    counter = UnreadCount(Social(inbox=[copy(TURN)]))  # type: ignore[arg-type]
    counter.put("notice", so.WatchNotificationsResponse(unread_count=9))
    counter.put("link", "lost")
    assert counter.now() == 1


def test_the_menu_says_the_newest_unread_notification_the_stream_brought(tmp_path):
    social = Social(inbox=[copy(REQUEST)])
    done = scripted(["q"], tmp_path, social)
    done.app.main_menu.way_back = lambda: None
    assert done.app.unread is not None
    done.app.unread.put("notice", so.WatchNotificationsResponse(notification=REQUEST, unread_count=1))
    assert done.app.menu() == 0
    assert "New: Bob wants to be your friend" in done.text
