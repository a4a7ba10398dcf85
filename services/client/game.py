"""Playing one match: the screen, the player's commands, and the server's stream.

The loop is single-threaded: it waits on the inbox for a typed line, a new view from the
WatchMatch stream, or a tick, and redraws the screen when something changed. Moves are
checked against the view on screen before they are sent, each with a fresh request_id
that is reused for the retries of that one command.

The countdown ticks on every screen, the player's own turn included; a tick rewrites only
the lines that changed, so a half-typed line survives it (terminal.Output).

The stream also brings table talk: an update with only ``chat`` set (no event, no view)
is a quick-chat phrase, shown in the last few lines of "Table talk", never a view; ``c``
lists the phrases and ``c N`` or ``c NAME`` sends one (SendChat).

A seat the server marked away is taken back only by the player: when they open the match,
type ``back`` or type a move. Enter only refreshes, ``q`` leaves as it is, and a stream
that reconnects after an outage leaves the seat away (the server keeps playing for it).

Every countdown is by the server's clock (server_clock.py): each view and stream message
says the server's time when it was sent, so a device whose clock is off still shows the
seconds the server gives.

When a round ends the next deal follows at once, but the server starts its clocks only
after its pause between rounds (the view's ``round_starts_at``); the client shows the ended
round (its hands, from the player's export, and its points) until then, or until the
player presses Enter, so the board comes with the turn's full time. From a server without
that pause it shows it ``round_pause`` seconds (``GameOptions``; 0 shows none), giving way
sooner when the player leads the next round, at half the time their turn was given.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, replace
from typing import Callable

from rich.console import Group, RenderableType
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import commands, move_words, names, refusals, render, round_end, talk, view_reading
from .api import ApiError, MatchApi, request_id
from .commands import Leave, Back, ChooseEnd, Draw, Help, Invalid, Play, Quit, Refresh
from .inbox import Inbox, Pump
from .server_clock import ServerClock
from .terminal import Output


class ClientError(Exception):
    """Something the player must be told before the client stops."""


@dataclass
class GameOptions:
    auto: bool = False  # play the first legal move on every turn
    delay: float = 0.0  # seconds to wait before an automatic move (for demos)
    tick: float = 1.0  # how often the countdown is redrawn (0: never)
    round_pause: float = 0.0  # seconds the end of a round stays on screen unless Enter is pressed (0: not shown)


class Game:
    def __init__(self, api: MatchApi, inbox: Inbox, out: Output, options: GameOptions | None = None,
                 clock: Callable[[], float] = time.time, on_join: Callable[[str], None] = lambda match_id: None,
                 on_end: Callable[[str], None] = lambda match_id: None,
                 on_view: Callable[[pb.MatchView], None] = lambda view: None) -> None:
        self.api = api
        self.on_view = on_view  # every view received (its signed head is kept: store.KeptHeads)
        self.inbox = inbox
        self.out = out
        self.options = options or GameOptions()
        self.clock = ServerClock(clock)  # the server's time: the deadlines in the views are on its clock
        self.on_join = on_join
        self.on_end = on_end
        self.view = pb.MatchView()  # the match as last seen: run() loads it before anything reads it
        self.shown: pb.MatchView | None = None
        self.message: str | Text = ""
        self.sticky = False  # the message stays until the player's next turn (what the server played for them)
        self.pending: view_reading.Tile | None = None
        self.leaving = False  # `leave match` was typed once: the next line confirms or stays (LEAVE_PROMPT)
        self.dirty = True
        self.pump: Pump | None = None
        self.poll = False  # the stream failed for good: GetMatch every second instead
        self.lost = False  # the stream's connection is down; it is being opened again
        self.auto_tried = -1
        self.typed = True  # a line was typed (or nothing drawn yet) since the last screen: draw it whole
        self.round_end: round_end.RoundEnd | None = None  # the ended round, on screen until _round_end_until()
        self.round_end_shown: float | None = None  # when it was first drawn: the pause counts from then
        self.final_round: round_end.RoundEnd | None = None  # the last round's hands, on the final screen
        self.talk = talk.TalkLog()  # table talk: the quick-chat phrases received (WatchMatch's chat updates)
        self.talk_shown = 0  # how many of them the last screen printed

    # ---- the loop -------------------------------------------------------------------

    def run(self, match_id: str) -> pb.MatchView | None:
        """Plays until the match ends (its final view) or the player leaves (None).
        Opening the match is the player's choice to play it: a seat found away is taken back."""
        try:
            view = self.api.get(match_id)
        except ApiError as e:
            said = refusals.yours(str(e), refusals.me_of(self.api))
            if e.unreachable or said == str(e):
                raise
            # the server named the caller by account id ("3f9a… has no seat"): said as "you"
            raise ClientError(f"cannot play match {match_id}: {said}") from None
        if view_reading.your_seat(view) is None:
            raise ClientError(f"you have no seat at match {match_id}")
        self.view = view
        self.clock.observe(view.server_time)
        self.on_view(view)
        names.learn(s.player_id for s in view.seats)
        self.on_join(match_id)
        self._send_seed()
        mine = self._my_seat()
        if not view_reading.is_ended(view) and mine is not None and mine.away and not mine.left:
            self._resume()
        if not view_reading.is_ended(view):
            self.pump = Pump(self.inbox, "view", self._open_watch, reopen_when_done=_reopen).start()
        try:
            return self._loop()
        finally:
            if self.pump is not None:
                self.pump.stop()

    def _send_seed(self) -> None:
        """Before the first deal the server waits for this seat's own seed: sent now, drawn
        at random after the commitment was shown, so the server could not choose its seed
        against it (docs/record.md, "Fair deals")."""
        view = self.view
        mine = self._my_seat()
        if view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS and mine is not None and mine.awaiting_seed:
            try:
                self.view = self.api.submit_seed(view.match_id, secrets.token_hex(16))
                self.clock.observe(self.view.server_time)
                self.on_view(self.view)
            except ApiError as e:
                self.message = Text(f"Could not send your seed ({e}); the deal goes on without it.", style="red")

    def _open_watch(self, last):
        return self.api.watch(self.view.match_id, self.view.version)

    def _loop(self) -> pb.MatchView | None:
        answered = True
        while True:
            if view_reading.is_ended(self.view):
                self.pending = None
                self.round_end = None
                self._show()
                self.on_end(self.view.match_id)
                return self.view
            until = self._round_end_until()
            if until is not None and self.clock() >= until:
                self._close_round_end()
            if (self.options.auto and self.round_end is None and view_reading.is_my_turn(self.view)
                    and self.auto_tried != self.view.version):
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
            if event.kind in ("line", "eof"):
                self.typed = True
            if self._handle(event) is Quit:
                return None

    def _tick(self) -> float | None:
        """How long to wait for an event before the screen is drawn again: every ``tick``
        while a turn is timed, on every screen (the player's own turn too)."""
        waits = []
        if self.poll or self.lost:
            waits.append(1.0)
        until = self._round_end_until()
        if until is not None:
            waits.append(max(0.0, until - self.clock()))
        if self.options.tick and (self.options.auto or self.round_end is not None
                                  or view_reading.time_left(self.view, 0).seconds is not None):
            waits.append(self.options.tick)
        elif self.options.auto:
            waits.append(1.0)
        return min(waits) if waits else None

    def _on_tick(self) -> None:
        changed = self.dirty
        if self.lost:
            self._check_link()
        elif self.poll:
            self._refresh()
        if not self.dirty and self.options.tick:
            self.dirty = True  # the countdown moved on; a tick after nothing was typed redraws in place
        elif self.dirty and not changed:
            self.typed = True  # the table itself changed: drawn whole

    def _show(self) -> None:
        if not self.out.redraw and not self._worth_printing():
            self.dirty = False
            return
        now = self.clock()
        if self.round_end is not None:
            if self.round_end_shown is None:
                self.round_end_shown = now
            until = self._round_end_until()
            assert until is not None  # a round's end is on screen, shown since round_end_shown
            parts: list[RenderableType] = [render.header(self.view),
                                           round_end.round_end_panel(self.view, self.round_end)]
            talk_area = self._talk_text()
            if talk_area is not None:
                parts.append(talk_area)
            if self.message:
                parts.append(self.message if isinstance(self.message, Text)
                             else Text(self.message, style="bold yellow"))
            parts.append(round_end.next_round_text(self.view, now, until - now))
            screen = Group(*parts)
            self.out.screen(screen, with_prompt=True, in_place=not self.typed)
        else:
            prompting = (view_reading.is_my_turn(self.view) and not self.options.auto
                         and not view_reading.is_ended(self.view))
            panel = (round_end.round_end_panel(self.view, self.final_round)
                     if self.final_round is not None and view_reading.is_ended(self.view) else None)
            console = self.out.console  # a terminal redrawn in place: the screen fits its height
            screen = render.game_screen(self.view, now, self.message, self.pending, self.options.auto, panel,
                                        talk=self._talk_text(), width=console.width,
                                        height=console.height if self.out.redraw else None)
            self.out.screen(screen, with_prompt=prompting, in_place=not self.typed)
            self.shown = self.view
        self.talk_shown = len(self.talk)
        self.dirty = False
        self.typed = False

    def _talk_text(self) -> Text | None:
        mine = self._my_seat()
        return talk.talk_text(self.talk, mine.player_id if mine is not None else "")

    def _worth_printing(self) -> bool:
        """Printed one after another (a pipe, a log), screens come when the player has
        something to do or see: their turn, a message, table talk, a round's or the match's
        end, and the first screen after their own move; not after every move of the others."""
        shown, view = self.shown, self.view
        if self.round_end is not None:
            return self.typed or len(self.talk) != self.talk_shown
        return (shown is None or bool(self.message) or len(self.talk) != self.talk_shown
                or view_reading.is_my_turn(view) or view_reading.is_ended(view) or view_reading.is_my_turn(shown)
                or len(view.rounds) != len(shown.rounds))

    # ---- the end of a round -----------------------------------------------------------

    def _round_over(self, before: pb.MatchView, view: pb.MatchView) -> None:
        """Rounds ended between two views: the last one played is shown until Enter or the
        pause; once the match is over, above the result."""
        def export() -> str:
            return self.api.export(view.match_id)

        if view_reading.is_ended(view):
            if self.final_round is None:  # the stream may have told of the round's end already
                last = self.round_end
                self.final_round = (last if last is not None and last.number == len(view.rounds)
                                    else round_end.ended_between(view, 0, export, before))
            return
        if len(view.rounds) == len(before.rounds) or self.options.round_pause <= 0:
            return
        new = view.rounds[len(before.rounds):]
        if all(r.reason == pb.ROUND_END_REASON_REDEAL for r in new):
            if self.round_end is not None:
                self.round_end = replace(self.round_end, redeals=self.round_end.redeals + len(new))
            return
        shown = round_end.ended_between(view, len(before.rounds), export, before)
        self.round_end = shown
        self.round_end_shown = None
        self.pending = None
        self.typed = True

    def _round_end_until(self) -> float | None:
        """When the round's end on screen gives way; None while none is, or before it is drawn."""
        if self.round_end is None or self.round_end_shown is None:
            return None
        return round_end.leave_at(self.view, self.round_end_shown, self.options.round_pause)

    def _close_round_end(self, message: str | Text = "") -> None:
        self.round_end = None
        self.message = message
        self.dirty = True
        self.typed = True

    # ---- events ---------------------------------------------------------------------

    def _handle(self, event):
        if event.kind == "view":
            if event.source is self.pump:
                self._streamed(event.value, event.at)
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

    def _streamed(self, update: pb.WatchMatchResponse, arrived: float | None = None) -> None:
        """One WatchMatch update: a quick-chat phrase (then it carries no event and no view),
        or a stored event with the view after it."""
        self.clock.observe(update.server_time, arrived)
        if update.HasField("chat"):
            if self.talk.add(update.chat):
                self.dirty = True
        elif update.HasField("view"):
            self._update(update.view, arrived)

    def _update(self, view: pb.MatchView, arrived: float | None = None) -> None:
        """``arrived``: when the view came (monotonic; None: just now, a reply)."""
        self.clock.observe(view.server_time, arrived)
        self.on_view(view)
        names.learn(s.player_id for s in view.seats)  # asked once per player; then from the cache
        if view.version < self.view.version:
            return
        changed = view.version != self.view.version
        was_my_turn = view_reading.is_my_turn(self.view)
        before = self.view
        self.view = view
        if changed:
            self.dirty = True
            if not self.sticky or view_reading.is_my_turn(view):
                self.message, self.sticky = "", False
            if self.pending is not None and not view_reading.is_my_turn(view):
                self.pending = None
            played_for_you = move_words.played_for_you(view) if was_my_turn and not view_reading.is_my_turn(view) \
                else None
            if played_for_you:
                self.message, self.sticky = Text(played_for_you, style="bold red"), True
            self._round_over(before, view)

    def _on_line(self, line: str):
        if view_reading.is_ended(self.view):
            return None
        self.message, self.sticky = "", False
        self.dirty = True
        chat = talk.parse_chat(line)
        if chat is not None and not (self.pending is not None and isinstance(chat, talk.ListPhrases)):
            self._chat(chat)  # c alone still cancels the question of which end
            return None
        if self.round_end is not None:  # the ended round is on screen: Enter goes on, q leaves
            text = line.strip()
            if commands.parse_move(text, self.view) == Quit():
                return Quit
            self._close_round_end(Text(f"(not read as a move: {text!r} was typed at the round's end)",
                                       style="yellow") if text else "")
            return None
        if self.pending is not None:
            answer = commands.parse_end_answer(line, self.view, self.pending)
            if isinstance(answer, Quit):
                return Quit
            if isinstance(answer, Help):
                self.message = Text(commands.HELP, style="cyan")
                return None
            if isinstance(answer, Invalid):  # not an end, or one the tile does not fit: asked again
                self.message = Text(answer.message, style="bold red")
                return None
            self.pending = None
            if isinstance(answer, Play):
                self._send(answer)
            else:
                self.message = "Cancelled."
            return None
        command = commands.parse_move(line, self.view)
        asked, self.leaving = self.leaving, False
        if isinstance(command, Quit):
            return Quit  # away or not: leaving takes nothing back
        if isinstance(command, Leave) and not asked and not self.has_left():
            self.leaving = True
            self.message = Text(render.LEAVE_PROMPT, style="bold yellow")
            return None
        if isinstance(command, Leave):
            try:
                self.view = self.api.leave(self.view.match_id)
            except ApiError as e:
                self.message = Text(f"Could not leave: {e}", style="bold red")
                return None
            self.on_end(self.view.match_id)
            return Quit
        if self.has_left() and isinstance(command, (Play, Draw, ChooseEnd, Invalid, Back)):
            self.message = Text(render.LEFT_FOR_GOOD, style="bold red")  # ResumeSeat would be refused
            return None
        welcome: Text | None = None
        if self._away() and isinstance(command, (Play, Draw, ChooseEnd, Invalid, Back)):
            self._resume()  # the player's own command: a move, or back
            welcome = self.message if isinstance(self.message, Text) else Text(self.message)
            if isinstance(command, Back):
                return None
            command = commands.parse_move(line, self.view)  # again, against the view after the return
        moving = isinstance(command, (Play, Draw, ChooseEnd, Invalid))
        if moving and self.shown is not None and view_reading.hand(self.shown) != view_reading.hand(self.view):
            # the numbers typed were those of the hand on screen, which has changed since
            self.message = Text("The table changed while you typed — look again.", style="bold yellow")
            return None
        if isinstance(command, Help):
            self.message = Text(commands.HELP, style="cyan")
        elif isinstance(command, Back):
            self.message = "You are playing your own turns already."
        elif isinstance(command, Refresh):
            self._refresh()
        elif isinstance(command, Invalid):
            self.message = Text(command.message, style="bold red")
            if welcome is not None:
                self.message = Text.assemble(welcome, "\n", self.message)
        elif isinstance(command, ChooseEnd):
            self.pending = command.tile
        elif isinstance(command, (Play, Draw)):
            self._send(command)
        return None

    def _chat(self, command: talk.ChatCommand) -> None:
        if isinstance(command, talk.ListPhrases):
            self.message = talk.phrases_text()
        elif isinstance(command, talk.Unclear):
            self.message = Text(command.message, style="bold red")
        else:
            try:
                self.api.send_chat(self.view.match_id, command.phrase)
            except ApiError as e:
                self.message = Text(talk.refusal(e), style="bold red")
            else:  # everyone, the sender too, sees it in the table talk once the stream brings it
                self.message = Text(f"You said: {talk.phrase_text(command.phrase)}", style="dim")

    def has_left(self) -> bool:
        """The player left this match (LeaveMatch): the server plays the seat to the end and
        never gives it back (docs/security.md, "Leaving and silence")."""
        mine = self._my_seat()
        return mine is not None and mine.left

    def _away(self) -> bool:
        mine = self._my_seat()
        return mine is not None and mine.away

    def _my_seat(self) -> pb.SeatView | None:
        seat = view_reading.your_seat(self.view)
        return self.view.seats[seat] if seat is not None and 0 <= seat < len(self.view.seats) else None

    # ---- calls ----------------------------------------------------------------------

    def _send(self, command: Play | Draw) -> bool:
        match_id = self.view.match_id
        try:
            if isinstance(command, Play):
                played = self.api.play(match_id, command.tile, command.end, request_id())
                self._update(played.view)
            else:
                reply = self.api.draw(match_id, request_id())
                self._update(reply.view)
                if reply.HasField("tile"):
                    drawn = Text("You drew ")
                    drawn.append_text(render.tile_text(view_reading.tile_of(reply.tile)))
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
        """While the stream is lost, a plain call tells when the service is back. A seat the
        server marked away meanwhile stays away: only the player takes it back."""
        try:
            view = self.api.get(self.view.match_id, retry=False)
        except ApiError:
            return
        self.lost = False
        self.auto_tried = -1  # a move that could not be sent is chosen again
        self._update(view)
        self.message = Text("Reconnected.", style="green")
        if not view_reading.is_ended(self.view) and self._away():
            self.message.append(" While you were gone the server marked you away: type back to play your turns "
                                "again.", style="bold red")
        self.dirty = True

    def _resume(self) -> None:
        try:
            view = self.api.resume(self.view.match_id)
            self._update(view)
            self.message = Text("Welcome back: you play your own turns again.", style="green")
        except ApiError as e:
            self.message = Text(f"Could not take your seat back: {e}", style="bold red")
        self.dirty = True


def _reopen(last: pb.WatchMatchResponse | None) -> bool:
    """Whether a WatchMatch stream the server ended is opened again: unless its last update
    showed the match ended (a chat-only update shows no view at all)."""
    return last is None or not last.HasField("view") or not view_reading.is_ended(last.view)

