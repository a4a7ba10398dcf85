"""Two phones through `domino up`'s processes, the notifier's pushes landing on a fake APNs
that speaks Apple's protocol: A befriends B, B's app closes, A invites B, B's phone buzzes,
B accepts and is seated, B's app is closed on B's turn and B's phone gets "your turn" with
the seconds left, B opens the app and plays; both get the result, and A's "play again"
seats B again once B says yes (docs/social.md)."""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.account.v1 import account_service_pb2_grpc as acc_grpc
from domino.match.v1 import match_service_pb2 as mpb
from domino.match.v1 import match_service_pb2_grpc as mpb_grpc
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc
from domino.social.v1 import social_service_pb2 as so
from domino.social.v1 import social_service_pb2_grpc as so_grpc
from services.common.supervisor import NOTIFIER, SERVICES, LocalSystem, Ports
from tests.support.fake_apns import running_apns

from .conftest import SYSTEM_ENV, scratch_dir

B_TOKEN = secrets.token_hex(32)


class Phone:
    """One player's app: its account, its calls, and (while open) its match stream."""

    def __init__(self, system: LocalSystem, name: str) -> None:
        self.channels = [grpc.insecure_channel(a) for a in (system.account_address, system.social_address,
                                                              system.matchmaking_address, system.match_address)]
        accounts = acc_grpc.AccountServiceStub(self.channels[0])
        session = accounts.SignInWithDevice(acc.SignInWithDeviceRequest(
            device_id=secrets.token_urlsafe(24), device_secret=secrets.token_hex(32),
            display_name=f"{name}{secrets.token_hex(3)}"), timeout=10).session
        self.player_id = session.player_id
        self.name = accounts.GetAccount(acc.GetAccountRequest(), metadata=self._auth(session.access_token),
                                        timeout=10).account.display_name
        self.metadata = self._auth(session.access_token)
        self.social = so_grpc.SocialServiceStub(self.channels[1])
        self.rooms = mm_grpc.MatchmakingServiceStub(self.channels[2])
        self.match = mpb_grpc.MatchServiceStub(self.channels[3])
        self.stream = None
        self.watching = threading.Event()

    @staticmethod
    def _auth(token: str) -> tuple:
        return (("authorization", f"Bearer {token}"),)

    def notices(self) -> list[so.Notification]:
        return list(self.social.ListNotifications(so.ListNotificationsRequest(), metadata=self.metadata,
                                                  timeout=10).notifications)

    def open_match(self, match_id: str) -> None:
        """The app comes to the foreground: a WatchMatch stream, read on a thread."""
        self.stream = self.match.WatchMatch(mpb.WatchMatchRequest(match_id=match_id), metadata=self.metadata)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            for _ in self.stream:
                self.watching.set()
        except grpc.RpcError:
            pass

    def view(self, match_id: str) -> mpb.MatchView:
        return self.match.GetMatch(mpb.GetMatchRequest(match_id=match_id), metadata=self.metadata, timeout=10).view

    def act(self, match_id: str, view: mpb.MatchView) -> None:
        move = view.legal_moves[-1]
        request_id = str(uuid.uuid4())
        if move.kind == mpb.MOVE_KIND_DRAW:
            self.match.DrawTile(mpb.DrawTileRequest(match_id=match_id, request_id=request_id),
                                metadata=self.metadata, timeout=10)
        else:
            self.match.PlayTile(mpb.PlayTileRequest(match_id=match_id, request_id=request_id, tile=move.tile,
                                                    end=move.end), metadata=self.metadata, timeout=10)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.cancel()
        for channel in self.channels:
            channel.close()


