"""Friends' presence over real gRPC: ONLINE while a WatchNotifications stream of theirs is
open, OFFLINE with last_seen once the last closes, PLAYING when the match service (a
gRPC server on loopback answering ListPlayingNow, checking the social service's token)
says so, and not playing, never an error, when it is away. A revoked session's stream
ends (UNAUTHENTICATED, SESSION_ENDED)."""

from __future__ import annotations

import asyncio
import time
from concurrent import futures

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as mpb
from domino.match.v1 import match_service_pb2_grpc as mpb_grpc
from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import bearer_identity
from services.common.revocations import Page, Revocations
from services.social.match_client import GrpcPlayingNow
from tests.support.errors import refusal
from tests.support.keys import KEYS

from .account_harness import bearer
from .social_harness import running_social
from .test_social_inbox_over_grpc import watching

_names = iter(range(10**6))


class Matches(mpb_grpc.MatchServiceServicer):
    """The match service's ListPlayingNow: who plays what (set by the test)."""

    def __init__(self) -> None:
        self.playing: dict[str, mpb.PlayingNow] = {}
        self.callers: list[str] = []

    def ListPlayingNow(self, request, context):
        who = bearer_identity(context.invocation_metadata(), KEYS)
        self.callers.append(f"{who.role}:{who.subject}")
        return mpb.ListPlayingNowResponse(playing=[self.playing[p] for p in request.player_ids if p in self.playing])


class Revoked:
    """The account service's revocation list, as the test fills it."""

    def __init__(self) -> None:
        self.sessions: list[tuple[str, float]] = []

    async def page(self, after_cursor: int, page_size: int, wait_seconds: float = 0) -> Page:
        return Page(tuple(self.sessions[after_cursor:]), len(self.sessions), False)


@pytest.fixture(scope="module")
def matches():
    servicer = Matches()
    server = grpc.server(futures.ThreadPoolExecutor(2))
    mpb_grpc.add_MatchServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield servicer, port
    server.stop(0)


@pytest.fixture(scope="module")
def revoked():
    return Revoked()


@pytest.fixture(scope="module")
def revocations(revoked):
    return Revocations(revoked)


@pytest.fixture(scope="module")
def svc(tmp_path_factory, matches, revocations):
    playing = GrpcPlayingNow(f"127.0.0.1:{matches[1]}", KEYS)
    with running_social(tmp_path_factory.mktemp("social-presence"), revocations=revocations,
                        playing=playing) as service:
        yield service
    playing.close()


@pytest.fixture
def pair(svc):
    ann, bob = svc.sign_up(f"Ann Here {next(_names)}"), svc.sign_up(f"Bob Here {next(_names)}")
    svc.stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id="r", display_name=bob.display_name),
                               metadata=bearer(ann))
    svc.stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=ann.player_id), metadata=bearer(bob))
    return ann, bob


def presence_of(svc, who) -> pb.FriendPresence:
    [friend] = svc.stub.ListFriends(pb.ListFriendsRequest(), metadata=bearer(who)).friends
    return friend.presence


def eventually(read, wanted, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while (got := read()) != wanted and time.monotonic() < deadline:
        time.sleep(0.02)
    return got


def test_a_friend_is_online_while_a_stream_is_open_then_offline_with_last_seen(svc, pair):
    ann, bob = pair
    assert presence_of(svc, ann).availability == pb.AVAILABILITY_OFFLINE
    assert not presence_of(svc, ann).HasField("last_seen")
    got, call = watching(svc, bob)
    got.get(timeout=10)
    assert eventually(lambda: presence_of(svc, ann).availability, pb.AVAILABILITY_ONLINE) == pb.AVAILABILITY_ONLINE
    call.cancel()
    assert eventually(lambda: presence_of(svc, ann).availability, pb.AVAILABILITY_OFFLINE) == pb.AVAILABILITY_OFFLINE
    assert presence_of(svc, ann).last_seen.seconds >= int(time.time()) - 60


def test_a_friend_stays_online_until_their_last_stream_closes(svc, pair):
    ann, bob = pair
    streams = [watching(svc, bob) for _ in range(2)]
    for got, _ in streams:
        got.get(timeout=10)
    streams[0][1].cancel()
    assert eventually(lambda: svc.presence.counts.get(bob.player_id), 1) == 1
    assert eventually(lambda: len(svc.presence._writing), 0) == 0
    assert presence_of(svc, ann).availability == pb.AVAILABILITY_ONLINE
    streams[1][1].cancel()
    assert eventually(lambda: presence_of(svc, ann).availability, pb.AVAILABILITY_OFFLINE) == pb.AVAILABILITY_OFFLINE


def test_a_stream_cancelled_while_its_presence_is_written_leaves_the_player_offline(svc, pair):
    ann, bob = pair
    with svc.presence._store_lock:  # the stream's first write waits here
        _, call = watching(svc, bob)
        assert eventually(lambda: svc.presence.counts.get(bob.player_id), 1) == 1
        call.cancel()
        eventually(lambda: svc.presence.counts.get(bob.player_id), None, seconds=2.0)  # the server saw the cancel
    assert eventually(lambda: (svc.presence.counts.get(bob.player_id), len(svc.presence._writing)),
                      (None, 0)) == (None, 0)
    assert presence_of(svc, ann).availability == pb.AVAILABILITY_OFFLINE


def test_a_friend_seated_in_a_match_is_playing_it(svc, matches, pair):
    servicer, _ = matches
    ann, bob = pair
    servicer.playing[bob.player_id] = mpb.PlayingNow(player_id=bob.player_id, match_id="m-1", rules="block",
                                                     watchable=True)
    got = presence_of(svc, ann)
    assert (got.availability, got.match_id, got.rules, got.watchable) == (pb.AVAILABILITY_PLAYING, "m-1", "block", True)
    assert servicer.callers[-1] == "service:social"


def test_an_away_match_service_shows_friends_as_not_playing():
    away = GrpcPlayingNow("127.0.0.1:1", KEYS, timeout_seconds=0.2)
    assert away.playing(["someone"]) == {} and away.failures == 1
    away.close()


def test_a_revoked_sessions_stream_ends(svc, revoked, revocations, pair):
    ann, _ = pair
    got, call = watching(svc, ann)
    got.get(timeout=10)
    session = bearer_identity(bearer(ann), KEYS).session
    assert session
    revoked.sessions.append((session, time.time() + 900))
    asyncio.run_coroutine_threadsafe(revocations.step(), svc.loop).result(10)
    error = got.get(timeout=10)
    assert isinstance(error, grpc.RpcError)
    assert (error.code(), refusal(error).reason) == (grpc.StatusCode.UNAUTHENTICATED, "SESSION_ENDED")

