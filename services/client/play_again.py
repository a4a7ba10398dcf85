""""Play again" after a match: the same people and options in a new room.

The first to ask makes the rematch room (MatchmakingService.RequestRematch), seated in
their old seat, and every other person of the match is asked; a later ask accepts the
asker's own invite. The client then waits in the room's lobby, which starts by itself once
everyone has answered (bots take the seats of those who said no), and plays its match."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import questions, view_reading
from .api import ApiError
from .screen_host import Host

QUESTION = "p plays again with the same table · Enter for the menu:"
YES = ("p", "play", "play again", "again")


def offered(final: pb.MatchView | None) -> bool:
    """A match that ended with the player seated at it."""
    return final is not None and view_reading.is_ended(final) and view_reading.your_seat(final) is not None


@dataclass
class PlayAgain:
    app: Host

    def offer(self, final: pb.MatchView | None) -> bool:
        """After a match the menu started: asked instead of "Press Enter for the menu". True
        when the player was asked and has answered; False when the menu still has something to
        pause on (no offer, or a refusal or a closed room on screen)."""
        app = self.app
        while offered(final):
            assert final is not None
            app.out.ask(Text(QUESTION, style="bold"))
            if questions.line(app.inbox).strip().lower() not in YES:
                return True
            try:
                room = app.matchmaking.request_rematch(final.match_id)
            except ApiError as e:
                app.out.say(Text(f"No rematch: {e}", style="bold red"))
                return False
            app.out.say("The others are asked to play again; the room starts by itself once everyone has answered "
                        "(bots take the seats of those who say no).", style="dim", soft_wrap=True)
            match_id = app.room_lobby.run(room)
            if not match_id:
                return False
            final = app.play_match(match_id)
        return False
