"""Where a friend is, as the Friends screen says it, and what it offers to do with them:
online, playing a family and whether it may be watched ("w" opens the spectator screen),
last seen "5 min ago"; and what ``s`` reads as a friend code or a display name."""

from __future__ import annotations

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.social.v1 import social_service_pb2 as so
from services.client import friends_screen, names, presence_words
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import Social, scripted

pytestmark = pytest.mark.usefixtures("served_rules")
NOW = 1_800_000_000.0


def seen(seconds_ago: float) -> so.FriendPresence:
    return so.FriendPresence(availability=so.AVAILABILITY_OFFLINE, last_seen=Timestamp(seconds=int(NOW - seconds_ago)))


def playing(watchable: bool) -> so.FriendPresence:
    return so.FriendPresence(availability=so.AVAILABILITY_PLAYING, match_id="m-5", rules="classic", watchable=watchable)


@pytest.mark.parametrize("presence, said", [
    (so.FriendPresence(availability=so.AVAILABILITY_ONLINE), "online"),
    (playing(True), "playing Classic (may be watched)"),
    (playing(False), "playing Classic"),
    (seen(20), "last seen just now"),
    (seen(5 * 60 + 10), "last seen 5 min ago"),
    (seen(3 * 3600), "last seen 3 h ago"),
    (seen(86400 + 5), "last seen 1 day ago"),
    (seen(9 * 86400), "last seen 9 days ago"),
    (so.FriendPresence(availability=so.AVAILABILITY_OFFLINE), "offline"),
    (so.FriendPresence(), ""),
])
def test_a_friends_presence_in_words(presence, said):
    assert presence_words.presence_text(presence, NOW) == said


def test_a_family_this_server_does_not_play_is_named_as_sent():
    presence = so.FriendPresence(availability=so.AVAILABILITY_PLAYING, rules="mexican-train")
    assert presence_words.presence_text(presence, NOW) == "playing mexican-train"


def test_only_a_watchable_match_offers_watch():
    watch = friends_screen.Row(friends_screen.FRIEND, "p-2", presence=playing(True))
    closed = friends_screen.Row(friends_screen.FRIEND, "p-2", presence=playing(False))
    assert ("w", "watch their match") in friends_screen.choices(watch, "")
    assert "w" not in [k for k, _ in friends_screen.choices(closed, "")]


def test_watch_opens_the_spectator_screen_on_the_friends_match(tmp_path):
    social = Social(friend_list=[so.Friend(player_id="p-2", presence=playing(True))])
    done = scripted(["1", "w", ""], tmp_path, social)
    done.app.friends.run()
    assert done.watched == ["m-5"]
    assert "playing Classic (may be watched)" in done.text


@pytest.mark.parametrize("typed, target", [
    ("K7M2-PQ4X", ("", "K7M2-PQ4X")),
    ("k7m2-pq4x", ("", "K7M2-PQ4X")),
    ("player-7k2mq", ("player-7k2mq", "")),  # a made-up name has a hyphen too
    ("  Bob Smith ", ("Bob Smith", "")),
    ("K0M2-PQ4X", ("K0M2-PQ4X", "")),  # 0 is not in the codes' alphabet: a name
])
def test_what_s_names_is_a_friend_code_only_in_its_shown_form(typed, target):
    assert friends_screen.target_of(typed) == target



def test_a_display_name_that_looks_like_markup_is_shown_as_typed(tmp_path):
    names.use(names.Names(lambda ids: {"p-2": "[bold]Zed[/bold]"}))
    try:
        done = scripted([""], tmp_path, Social(friend_list=[so.Friend(player_id="p-2")]))
        done.app.friends.run()
    finally:
        names.use(names.PLAIN)
    assert "[bold]Zed[/bold]" in done.text
