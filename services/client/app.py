"""`domino play` put together: the session's services, inbox and screen, and the screens
it switches between (main_menu.py, setup_questions.py, table_wait.py, room_lobby.py,
match_screens.py, history_menu.py, account_screen.py, friends_screen.py, notices_screen.py,
play_again.py), all reading the same inbox."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from domino.match.v1 import match_service_pb2 as pb

from . import export_check, families
from .account_screen import AccountScreen
from .api import MatchApi, MatchmakingApi
from .choices import Choices
from .families import Setup
from .game import ClientError, GameOptions
from .friends_screen import FriendsScreen
from .history_menu import HistoryMenu
from .inbox import Inbox, InputClosed
from .main_menu import MainMenu, WayBack
from .match_screens import MatchScreens
from .notices_screen import NoticesScreen
from .play_again import PlayAgain
from .refusals import explain
from .room_lobby import RoomLobby
from .setup_questions import SetupQuestions
from .social_api import SocialApi
from .store import Exports, KeptHeads, LastMatch
from .table_wait import TableWait
from .terminal import Output
from .unread import UnreadCount


@dataclass
class App:
    player: str
    match: MatchApi
    matchmaking: MatchmakingApi
    inbox: Inbox
    out: Output
    store: LastMatch
    heads: KeptHeads | None = None
    game_options: GameOptions = field(default_factory=GameOptions)
    choices: Choices = field(default_factory=Choices)
    clock: Callable[[], float] = time.time
    interactive: bool = False  # the menu is in charge: answers are typed, closed input ends the client
    exports: Exports | None = None  # where "Your matches" writes the records the player exports
    account: AccountScreen | None = None  # signed in to the account service: the menu's "Account"
    verify: export_check.Runner = export_check.run_verifier  # runs `domino audit verify` on an export
    social: SocialApi | None = None  # the social service: the menu's "Friends" and "Inbox"

    def __post_init__(self) -> None:
        self.main_menu = MainMenu(self)
        self.setup_questions = SetupQuestions(self)
        self.table_wait = TableWait(self)
        self.room_lobby = RoomLobby(self)
        self.match_screens = MatchScreens(self)
        self.history = HistoryMenu(self)
        self.friends = FriendsScreen(self)
        self.notices = NoticesScreen(self)
        self.play_again = PlayAgain(self)
        self.unread = UnreadCount(self.social) if self.social is not None else None

    def rules(self) -> families.Rules:
        """What the server plays, asked once per session (DescribeRules): every question and
        screen reads it. Without a match service to ask, the built-in rules."""
        return self.match.rules() if self.match is not None else families.current()

    def me(self) -> str:
        """The name the player goes by: their display name when signed in to an account."""
        return (self.account.display_name if self.account is not None else "") or self.player

    # ---- the screens, each started from the menu or the command line -----------------

    def menu(self) -> int:
        """The interactive menu, until the player quits."""
        return self.main_menu.run()

    def way_back(self) -> WayBack | None:
        return self.main_menu.way_back()

    def go_back(self, back: WayBack) -> pb.MatchView | None:
        return self.main_menu.go_back(back)

    def last_match_id(self) -> str | None:
        return self.main_menu.last_match_id()

    def setup(self, public: bool = False) -> Setup:
        return self.setup_questions.setup(public)

    def practice(self) -> pb.MatchView | None:
        self.rules()
        setup = self.setup()
        timer = self.setup_questions.turn_timer(setup)
        strength = self.setup_questions.strength(setup)
        self.out.say(f"Starting practice: {_setup_name(setup)}, against {strength} bots…", style="dim")
        started = self.matchmaking.start_practice(setup, strength, timer)
        return self.play_match(started.match_id)

    def table(self) -> pb.MatchView | None:
        return self._then_play(self.table_wait.request())

    def create_room(self) -> pb.MatchView | None:
        return self._then_play(self.room_lobby.create())

    def join_room(self, code: str | None = None) -> pb.MatchView | None:
        return self._then_play(self.room_lobby.join(code))

    def play_match(self, match_id: str) -> pb.MatchView | None:
        return self.match_screens.play(match_id)

    def watch(self, match_id: str | None = None) -> pb.MatchView | None:
        return self.match_screens.watch(match_id)

    def after_match(self, final: pb.MatchView | None) -> bool:
        """What the menu offers after a match it started ("play again"); True when the player
        has answered it, so the menu needs no pause."""
        return self.interactive and self.play_again.offer(final)

    def _then_play(self, match_id: str | None) -> pb.MatchView | None:
        return self.play_match(match_id) if match_id else None


def _setup_name(setup: Setup) -> str:
    return f"{families.title(setup.rules, setup.variant)}, {setup.seat_count} seats"


__all__ = ["App", "Choices", "ClientError", "InputClosed", "WayBack", "explain"]
