"""A match at the table, played or watched, and the line it leaves on screen after: its
result, or how to come back to it."""

from __future__ import annotations

from dataclasses import dataclass

from domino.match.v1 import match_service_pb2 as pb

from . import questions, rounds
from .game import Game
from .screen_host import Host
from .spectate import Spectator


@dataclass
class MatchScreens:
    app: Host

    def play(self, match_id: str) -> pb.MatchView | None:
        app = self.app
        app.rules()
        heads = app.heads
        game = Game(app.match, app.inbox, app.out, app.game_options, clock=app.clock,
                    on_join=app.store.save, on_end=app.store.clear,
                    on_view=heads.keep if heads is not None else lambda view: None)
        final = game.run(match_id)
        app.out.fresh()
        if final is None and game.has_left():
            app.out.say(f"You left match {match_id} for good: the server plays your seat to the end and will not "
                        "give it back, and the match counts as your loss; you are free to play elsewhere.",
                        style="bold", soft_wrap=True)
        elif final is None:
            app.out.say(f"You left the table; your seat stays. Come back with: domino play --resume {match_id}",
                        style="bold", soft_wrap=True)
        else:
            app.out.say(rounds.result_line(final), soft_wrap=True)
            if heads is not None and final.HasField("head"):
                app.out.say(f"The signed heads of this match are kept in {heads.path(match_id)} "
                            "(for `domino audit verify --heads`).", soft_wrap=True)
        return final

    def watch(self, match_id: str | None = None) -> pb.MatchView | None:
        """WatchMatch as a spectator: the public view one turn behind, and the table talk.
        ClientError with the server's message when the match may not be watched. A match the
        player has a seat at is opened to play instead."""
        app = self.app
        app.rules()
        while not match_id:
            app.out.ask("Match id to watch:")
            match_id = questions.line(app.inbox).strip()
        spectator = Spectator(app.match, app.inbox, app.out, stop_on_eof=app.interactive,
                              round_pause=app.game_options.round_pause, clock=app.clock)
        final = spectator.run(match_id)
        if spectator.seated:
            app.out.say("You have a seat at this match: opening it to play.", style="bold")
            return app.play_match(match_id)
        app.out.fresh()
        if final is None:
            app.out.say(f"You stopped watching match {match_id}.", style="bold")
        else:
            app.out.say(rounds.result_line(final), soft_wrap=True)
        return final
