"""The inbox's notifications in the client's own words: each localisation key with its
arguments, a key this client does not know as a generic line, a missing argument as "?",
and the player a notification is about by their display name."""

from __future__ import annotations

import pytest

from domino.social.v1 import social_service_pb2 as so
from services.client import names, notice_words
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)


def notice(key: str, player_id: str = "", **args: str) -> so.Notification:
    return so.Notification(notification_id="n-1", text_key=key, args=args, player_id=player_id)


@pytest.fixture
def directory():
    directory = names.use(names.Names(lambda ids: {"p-bob-0001": "Bob"}))
    directory.learn(["p-bob-0001"])
    yield directory
    names.use(names.PLAIN)


@pytest.mark.parametrize("key, args, said", [
    ("notice.friend_request", {"name": "Bob"}, "Bob wants to be your friend"),
    ("notice.friend_accepted", {"name": "Bob"}, "Bob accepted your friend request"),
    ("notice.invite", {"name": "Bob"}, "Bob invites you to a room"),
    ("notice.invite_answered", {"name": "Bob", "answer": "declined"}, "Bob declined your invite"),
    ("notice.invite_accepted", {"name": "Bob", "answer": "accepted"}, "Bob accepted your invite"),
    ("notice.invite_declined", {"name": "Bob", "answer": "declined"}, "Bob declined your invite"),
    ("notice.rematch", {"name": "Bob"}, "Bob wants to play again"),
    ("notice.your_turn", {"seconds_left": "38"}, "Your turn: 38 s left"),
    ("notice.match_won", {"points": "151", "opponent_points": "92"}, "You won the match, 151 to 92"),
    ("notice.match_lost", {"points": "92", "opponent_points": "151"}, "You lost the match, 92 to 151"),
    ("notice.rating_change", {"before": "21.4", "after": "23.0"}, "Your rating went from 21.4 to 23.0"),
    ("notice.banned", {"until": "2027-01-01T00:00:00Z"}, "Your account is banned until 2027-01-01T00:00:00Z"),
    ("notice.banned", {"until": ""}, "Your account is banned for good"),
    ("notice.unbanned", {}, "Your account is no longer banned"),
    ("notice.account.device_added", {}, "A new device signed in to your account"),
])
def test_each_known_key_is_said_with_its_arguments(key, args, said):
    assert notice_words.text(notice(key, **args)) == said


def test_a_match_result_key_with_an_outcome_argument_is_said_as_won_or_lost():
    won = notice("notice.match_result", outcome="won", points="100", opponent_points="40")
    assert notice_words.text(won) == "You won the match, 100 to 40"


def test_an_unknown_key_shows_a_generic_line_and_none_of_its_arguments():
    said = notice_words.text(notice("notice.tournament_starts", name="Spring Cup", secret="x"))
    assert said == notice_words.UNKNOWN and "Spring Cup" not in said


def test_an_unknown_account_notice_says_the_account_changed():
    assert notice_words.text(notice("notice.account.something_new")) == notice_words.ACCOUNT_OTHER


def test_a_missing_argument_shows_as_a_question_mark():
    assert notice_words.text(notice("notice.your_turn")) == "Your turn: ? s left"


def test_without_a_name_argument_the_player_is_named_by_the_directory(directory):
    assert notice_words.text(notice("notice.friend_request", player_id="p-bob-0001")) == "Bob wants to be your friend"


def test_braces_in_a_display_name_are_shown_as_typed():
    assert notice_words.text(notice("notice.invite", name="{seconds_left}")) == "{seconds_left} invites you to a room"


def test_an_invite_naming_its_family_says_what_is_played(served_rules):
    invite = notice("notice.invite", name="Bob", rules="egyptian", variant="block-4", inviter="p-bob")
    assert notice_words.text(invite) == "Bob invites you to play Egyptian block-4"


def test_a_rematch_naming_its_family_says_it_is_played_again(served_rules):
    rematch = notice("notice.rematch", name="Bob", rules="classic")
    assert notice_words.text(rematch) == "Bob wants to play Classic again"


def test_a_rating_sent_with_many_decimals_is_said_with_one():
    change = notice("notice.rating_change", before="21.43871", after="23")
    assert notice_words.text(change) == "Your rating went from 21.4 to 23.0"
