"""`domino play` as a player runs it, against a real account, social, match and matchmaking
service on loopback (tests/service/invites_harness.py): signed in as a new device, its menu
offers Friends and the Inbox (`--social-address`), shows the friend code, and accepts a
friend request from the inbox."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from domino.social.v1 import social_service_pb2 as social_pb
from services.cli.play import play
from services.client.device import Device

from .account_harness import bearer
from .invites_harness import running_friends


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("client-command-line")) as running:
        yield running


def run(friends, tmp_path, typed: str, name: str = "Ann Cli"):
    args = ["--config-dir", str(tmp_path / "phone"), "--var", str(tmp_path / "var"), "--no-color", "--no-redraw",
            "--account-address", f"127.0.0.1:{friends.social.accounts.port}",
            "--match-address", f"127.0.0.1:{friends.system.match.port}",
            "--matchmaking-address", f"127.0.0.1:{friends.system.port}",
            "--social-address", f"127.0.0.1:{friends.social.port}", "--name", name]
    return CliRunner().invoke(play, args, input=typed)


def test_the_menu_opens_friends_with_the_players_friend_code(friends, tmp_path):
    result = run(friends, tmp_path, "f\n\nq\n")
    assert result.exit_code == 0, result.output
    assert "f) Friends" in result.output and "i) Inbox" in result.output
    assert "Your friend code" in result.output and "No friends yet" in result.output


def test_a_friend_request_is_accepted_from_the_inbox(friends, tmp_path):
    run(friends, tmp_path, "q\n", name="Ann Inbox Cli")
    ann_id = Device.load_or_create(tmp_path / "phone", f"127.0.0.1:{friends.social.accounts.port}").player_id
    bob = friends.player("Bob Cli")
    friends.social.stub.SendFriendRequest(social_pb.SendFriendRequestRequest(request_id="cli-1",
                                                                             display_name="Ann Inbox Cli"),
                                          metadata=bearer(bob))
    result = run(friends, tmp_path, "i\n1\na\n\nq\n", name="Ann Inbox Cli")
    assert result.exit_code == 0, result.output
    assert "i) Inbox (1 unread)" in result.output and "wants to be your friend" in result.output
    assert "are friends now." in result.output
    listed = friends.social.stub.ListFriends(social_pb.ListFriendsRequest(), metadata=bearer(bob)).friends
    assert [f.player_id for f in listed] == [ann_id]
