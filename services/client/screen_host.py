"""What a screen of `domino play` may ask of the session that switches between the screens
(app.py's App): its services, inbox and terminal, what the command line decided, and the way
to the other screens.

Screens are typed against this port, not against App: App builds every screen and hands
itself to each, so a screen that named App would import the module that imports it. Through
the port, app.py is the one module that knows every screen, and no screen knows app.py."""

from __future__ import annotations

from typing import Callable, Protocol

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import export_check, families
from .account_screen import AccountScreen
from .api import MatchApi, MatchmakingApi
from .choices import Choices
from .families import Setup
from .game import GameOptions
from .inbox import Inbox
from .social_api import SocialApi
from .store import Exports, KeptHeads, LastMatch
from .terminal import Output
from .unread import UnreadCount


class Screen(Protocol):
    def run(self) -> None: ...


class MatchHistory(Protocol):
    def my_matches(self) -> bool: ...

    def ratings(self) -> None: ...


class Friends(Screen, Protocol):
    def invite(self, room_id: str, player_ids: list[str]) -> str: ...


class Room(Protocol):
    def run(self, room: mm.RoomView) -> str | None: ...


class Ticket(Protocol):
    def run(self, ticket: mm.TicketView) -> str | None: ...


class TurnTimer(Protocol):
    def turn_timer(self, setup: Setup) -> int | None: ...


class Host(Protocol):
    player: str
    match: MatchApi
    matchmaking: MatchmakingApi
    inbox: Inbox
    out: Output
    store: LastMatch
    heads: KeptHeads | None
    game_options: GameOptions
    choices: Choices
    interactive: bool
    exports: Exports | None
    account: AccountScreen | None
    social: SocialApi | None

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def verify(self) -> export_check.Runner: ...

    @property
    def unread(self) -> UnreadCount | None: ...

    @property
    def history(self) -> MatchHistory: ...

    @property
    def friends(self) -> Friends: ...

    @property
    def notices(self) -> Screen: ...

    @property
    def room_lobby(self) -> Room: ...

    @property
    def table_wait(self) -> Ticket: ...

    @property
    def setup_questions(self) -> TurnTimer: ...

    def rules(self) -> families.Rules: ...

    def me(self) -> str: ...

    def setup(self, public: bool = False) -> Setup: ...

    def practice(self) -> pb.MatchView | None: ...

    def table(self) -> pb.MatchView | None: ...

    def create_room(self) -> pb.MatchView | None: ...

    def join_room(self, code: str | None = None) -> pb.MatchView | None: ...

    def play_match(self, match_id: str) -> pb.MatchView | None: ...

    def watch(self, match_id: str | None = None) -> pb.MatchView | None: ...

    def after_match(self, final: pb.MatchView | None) -> bool: ...
