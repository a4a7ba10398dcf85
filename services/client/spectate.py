"""Watching a match without a seat: WatchMatch as a spectator.

The server sends a spectator the public view (no hand) one full turn behind, and the table
talk as it is said; a match whose creator did not allow spectators is refused with
PERMISSION_DENIED, whose message is shown as it is. Nothing is sent: no moves, no chat.
"""

from __future__ import annotations

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import names, render, talk, tiles
from .game import ClientError
from .inbox import Inbox, Pump
from .terminal import Output

HELP = ("You are watching as a spectator: the table is shown one turn behind, with no hands. "
        "Enter refreshes, q leaves. Only the players at the table can chat; you see what they say.")


class Spectator:
    """``stop_on_eof``: closed input leaves (the menu); otherwise (``--watch``) watching goes
    on to the match's end."""

    def __init__(self, api, inbox: Inbox, out: Output, stop_on_eof: bool = True) -> None:
        self.api = api
        self.inbox = inbox
        self.out = out
        self.stop_on_eof = stop_on_eof
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
            ended = self.view is not None and tiles.is_ended(self.view)
            if dirty and self.view is not None and (ended or answered or self.inbox.queue.empty()):
                # after each typed line; what the stream sends in a burst is drawn once
                self.out.screen(render.spectator_screen(self.view, self.message, talk.talk_text(self.talk)),
                                with_prompt=not tiles.is_ended(self.view))
                dirty = False
            if ended:
                return self.view
            event = self.inbox.get()
            answered = event.kind == "line"
            if event.source is not None and event.source is not self.pump:
                continue  # a stream stopped earlier
            if event.kind == "view":
                dirty = self._streamed(event.value) or dirty
            elif event.kind == "view-end":
                dirty = True  # the server ended the stream with the match
            elif event.kind == "stream-error":
                if self.view is None:
                    raise ClientError(f"cannot watch match {self.match_id}: {event.value}")
                self.message = Text(f"The match stream ended: {event.value}", style="bold red")
                self.out.screen(render.spectator_screen(self.view, self.message, talk.talk_text(self.talk)))
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
        if view.your_seat >= 0:
            self.seated = True
            return False
        if self.view is not None and view.version < self.view.version:
            return False
        names.learn(s.player_id for s in view.seats)
        self.view = view
        return True

    def _on_line(self, line: str) -> bool:
        """True: leave."""
        text = line.strip().lower()
        self.message = ""
        if text in ("q", "quit", "exit"):
            return True
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
    return last is None or not last.HasField("view") or not tiles.is_ended(last.view)
