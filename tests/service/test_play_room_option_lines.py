"""Every seat in a room is told what the host's option change did and why, against a real
matchmaking service (issue 34, finding 15): the host's `o rules=goat` changed the header
without the line README promises (the stream's echo of the change redrew the lobby without
it), and guests were told nothing. Both lobbies run on terminals that redraw in place."""

from __future__ import annotations

import io
import re
import threading
import time

import pytest
from rich.console import Console

from services.client import render
from services.client.api import MatchApi, MatchmakingApi
from services.client.app import App, Choices
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from tests.support.keys import token

from .matchmaking_harness import running_system

LINE = "rules goat (variant koza by default); target 150 → 101: Goat plays to 101."


@pytest.fixture
def system():
    with running_system(table_wait_seconds=20) as running:
        yield running


class Terminal(Output):
    """A terminal that redraws each screen in place; ``last`` is what it shows now."""

    def __init__(self) -> None:
        super().__init__(Console(file=io.StringIO(), width=160, height=60, color_system=None), redraw=True)
        self.last = ""
        self.screens = 0

    def screen(self, renderable, with_prompt=False, in_place=False) -> None:
        self.last = render.to_text(renderable, width=160)
        self.screens += 1
        super().screen(renderable, with_prompt, in_place)

    def showing(self, text: str, within: float = 10.0) -> str:
        deadline = time.monotonic() + within
        while text not in self.last:
            assert time.monotonic() < deadline, f"{text!r} is not on screen:\n{self.last}"
            time.sleep(0.01)
        return self.last


class Lobby:
    def __init__(self, system, tmp_path, player: str, enter, **choices) -> None:
        self.api = MatchmakingApi(f"127.0.0.1:{system.port}", token(player))
        self.match = MatchApi(f"127.0.0.1:{system.match.port}", token(player))  # DescribeRules
        self.inbox = Inbox()
        self.out = Terminal()
        self.app = App(player, match=self.match, matchmaking=self.api, inbox=self.inbox, out=self.out,
                       store=LastMatch(tmp_path, player), game_options=GameOptions(tick=0), choices=Choices(**choices))
        self.thread = threading.Thread(target=lambda: enter(self.app), daemon=True)
        self.thread.start()

    def type(self, line: str) -> None:
        self.inbox.put("line", line)

    def close(self) -> None:
        self.type("q")
        self.thread.join(10)
        self.api.close()
        self.match.close()


def changed_with_a_guest(system, tmp_path, check) -> None:
    """ann hosts a three-seat All Fives room to 150, bob joins, ann types ``o rules=goat``;
    ``check(host, guest)`` then."""
    host = Lobby(system, tmp_path, "ann", lambda app: app.create_room(), rules="all-fives", seats=3, target=150)
    guest = None
    try:
        code = re.search(r"Invite code\s+(\w+)", host.out.showing("Invite code")).group(1)
        guest = Lobby(system, tmp_path, "bob", lambda app: app.room_lobby.join(code))
        host.out.showing("bob")
        guest.out.showing("Waiting for the host")
        host.type("o rules=goat")
        guest.out.showing("goat")
        check(host, guest)
    finally:
        if guest is not None:
            guest.close()
        host.close()


def test_the_host_is_still_told_what_the_change_did_after_the_room_stream_echoes_it(system, tmp_path):
    def check(host, guest):
        drawn = host.out.screens
        host.type("r")  # the echo of the change has come by now (bob saw it): one more screen after it
        deadline = time.monotonic() + 10
        while host.out.screens == drawn:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert LINE in host.out.last and "goat" in host.out.last.splitlines()[0]

    changed_with_a_guest(system, tmp_path, check)


def test_a_guest_is_told_what_the_hosts_change_did_and_why(system, tmp_path):
    def check(host, guest):
        assert f"The host changed the options: {LINE}" in guest.out.showing("The host changed the options")

    changed_with_a_guest(system, tmp_path, check)
