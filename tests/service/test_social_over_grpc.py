"""Friends and blocks over real gRPC: two players signed in with real devices through the
real account service, found by display name and by friend code."""

from __future__ import annotations

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as pb
from tests.support.errors import refusal

from .account_harness import bearer
from .social_harness import running_social


@pytest.fixture
def svc(tmp_path):
    with running_social(tmp_path) as service:
        yield service


def test_two_players_befriend_by_name_and_by_code_then_one_blocks_the_other(svc):
    ann, bob = svc.sign_up("Ann Social"), svc.sign_up("Bob Social")
    sent = svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="r-1", display_name="ann social"),
                                      metadata=bearer(bob))
    assert sent.outcome == pb.SEND_OUTCOME_REQUEST_SENT and sent.request.player_id == ann.player_id
    incoming = svc.stub.ListFriendRequests(pb.ListFriendRequestsRequest(
        direction=pb.FRIEND_REQUEST_DIRECTION_INCOMING), metadata=bearer(ann)).requests
    assert [(r.player_id, r.direction) for r in incoming] == [(bob.player_id, pb.FRIEND_REQUEST_DIRECTION_INCOMING)]
    svc.stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=bob.player_id), metadata=bearer(ann))
    assert [f.player_id for f in svc.stub.ListFriends(pb.ListFriendsRequest(), metadata=bearer(bob)).friends] == \
           [ann.player_id]

    svc.stub.BlockPlayer(pb.BlockPlayerRequest(player_id=bob.player_id), metadata=bearer(ann))
    assert svc.stub.ListFriends(pb.ListFriendsRequest(), metadata=bearer(bob)).friends == []
    code = svc.stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(ann)).friend_code
    for target in (dict(display_name="Ann Social"), dict(friend_code=code)):
        with pytest.raises(grpc.RpcError) as caught:
            svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id=f"r-{target}", **target),
                                       metadata=bearer(bob))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        assert refusal(caught.value).reason == "PLAYER_NOT_FOUND" and "block" not in caught.value.details()
    blocked = svc.stub.ListBlockedPlayers(pb.ListBlockedPlayersRequest(), metadata=bearer(ann)).blocked
    assert [b.player_id for b in blocked] == [bob.player_id]


def test_a_request_to_someone_who_sent_one_makes_friends_over_grpc(svc):
    ann, bob = svc.sign_up("Ann Mutual"), svc.sign_up("Bob Mutual")
    code = svc.stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(bob)).friend_code
    svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="a", friend_code=code.lower()),
                               metadata=bearer(ann))
    back = svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="b", display_name="Ann Mutual"),
                                      metadata=bearer(bob))
    assert back.outcome == pb.SEND_OUTCOME_BECAME_FRIENDS and back.friend.player_id == ann.player_id
    assert back.friend.since.seconds > 0
