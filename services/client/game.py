"""Playing one match: the screen, the player's commands, and the server's stream.

The loop is single-threaded: it waits on the inbox for a typed line, a new view from the
WatchMatch stream, or a tick, and redraws the screen when something changed. Moves are
checked against the view on screen before they are sent, each with a fresh request_id
that is reused for the retries of that one command.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import commands, render, tiles
from .api import ApiError, MatchApi, request_id
from .commands import ChooseEnd, Draw, Help, Invalid, Play, Quit, Refresh
from .inbox import Inbox, Pump
from .terminal import Output


class ClientError(Exception):
    """Something the player must be told before the client stops."""


@dataclass
class GameOptions:
    auto: bool = False  # play the first legal move on every turn
    delay: float = 0.0  # seconds to wait before an automatic move (for demos)
    tick: float = 1.0  # how often the countdown is redrawn while others play (0: never)


class Game:
    def __init__(self, api: MatchApi, inbox: Inbox, out: Output, options: GameOptions | None = None,
                 clock: Callable[[], float] = time.time, on_join: Callable[[str], None] = lambda match_id: None,
                 on_end: Callable[[str], None] = lambda match_id: None) -> None:
        self.api = api
        self.inbox = inbox
        self.out = out
        self.options = options or GameOptions()
        self.clock = clock
        self.on_join = on_join
        self.on_end = on_end
        self.view: pb.MatchView | None = None
        self.shown: pb.MatchView | None = None
        self.message: str | Text = ""
        self.pending: tiles.Tile | None = None
        self.dirty = True
        self.pump: Pump | None = None
        self.poll = False  # the stream failed for good: GetMatch every second instead
        self.lost = False  # the stream's connection is down; it is being opened again
        self.auto_tried = -1

    # ---- the loop -------------------------------------------------------------------

    def run(self, match_id: str) -> pb.MatchView | None:
        """Plays until the match ends (its final view) or the player leaves (None)."""
        view = self.api.get(match_id)
        if view.your_seat < 0:
            raise ClientError(f"you have no seat at match {match_id}")
        self.view = view
        self.on_join(match_id)
        if not tiles.is_ended(view) and view.seats[view.your_seat].away:
            self._resume()
        if not tiles.is_ended(view):
            self.pump = Pump(self.inbox, "view", self._open_watch,
                             reopen_when_done=lambda last: last is None or not tiles.is_ended(last.view)).start()
        try:
            return self._loop()
        finally:
            if self.pump is not None:
                self.pump.stop()

    def _open_watch(self, last):
        return self.api.watch(self.view.match_id, self.view.version)

    def _loop(self) -> pb.MatchView | None:
        answered = True
        while True:
            if tiles.is_ended(self.view):
                self.pending = None
                self._show()
                self.on_end(self.view.match_id)
                return self.view
            if self.options.auto and tiles.is_my_turn(self.view) and self.auto_tried != self.view.version:
                if self.dirty:
                    self._show()
                self._auto()
                continue
            if self.dirty and (answered or self.inbox.queue.empty()):
                self._show()  # after each typed line; stream items in a burst are drawn once
            event = self.inbox.get(timeout=self._tick())
            if event is None:
                self._on_tick()
                continue
            answered = event.kind == "line"
            if self._handle(event) is Quit:
                return None

    def _tick(self) -> float | None:
        if self.poll or self.lost:
            return 1.0
        if self.options.auto:
            return 1.0 if self.options.tick else None
        if self.options.tick and not tiles.is_my_turn(self.view) and tiles.time_left(self.view, 0).seconds is not None:
            return self.options.tick
        return None

    def _on_tick(self) -> None:
        if self.lost:
            self._check_link()
        elif self.poll:
            self._refresh()
        if not tiles.is_my_turn(self.view) or self.options.auto:
            self.dirty = bool(self.options.tick)

    def _show(self) -> None:
        if not self.out.redraw and not self._worth_printing():
            self.dirty = False
            return
        prompting = tiles.is_my_turn(self.view) and not self.options.auto and not tiles.is_ended(self.view)
        screen = render.game_screen(self.view, self.clock(), self.message, self.pending, self.options.auto)
        self.out.screen(screen, with_prompt=prompting)
        self.shown = self.view
        self.dirty = False

    def _worth_printing(self) -> bool:
        """Printed one after another (a pipe, a log), screens come when the player has
        something to do or see: their turn, a message, a round's or the match's end, and
        the first screen after their own move; not after every move of the others."""
        shown, view = self.shown, self.view
        return (shown is None or bool(self.message) or tiles.is_my_turn(view) or tiles.is_ended(view)
                or tiles.is_my_turn(shown) or len(view.rounds) != len(shown.rounds))

    # ---- events ---------------------------------------------------------------------

    def _handle(self, event):
        if event.kind == "view":
            if event.source is self.pump:
                self._update(event.value.view)
        elif event.kind == "line":
            return self._on_line(event.value)
        elif event.kind == "eof":
            if not self.options.auto:
                self.message = "Input closed."
                return Quit
        elif event.kind == "link" and event.source is self.pump:
            if event.value == "lost":
                self.lost = True
                self.message = Text("Connection to the match service lost — reconnecting…", style="bold red")
                self.dirty = True
            elif self.lost:
                self._check_link()
        elif event.kind == "stream-error" and event.source is self.pump:
            self.message = Text(f"Lost the match stream ({event.value}); checking every second.", style="red")
            self.poll = True
            self.dirty = True
        return None

    def _update(self, view: pb.MatchView) -> None:
        if view.version < self.view.version:
            return
        changed = view.version != self.view.version
        was_my_turn = tiles.is_my_turn(self.view)
        self.view = view
        if changed:
            self.dirty = True
            self.message = ""
            if self.pending is not None and not tiles.is_my_turn(view):
                self.pending = None
            if was_my_turn and not tiles.is_my_turn(view) and _timed_out_for_me(view):
                self.message = Text("Time ran out: the server played your turn.", style="bold red")

    def _on_line(self, line: str):
        if tiles.is_ended(self.view):
            return None
        self.message = ""
        self.dirty = True
        me = self.view.your_seat
        if self.view.seats[me].away:
            self._resume()
            if not line.strip():
                return None
        if self.pending is not None:
            answer = commands.parse_end_answer(line, self.view, self.pending)
            if isinstance(answer, Invalid):  # an end the tile does not fit: asked again
                self.message = Text(answer.message, style="bold red")
                return None
            self.pending = None
            if isinstance(answer, Play):
                self._send(answer)
                return None
            if isinstance(answer, Refresh):
                self.message = "Cancelled."
                return None
        command = commands.parse_move(line, self.view)
        moving = isinstance(command, (Play, Draw, ChooseEnd, Invalid))
        if moving and self.shown is not None and tiles.hand(self.shown) != tiles.hand(self.view):
            # the numbers typed were those of the hand on screen, which has changed since
            self.message = Text("The table changed while you typed — look again.", style="bold yellow")
            return None
        if isinstance(command, Quit):
            return Quit
        if isinstance(command, Help):
            self.message = Text(commands.HELP, style="cyan")
        elif isinstance(command, Refresh):
            self._refresh()
        elif isinstance(command, Invalid):
            self.message = Text(command.message, style="bold red")
        elif isinstance(command, ChooseEnd):
            self.pending = command.tile
        elif isinstance(command, (Play, Draw)):
            self._send(command)
        return None

    # ---- calls ----------------------------------------------------------------------

    def _send(self, command: Play | Draw) -> bool:
        match_id = self.view.match_id
        try:
            if isinstance(command, Play):
                reply = self.api.play(match_id, command.tile, command.end, request_id())
                self._update(reply.view)
            else:
                reply = self.api.draw(match_id, request_id())
                self._update(reply.view)
                if reply.HasField("tile"):
                    drawn = Text("You drew ")
                    drawn.append_text(render.tile_text(tiles.tile_of(reply.tile)))
                    drawn.append(".")
                    self.message = drawn
            self.dirty = True
            return True
        except ApiError as e:
            if e.unreachable:
                # nothing was done (or it will show in the stream): try again once back
                self.message = Text(f"Could not send your move: {e}. Try again in a moment.", style="bold red")
                self.lost = True  # checked every second; an automatic move is chosen again once back
            else:
                self.message = Text(f"The server refused: {e}", style="bold red")
                self._refresh()
            self.dirty = True
            return False

    def _auto(self) -> None:
        self.auto_tried = self.view.version
        if self.options.delay:
            time.sleep(self.options.delay)
        move = commands.auto_move(self.view)
        if move is not None:
            self._send(move)

    def _refresh(self) -> None:
        try:
            self._update(self.api.get(self.view.match_id))
            self.poll = False if self.pump is None or self.pump.thread.is_alive() else self.poll
        except ApiError:
            pass

    def _check_link(self) -> None:
        """While the stream is lost, a plain call tells when the service is back; the seat,
        if the server marked it away meanwhile, is taken back at once."""
        try:
            view = self.api.get(self.view.match_id, retry=False)
        except ApiError:
            return
        self.lost = False
        self.auto_tried = -1  # a move that could not be sent is chosen again
        self._update(view)
        self.message = Text("Reconnected.", style="green")
        if not tiles.is_ended(self.view) and self.view.seats[self.view.your_seat].away:
            self._resume()
        self.dirty = True

    def _resume(self) -> None:
        try:
            view = self.api.resume(self.view.match_id)
            self.view = view if view.version >= self.view.version else self.view
            self.message = Text("Welcome back: you play your own turns again.", style="green")
        except ApiError as e:
            self.message = Text(f"Could not take your seat back: {e}", style="bold red")
        self.dirty = True


def _timed_out_for_me(view: pb.MatchView) -> bool:
    mine = [a for a in view.round_actions if a.seat == view.your_seat]
    return bool(mine) and mine[-1].timeout