def eventually(check, what: str, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def pushes_to(apns, token: str, key: str) -> list:
    return [r for r in apns.received if r.token == token and r.payload["aps"]["alert"]["loc-key"] == key]


def my_turn(phone: Phone, match_id: str) -> mpb.MatchView | None:
    view = phone.view(match_id)
    if view.status == mpb.MATCH_STATUS_IN_PROGRESS and view.HasField("turn") and \
            view.turn == view.your_seat and view.legal_moves:
        return view
    return None


def room_of(phone: Phone, room_id: str) -> mm.RoomView:
    return phone.rooms.GetRoom(mm.GetRoomRequest(room_id=room_id), metadata=phone.metadata, timeout=10).room


@pytest.fixture
def world():
    with scratch_dir("domino-come-back-") as path:
        with running_apns(path / "apns") as apns:
            notifier = apns.notifier_env(DOMINO_NOTIFIER_TURN_GRACE_SECONDS="1")
            services = SERVICES if NOTIFIER in SERVICES else (*SERVICES, NOTIFIER)
            with LocalSystem(path / "var", Ports.free(), services=services, extra_env=SYSTEM_ENV,
                             notifier_env=notifier) as system:
                yield system, apns


def test_two_phones_befriend_invite_play_with_pushes_and_play_again(world):
    system, apns = world
    a, b = Phone(system, "Ann"), Phone(system, "Bob")
    try:
        b.social.RegisterPushToken(so.RegisterPushTokenRequest(
            installation_id="bobs-phone", platform=so.PUSH_PLATFORM_APNS, token=B_TOKEN,
            apns_environment=so.APNS_ENVIRONMENT_SANDBOX, locale="es-ES"), metadata=b.metadata, timeout=10)
        # A befriends B (B's app is open for that, then closes: no stream of B's anywhere)
        a.social.SendFriendRequest(so.SendFriendRequestRequest(request_id=str(uuid.uuid4()), display_name=b.name),
                                   metadata=a.metadata, timeout=10)
        b.social.AcceptFriendRequest(so.AcceptFriendRequestRequest(player_id=a.player_id), metadata=b.metadata,
                                     timeout=10)

        # A invites B to a room; B's closed app is told by a push
        rules = a.match.DescribeRules(mpb.DescribeRulesRequest(), metadata=a.metadata, timeout=10)
        egyptian = next(f for f in rules.families if f.name == "egyptian")
        room = a.rooms.CreateRoom(mm.CreateRoomRequest(
            request_id=str(uuid.uuid4()), rules="egyptian", variant="draw-2", seat_count=2,
            target=min(egyptian.targets), turn_timer_seconds=max(rules.turn_timers)),
            metadata=a.metadata, timeout=10).room
        invite = a.rooms.InviteToRoom(mm.InviteToRoomRequest(request_id=str(uuid.uuid4()), room_id=room.room_id,
                                                            player_ids=[b.player_id]),
                                      metadata=a.metadata, timeout=10).invites[0]
        buzz = eventually(lambda: pushes_to(apns, B_TOKEN, "notice.invite"), "B's phone gets the invite")[0]
        assert buzz.payload["domino"]["invite_id"] == invite.invite_id
        assert buzz.headers["apns-topic"] == apns.topic

        # B accepts from the notification and is seated; the host sees it
        answered = b.rooms.AnswerInvite(mm.AnswerInviteRequest(invite_id=invite.invite_id, accept=True),
                                        metadata=b.metadata, timeout=10)
        assert b.player_id in [s.player_id for s in answered.room.seats]
        seen = room_of(a, room.room_id)
        assert [i.status for i in seen.invites] == [mm.INVITE_STATUS_ACCEPTED]
        a.rooms.StartRoom(mm.StartRoomRequest(room_id=room.room_id), metadata=a.metadata, timeout=10)
        match_id = eventually(lambda: room_of(a, room.room_id).match_id, "the room's match starts")
        a.open_match(match_id)

        # A plays with its app open; on B's turn B's closed app gets "your turn" with the seconds left
        def b_to_act():
            view = my_turn(a, match_id)
            if view is not None:
                a.act(match_id, view)
                return None
            return my_turn(b, match_id)
        eventually(b_to_act, "B is to act", 60)
        turn_push = eventually(lambda: pushes_to(apns, B_TOKEN, "notice.your_turn"), "B gets your turn")[0]
        assert turn_push.payload["domino"]["match_id"] == match_id
        assert 0 < int(turn_push.payload["domino"]["args"]["seconds_left"]) <= max(rules.turn_timers)
        assert turn_push.headers["apns-collapse-id"] == f"turn-{match_id}"

        # B opens the app and plays; with its stream open, no more "your turn" pushes
        b.open_match(match_id)
        assert b.watching.wait(10), "B's stream never sent its first view"
        turns_pushed = len(pushes_to(apns, B_TOKEN, "notice.your_turn"))

        def play_on():
            for phone in (a, b):
                view = my_turn(phone, match_id)
                if view is not None:
                    phone.act(match_id, view)
            return a.view(match_id).status == mpb.MATCH_STATUS_ENDED
        eventually(play_on, "the match ends", 240)

        # both get the result in their inbox
        for phone in (a, b):
            eventually(lambda: [n for n in phone.notices() if n.kind == so.NOTIFICATION_KIND_MATCH_RESULT
                                and n.match_id == match_id], f"{phone.name} gets the result")
        assert len(pushes_to(apns, B_TOKEN, "notice.your_turn")) == turns_pushed

        # A plays again; B's phone is asked; B says yes and is seated in the new room, which starts
        rematch = a.rooms.RequestRematch(mm.RequestRematchRequest(match_id=match_id), metadata=a.metadata,
                                         timeout=10).room
        asked = eventually(lambda: pushes_to(apns, B_TOKEN, "notice.rematch"), "B's phone is asked to play again")
        invite_id = asked[0].payload["domino"]["invite_id"]
        b.rooms.AnswerInvite(mm.AnswerInviteRequest(invite_id=invite_id, accept=True), metadata=b.metadata,
                             timeout=10)
        again = eventually(lambda: (r := room_of(a, rematch.room_id)).match_id and r, "the rematch starts")
        assert {s.player_id for s in again.seats} == {a.player_id, b.player_id}
        assert again.rematch_of_match_id == match_id
    finally:
        a.close()
        b.close()
