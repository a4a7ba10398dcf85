"""Watching a match without a seat: WatchMatch as a spectator.

The server sends a spectator the public view (no hand) one full turn behind, and the table
talk as it is said; a match whose creator did not allow spectators is refused with
PERMISSION_DENIED, whose message is shown as it is. Nothing is sent: no moves, no chat.

When a round ends the spectator is shown the same summary a player is (round_end.py: how
it ended, the points, the running scores; Goat's writes, All Fives' points in play), until
Enter or the same pause as a player's (``round_pause``, ``round_end.leave_at``), and above
the result when it was the last round. Only the hands are missing: a spectator may not
export the match, so nothing tells it what each seat held.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from rich.console import Group, RenderableType
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import names, refusals, render, round_end, talk, view_reading
from .game import ClientError
from .inbox import Inbox, Pump
from .server_clock import ServerClock
from .terminal import Output

HELP = ("You are watching as a spectator: the table is shown one turn behind, with no hands. "
        "Enter refreshes, q leaves. Only the players at the table can chat; you see what they say.")


class Spectator:
    """``stop_on_eof``: closed input leaves (the menu); otherwise (``--watch``) watching goes
    on to the match's end."""

    def __init__(self, api, inbox: Inbox, out: Output, stop_on_eof: bool = True, round_pause: float = 0.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.api = api
        self.inbox = inbox
        self.out = out
        self.stop_on_eof = stop_on_eof
        self.round_pause = round_pause  # seconds a round's end stays on screen unless Enter is pressed (0: not shown)
        self.clock = ServerClock(clock)  # round starts are on the server's clock (server_clock.py)
        self.round_end: round_end.RoundEnd | None = None  # the ended round on screen, until round_end_until
        self.round_end_until: float | None = None
        self.final_round: round_end.RoundEnd | None = None  # the last round, above the result
        self.view: pb.MatchView | None = None
        self.talk = talk.TalkLog()
        self.message: str | Text = ""
        self.seated = False  # the watcher has a seat at this match: theirs to play, not to watch
        self.pump: Pump | None = None
        self.match_id = ""

    def run(self, match_id: str) -> pb.MatchView | None:
        """Watches until the match ends (its final view) or the watcher leaves (None).
        ClientError when the server refuses to show it (its message says why)."""
        self.match_id = match_id
        self.pump = Pump(self.inbox, "view", self._open, reopen_when_done=_reopen).start()
        try:
            return self._loop()
        finally:
            self.pump.stop()

    def _open(self, last):
        return self.api.watch(self.match_id, self.view.version if self.view is not None else 0)

    def _loop(self) -> pb.MatchView | None:
        dirty = answered = True
        self.out.say(Text(f"Watching match {self.match_id} as a spectator (one turn behind)…", style="dim"))
        while True:
            if self.seated:
                return None
            ended = self.view is not None and view_reading.is_ended(self.view)
            if self.round_end_until is not None and self.clock() >= self.round_end_until:
                self.round_end = self.round_end_until = None
                dirty = True
            if dirty and self.view is not None and (ended or answered or self.inbox.queue.empty()):
                # after each typed line; what the stream sends in a burst is drawn once
                self.out.screen(self._screen(), with_prompt=not view_reading.is_ended(self.view))
                dirty = False
            if ended:
                return self.view
            wait = None if self.round_end_until is None else max(0.0, self.round_end_until - self.clock())
            event = self.inbox.get(timeout=wait)
            if event is None:
                continue  # the round's end has been on screen long enough
            answered = event.kind == "line"
            if event.source is not None and event.source is not self.pump:
                continue  # a stream stopped earlier
            if event.kind == "view":
                self.clock.observe(event.value.server_time, event.at)
                dirty = self._streamed(event.value) or dirty
            elif event.kind == "view-end":
                dirty = True  # the server ended the stream with the match
            elif event.kind == "stream-error":
                if self.view is None:
                    refusal = refusals.yours(str(event.value), refusals.me_of(self.api))
                    raise ClientError(f"cannot watch match {self.match_id}: {refusal}")
                self.message = Text(f"The match stream ended: {event.value}", style="bold red")
                self.round_end = self.round_end_until = None
                self.out.screen(self._screen())
                return None
            elif event.kind == "link":
                self.message = (Text("Connection to the match service lost — reconnecting…", style="bold red")
                                if event.value == "lost" else Text("Reconnected.", style="green"))
                dirty = True
            elif event.kind == "eof":
                if self.stop_on_eof:
                    return None
            elif event.kind == "line":
                if self._on_line(event.value):
                    return None
                dirty = True

    def _streamed(self, update: pb.WatchMatchResponse) -> bool:
        """Whether the screen changes: a new chat phrase, or a newer view (a chat-only update
        carries no view)."""
        if update.HasField("chat"):
            return self.talk.add(update.chat)
        if not update.HasField("view"):
            return False
        view = update.view
        if view_reading.your_seat(view) is not None:
            self.seated = True
            return False
        if self.view is not None and view.version < self.view.version:
            return False
        names.learn(s.player_id for s in view.seats)
        before, self.view = self.view, view
        if before is not None:
            self._round_over(before, view)
        return True

    def _round_over(self, before: pb.MatchView, view: pb.MatchView) -> None:
        """Rounds ended between two views: the last one played is shown as a player sees it
        (without the hands), until Enter or the pause; once the match is over, above the result."""
        if len(view.rounds) == len(before.rounds):
            if view_reading.is_ended(view) and self.final_round is None and view.rounds:
                # the last round ended in an earlier view (its summary on screen), the match now
                self.final_round = self.round_end or round_end.ended_between(view, len(view.rounds) - 1)
            return
        shown = round_end.ended_between(view, len(before.rounds))
        if view_reading.is_ended(view):
            self.final_round = shown
        elif shown is None:  # only deals thrown in: the round on screen is followed by more of them
            if self.round_end is not None:
                self.round_end = replace(self.round_end,
                                         redeals=self.round_end.redeals + len(view.rounds) - len(before.rounds))
        elif self.round_pause > 0:
            self.round_end = shown
            self.round_end_until = round_end.leave_at(view, self.clock(), self.round_pause)

    def _screen(self) -> RenderableType:
        assert self.view is not None  # drawn once the first view came
        view = self.view
        talk_area = talk.talk_text(self.talk)
        if self.round_end is None or self.round_end_until is None or view_reading.is_ended(view):
            panel = (round_end.round_end_panel(view, self.final_round)
                     if self.final_round is not None and view_reading.is_ended(view) else None)
            return render.spectator_screen(view, self.message, talk_area, round_panel=panel)
        parts: list[RenderableType] = [render.header(view), round_end.round_end_panel(view, self.round_end)]
        if talk_area is not None:
            parts.append(talk_area)
        if self.message:
            parts.append(self.message if isinstance(self.message, Text) else Text(self.message, style="bold yellow"))
        now = self.clock()
        parts.append(round_end.next_round_text(view, now, self.round_end_until - now))
        return Group(*parts)

    def _on_line(self, line: str) -> bool:
        """True: leave."""
        text = line.strip().lower()
        self.message = ""
        if text in ("q", "quit", "exit"):
            return True
        if self.round_end is not None:  # the round's end read: Enter (or any line) goes on to the table
            self.round_end = self.round_end_until = None
        if text in ("?", "h", "help"):
            self.message = Text(HELP, style="cyan")
        elif talk.parse_chat(line) is not None:
            self.message = Text("Spectators cannot chat: only the players at the table can. You see what they "
                                "say in the table talk.", style="bold yellow")
        elif text:
            self.message = Text(f"{line.strip()!r}: you are watching, there is nothing to play. q leaves.",
                                style="bold yellow")
        return False


def _reopen(last: pb.WatchMatchResponse | None) -> bool:
    return last is None or not last.HasField("view") or not view_reading.is_ended(last.view)
