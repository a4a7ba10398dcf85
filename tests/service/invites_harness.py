"""Invites and rematch over real gRPC: matchmaking (tests/service/matchmaking_harness.py,
with its real match service) wired by its real clients to a real social service and a real
account service (tests/service/social_harness.py). Players sign in with real devices; their
friendships and blocks are made through the social service's own RPCs, and what they are
told is read from their inbox (ListNotifications), as an app reads it."""

from __future__ import annotations

import socket
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from domino.account.v1 import account_service_pb2 as account_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.social.v1 import social_service_pb2 as social_pb
from services.common.config import Settings
from services.common.service_tokens import ServiceToken
from services.matchmaking.account_client import GrpcStandings
from services.matchmaking.social_client import GrpcSocial
from services.social.bootstrap import create_server
from tests.support.background import serving_in_background
from tests.support.errors import refusal
from tests.support.keys import KEYS

from .account_harness import bearer
from .matchmaking_harness import System, running_system
from .social_harness import SocialService, running_social


class SocialDoor:
    """The door matchmaking reaches the social service by: a second server of the same
    social service (its store and use cases) on a port of its own, which a test closes and
    opens again, so the social service is away for matchmaking alone."""

    def __init__(self, social: SocialService) -> None:
        self.social = social
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._open: ExitStack | None = None

    def open(self) -> None:
        unlimited = Settings.model_construct(command_rate=1e9, command_burst=1e9)
        stack = ExitStack()
        stack.enter_context(serving_in_background(
            lambda: create_server(f"127.0.0.1:{self.port}", self.social.social, KEYS, settings=unlimited)))
        self._open = stack

    def close(self) -> None:
        if self._open is not None:
            self._open.close()
            self._open = None

    @contextmanager
    def closed(self):
        self.close()
        try:
            yield
        finally:
            self.open()


@dataclass
class Friends:
    social: SocialService
    system: System
    door: SocialDoor  # where matchmaking's own client reaches the social service
    client: GrpcSocial  # matchmaking's own client
    names: list[int] = field(default_factory=lambda: [0])

    @contextmanager
    def social_away(self):
        """The social service away for matchmaking; back (and reconnected to) after."""
        with self.door.closed():
            yield
        grpc.channel_ready_future(self.client.channel).result(timeout=10)

    @property
    def stub(self):
        return self.system.stub

    def player(self, name: str) -> account_pb.Session:
        """A signed-in player, named uniquely (a module's tests share one system)."""
        self.names[0] += 1
        return self.social.sign_up(f"{name} {self.names[0]}")

    def befriend(self, one: account_pb.Session, other: account_pb.Session) -> None:
        code = self.social.stub.GetFriendCode(social_pb.GetFriendCodeRequest(), metadata=bearer(other)).friend_code
        self.social.stub.SendFriendRequest(social_pb.SendFriendRequestRequest(request_id=f"f-{other.player_id}",
                                                                              friend_code=code), metadata=bearer(one))
        self.social.stub.AcceptFriendRequest(social_pb.AcceptFriendRequestRequest(player_id=one.player_id),
                                             metadata=bearer(other))

    def block(self, blocker: account_pb.Session, blocked: account_pb.Session) -> None:
        self.social.stub.BlockPlayer(social_pb.BlockPlayerRequest(player_id=blocked.player_id),
                                     metadata=bearer(blocker))

    def inbox(self, who: account_pb.Session) -> list[social_pb.Notification]:
        return list(self.social.stub.ListNotifications(social_pb.ListNotificationsRequest(),
                                                       metadata=bearer(who)).notifications)

    # ---- matchmaking, as a player ------------------------------------------------------

    def create_room(self, host: account_pb.Session, variant: str = "block-4", request_id: str = "room-1",
                    **options) -> pb.RoomView:
        return self.stub.CreateRoom(pb.CreateRoomRequest(request_id=request_id, variant=variant, **options),
                                    metadata=bearer(host)).room

    def invite(self, who: account_pb.Session, room_id: str, *invitees: account_pb.Session,
               request_id: str = "i-1") -> list[pb.RoomInvite]:
        request = pb.InviteToRoomRequest(request_id=request_id, room_id=room_id,
                                         player_ids=[p.player_id for p in invitees])
        return list(self.stub.InviteToRoom(request, metadata=bearer(who)).invites)

    def answer(self, who: account_pb.Session, invite_id: str, accept: bool = True) -> pb.AnswerInviteResponse:
        return self.stub.AnswerInvite(pb.AnswerInviteRequest(invite_id=invite_id, accept=accept),
                                      metadata=bearer(who))

    def get_invite(self, who: account_pb.Session, invite_id: str) -> pb.GetInviteResponse:
        return self.stub.GetInvite(pb.GetInviteRequest(invite_id=invite_id), metadata=bearer(who))

    def room(self, who: account_pb.Session, room_id: str) -> pb.RoomView:
        return self.stub.GetRoom(pb.GetRoomRequest(room_id=room_id), metadata=bearer(who)).room

    def rematch(self, who: account_pb.Session, match_id: str) -> pb.RoomView:
        return self.stub.RequestRematch(pb.RequestRematchRequest(match_id=match_id), metadata=bearer(who)).room

    def stored(self) -> int:
        return self.system.app.recorder.max_notification_id() or 0


def code_and_reason(call) -> tuple[grpc.StatusCode, str]:
    """The status and ErrorInfo reason ``call()`` ends with (OK and "" when it returns)."""
    try:
        call()
    except grpc.RpcError as error:
        return error.code(), refusal(error).reason
    return grpc.StatusCode.OK, ""


@contextmanager
def running_friends(tmp_path: Path, ttl_seconds: float = 600.0, **app_options):
    """A social service (and its account service), a match service and matchmaking wired to
    all three by its real clients, with its own service token (sub "matchmaking")."""
    with running_social(tmp_path) as social:
        door = SocialDoor(social)
        door.open()
        token = ServiceToken("matchmaking", KEYS, 600)
        client = GrpcSocial(f"127.0.0.1:{door.port}", token)
        standings = GrpcStandings(f"127.0.0.1:{social.accounts.port}", token)
        try:
            with running_system(social=client, standings=standings, invite_ttl_seconds=ttl_seconds,
                                **app_options) as system:
                yield Friends(social, system, door, client)
        finally:
            client.close()
            standings.close()
            door.close()
