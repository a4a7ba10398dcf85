"""`domino play`'s social screens driven by typed lines: an App with a SocialApi (real, to a
real social service on loopback, or a fake at the same seam) and a matchmaking that records
the invites, answers and rematches asked of it (the client's API seam, as
tests/unit/test_play_lobby.py's fakes)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.social.v1 import social_service_pb2 as so
from services.client.api import ApiError
from services.client.app import App
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from services.common.error_details import Details
from tests.support.rules_description import described


class Idle:
    """A stream that brings nothing and ends at once."""

    def __iter__(self):
        return iter(())

    def cancel(self) -> None:
        pass


@dataclass
class Matchmaking:
    """Where the player is (``place``), and the calls of issue 36 recorded: invites sent,
    invites answered, rematches asked; each room they lead to is ``room``."""
    address: str = "fake:2"
    place: mm.GetPresenceResponse = field(default_factory=mm.GetPresenceResponse)
    room_view: mm.RoomView = field(default_factory=lambda: mm.RoomView(
        room_id="r-9", code="QW3RTY7P", host_player_id="host", status=mm.ROOM_STATUS_PLAYING, match_id="m-next",
        version=3, options=mm.MatchOptions(rules="classic", seat_count=2)))
    calls: list = field(default_factory=list)
    refuse: ApiError | None = None

    def presence(self, timeout: float = 0) -> mm.GetPresenceResponse:
        return self.place

    def invite(self, room_id: str, player_ids: list[str]) -> list[mm.RoomInvite]:
        self.calls.append(("invite", room_id, list(player_ids)))
        if self.refuse is not None:
            raise self.refuse
        return [mm.RoomInvite(invite_id=f"i-{p}", room_id=room_id, player_id=p, status=mm.INVITE_STATUS_PENDING)
                for p in player_ids]

    def answer_invite(self, invite_id: str, accept: bool) -> mm.AnswerInviteResponse:
        self.calls.append(("answer", invite_id, accept))
        if self.refuse is not None:
            raise self.refuse
        invite = mm.RoomInvite(invite_id=invite_id, status=mm.INVITE_STATUS_ACCEPTED if accept
                               else mm.INVITE_STATUS_DECLINED)
        return mm.AnswerInviteResponse(invite=invite, room=self.room_view) if accept else \
            mm.AnswerInviteResponse(invite=invite)

    def request_rematch(self, match_id: str) -> mm.RoomView:
        self.calls.append(("rematch", match_id))
        if self.refuse is not None:
            raise self.refuse
        return self.room_view

    def room(self, room_id: str) -> mm.RoomView:
        return self.room_view

    def watch_room(self, room_id: str, from_version: int = 0) -> Idle:
        return Idle()

    def leave_room(self, room_id: str) -> mm.RoomView:
        self.calls.append(("leave", room_id))
        return mm.RoomView(room_id=room_id, status=mm.ROOM_STATUS_CLOSED, version=99)


class Match:
    address = "fake:1"
    rules = staticmethod(described)


def refused(code: grpc.StatusCode, message: str, reason: str) -> ApiError:
    return ApiError(code, message, "fake", details=Details(reason))


@dataclass
class Scripted:
    """The App, what it printed, and the matches and spectated matches it opened."""
    app: App
    screen: io.StringIO
    matchmaking: Matchmaking
    played: list = field(default_factory=list)
    watched: list = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.screen.getvalue()


def scripted(lines: list[str], tmp_path: Path, social: Any, player: str = "ann",
             matchmaking: Any = None, finals: dict[str, pb.MatchView] | None = None,
             interactive: bool = True, closed: bool = True) -> Scripted:
    """An App whose player types ``lines`` then closes the input (``closed``; else the
    input stays open, as a player who waits). Opening a match records it and answers
    ``finals[match_id]`` (None: the player left it); watching one records it."""
    inbox = Inbox()
    for line in lines:
        inbox.put("line", line)
    if closed:
        inbox.put("eof")
    file = io.StringIO()
    out = Output(Console(file=file, width=120, color_system=None, highlight=False), redraw=False)
    matchmaking = matchmaking or Matchmaking()
    app = App(player, match=Match(), matchmaking=matchmaking, inbox=inbox, out=out,  # type: ignore[arg-type]
              store=LastMatch(tmp_path, player), game_options=GameOptions(tick=0), social=social)
    app.interactive = interactive
    done = Scripted(app, file, matchmaking)

    def play(match_id: str) -> pb.MatchView | None:
        done.played.append(match_id)
        return (finals or {}).get(match_id)

    def watch(match_id: str | None = None) -> pb.MatchView | None:
        done.watched.append(match_id)
        return None

    app.play_match = play  # type: ignore[method-assign]
    app.watch = watch  # type: ignore[method-assign]
    return done


@dataclass
class Social:
    """The social service at the client's seam (SocialApi's methods): friends with their
    presence, an inbox, and the calls made."""
    address: str = "fake:4"
    code: str = "K7M2-PQ4X"
    friend_list: list = field(default_factory=list)
    inbox: list = field(default_factory=list)
    calls: list = field(default_factory=list)

    def friend_code(self) -> str:
        return self.code

    def friends(self) -> list:
        return list(self.friend_list)

    def requests(self) -> list:
        return []

    def blocked(self) -> list:
        return []

    def accept(self, player_id: str):
        self.calls.append(("accept", player_id))

    def decline(self, player_id: str) -> None:
        self.calls.append(("decline", player_id))

    def notifications(self, page_token: str = "", page_size: int = 30):
        unread = sum(1 for n in self.inbox if not n.read)
        return so.ListNotificationsResponse(notifications=self.inbox, unread_count=unread)

    def mark_read(self, notification_ids=None) -> int:
        self.calls.append(("read", list(notification_ids or [])))
        for notice in self.inbox:
            if not notification_ids or notice.notification_id in notification_ids:
                notice.read = True
        return sum(1 for n in self.inbox if not n.read)

    def unread_count(self, timeout: float = 0) -> int:
        return sum(1 for n in self.inbox if not n.read)

    def watch_notifications(self) -> Idle:
        return Idle()
