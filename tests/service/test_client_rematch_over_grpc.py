""""Play again" through the terminal client, over real gRPC: a room's match played to its
end on the real match service, then one player's client asks for the rematch
(RequestRematch) and waits in its lobby, the other finds "wants to play again" in the Inbox
and accepts, and the rematch room starts by itself: both clients are taken to its match.
Matchmaking is wired to a real social service and account service
(tests/service/invites_harness.py)."""

from __future__ import annotations

import threading
import time

import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.social.v1 import social_service_pb2 as social_pb
from services.client import names
from services.client.account_api import AccountApi
from services.client.api import MatchmakingApi
from services.client.social_api import SocialApi
from tests.support.grpc_matches import play_whole_match
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import scripted

from .account_harness import bearer
from .invites_harness import running_friends

pytestmark = pytest.mark.usefixtures("served_rules")


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("client-rematch")) as running:
        yield running


@pytest.fixture
def played(friends):
    """Ann and Bob's two-seat room match, played to its end: (ann, bob, match_id)."""
    ann, bob = friends.player("Ann"), friends.player("Bob")
    room = friends.create_room(ann, variant="draw-2", request_id=f"room-{ann.player_id}")
    friends.stub.JoinRoom(mm.JoinRoomRequest(code=room.code), metadata=bearer(bob))
    match_id = friends.stub.StartRoom(mm.StartRoomRequest(room_id=room.room_id), metadata=bearer(ann)).room.match_id
    assert match_id
    play_whole_match(friends.system.match, match_id)
    return ann, bob, match_id


@pytest.fixture
def client(friends, tmp_path):
    opened: list = []
    accounts = AccountApi(f"127.0.0.1:{friends.social.accounts.port}")

    def screens(session, lines):
        social = SocialApi(f"127.0.0.1:{friends.social.port}", session.access_token)
        matchmaking = MatchmakingApi(f"127.0.0.1:{friends.system.port}", session.access_token)
        opened.extend((social, matchmaking))
        accounts.fixed = session.access_token  # names are asked with the newest player's token
        return scripted(lines, tmp_path / session.player_id, social, player=session.player_id,
                        matchmaking=matchmaking, closed=False)  # the input stays open: each waits in a lobby

    names.use(names.Names(accounts.display_names))
    yield screens
    names.use(names.PLAIN)
    for api in opened:
        api.close()
    accounts.close()


def final_view(friends, session, match_id) -> match_pb.MatchView:
    return friends.system.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id),
                                              metadata=bearer(session)).view


def test_play_again_asks_the_others_and_the_rematch_starts_once_they_say_yes(friends, client, played):
    ann, bob, match_id = played
    anns = client(ann, ["p"])
    asking = threading.Thread(target=anns.app.after_match, args=(final_view(friends, ann, match_id),), daemon=True)
    asking.start()
    bobs = client(bob, ["1", "a"])
    answering = threading.Thread(target=bobs.app.notices.run, daemon=True)
    deadline = time.monotonic() + 10
    while not any(n.kind == social_pb.NOTIFICATION_KIND_REMATCH for n in friends.inbox(bob)) and time.monotonic() < deadline:
        time.sleep(0.05)  # the REMATCH notice is stored once Ann's rematch room is made
    answering.start()
    asking.join(timeout=20)
    answering.join(timeout=20)
    assert not asking.is_alive() and not answering.is_alive()
    assert anns.played and anns.played == bobs.played and anns.played[0] != match_id
    assert f"{names.name(ann.player_id)} wants to play Egyptian draw-2 again" in bobs.text
