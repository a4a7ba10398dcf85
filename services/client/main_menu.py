"""The main menu, and the way back it offers first.

It asks matchmaking where the player is (GetPresence) and offers to go back there: the
room, the ticket still waiting for a table, or the match being played. The server is the
truth; the match this machine remembers (store.LastMatch) is offered only when matchmaking
does not answer."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import families, lobby_screens, menu, names, notice_words, questions, view_reading
from .api import ApiError
from .game import ClientError
from .refusals import explain
from .screen_host import Host


#: A remembered match the server says is no longer the player's to resume, by reason.
FORGOTTEN = ("MATCH_NOT_FOUND", "NOT_SEATED", "INVALID_REQUEST")


@dataclass(frozen=True)
class WayBack:
    """Where the menu offers to take the player back: what it says, and the place (a room's
    lobby, a ticket's wait, or a match by id)."""
    label: str
    room: mm.RoomView | None = None
    ticket: mm.TicketView | None = None
    match_id: str = ""


@dataclass
class MainMenu:
    app: Host

    def run(self) -> int:
        """The interactive menu, until the player quits."""
        app = self.app
        app.interactive = True
        app.rules()
        if app.unread is not None:
            app.unread.start()
        try:
            return self._loop()
        finally:
            if app.unread is not None:
                app.unread.stop()

    def _loop(self) -> int:
        app = self.app
        while True:
            app.out.fresh()
            app.out.say(lobby_screens.banner(app.me(), app.match.address, app.matchmaking.address))
            items = list(menu.MAIN)
            if app.social is not None and app.unread is not None:
                items[-1:-1] = [menu.FRIENDS, (menu.INBOX[0], app.unread.label())]
                latest = app.unread.latest
                if latest is not None and not latest.read and app.unread.count:
                    names.learn([latest.player_id])
                    app.out.say(Text(f"New: {notice_words.text(latest)}", style="bold yellow"))
            if app.account is not None:
                items.insert(-1, menu.ACCOUNT)
            back = self.way_back()
            if back is not None:
                items.insert(0, ("r", back.label))
            app.out.say(lobby_screens.menu(items))
            keys = [k for k, _ in items]
            answer = questions.ask(app.out, app.inbox, "Choose", keys, "r" if back is not None else "1")
            final: pb.MatchView | None = None
            try:
                if answer == "q":
                    return 0
                if answer == "r" and back is not None:
                    final = self.go_back(back)
                elif answer == "1":
                    final = app.practice()
                elif answer == "2":
                    final = app.table()
                elif answer == "3":
                    final = app.create_room()
                elif answer == "4":
                    final = app.join_room()
                elif answer == "5":
                    if app.history.my_matches():
                        continue  # the player's own Enter left it: straight back to the menu
                elif answer == "6":
                    app.history.ratings()
                elif answer == "7":
                    final = app.watch()
                elif answer == menu.FRIENDS[0] and app.social is not None:
                    app.friends.run()
                    continue  # its own Enter was the way back: no pause
                elif answer == menu.INBOX[0] and app.social is not None:
                    app.notices.run()
                    continue
                elif answer == menu.ACCOUNT[0] and app.account is not None:
                    if app.account.run(app.out, app.inbox):
                        return 0  # signed out or deleted: nothing more to do here
                    continue  # its own "b" was the way back: no pause
                if app.after_match(final):
                    continue  # "play again" was offered instead of the pause, and answered
            except ApiError as e:
                app.out.say(Text(explain(e), style="bold red"))
                if e.code == grpc.StatusCode.UNAVAILABLE and e.address != getattr(app.social, "address", None):
                    return 1
            except ClientError as e:
                app.out.say(Text(str(e), style="bold red"))
            questions.pause(app.out, app.inbox)

    def way_back(self) -> WayBack | None:
        """Where matchmaking says the player is, as a menu offer (None: nowhere). When it
        does not answer, the unfinished match this machine remembers, if any."""
        app = self.app
        try:
            app.rules()  # the offer names the family in the server's words
        except ApiError:
            pass  # a match service away: the family by its name, and the offer as matchmaking knows it
        try:
            presence = app.matchmaking.presence()
        except ApiError:
            remembered = self._resumable()
            if remembered is None:
                return None
            return WayBack(f"Resume your match ({_describe(remembered)}; remembered here, matchmaking did not "
                           "answer)", match_id=remembered.match_id)
        place = presence.WhichOneof("place")
        if place == "ticket":
            return WayBack(lobby_screens.ticket_label(presence.ticket, app.clock()), ticket=presence.ticket)
        if place == "room" and not presence.match_id:
            return WayBack(lobby_screens.room_label(presence.room), room=presence.room)
        if place is None:
            return None
        where, setup = lobby_screens.place_text(presence), lobby_screens.place_setup(presence)
        if not presence.match_id:  # a table whose match is being created
            return WayBack(f"Your match is starting ({where}, {setup}): check again")
        view = self._view(presence.match_id)
        if view is None:  # the match service does not answer now: say what matchmaking knows
            return WayBack(f"Resume your match ({where}, {setup})", match_id=presence.match_id)
        if view_reading.is_ended(view) or view_reading.your_seat(view) is None:
            return None  # ended: matchmaking no longer seats the player there
        return WayBack(f"Resume your match ({_describe(view)}; {where})", match_id=presence.match_id)

    def go_back(self, back: WayBack) -> pb.MatchView | None:
        """Back to the room's lobby, the ticket's wait or the match the menu offered."""
        app = self.app
        match_id: str | None = back.match_id
        if back.room is not None:
            match_id = app.room_lobby.run(back.room)
        elif back.ticket is not None:
            match_id = app.table_wait.run(back.ticket)
        elif not match_id:
            app.out.say("The match is still being created; try again in a moment.")
        return app.play_match(match_id) if match_id else None

    def last_match_id(self) -> str | None:
        """The match to resume with `--resume last`: the one matchmaking says the player is
        seated in, or the one this machine remembers when matchmaking says nothing."""
        try:
            match_id = self.app.matchmaking.presence().match_id
        except ApiError:
            match_id = ""
        return match_id or self.app.store.load()

    def _view(self, match_id: str) -> pb.MatchView | None:
        """The match as the player's seat sees it, to describe it (None: not now)."""
        try:
            return self.app.match.get(match_id, retry=False)
        except ApiError:
            return None

    def _resumable(self) -> pb.MatchView | None:
        """The unfinished match this machine remembers (the fallback when matchmaking does
        not answer); a file naming a finished or foreign match is forgotten."""
        store = self.app.store
        match_id = store.load()
        if not match_id:
            return None
        try:
            view = self.app.match.get(match_id)
        except ApiError as e:
            if e.reason in FORGOTTEN:
                store.clear(match_id)
            return None
        if view_reading.is_ended(view) or view_reading.your_seat(view) is None:
            store.clear(match_id)
            return None
        return view


def _describe(view: pb.MatchView) -> str:
    scores = " – ".join(str(s) for s in view.scores)
    return f"{families.title(view.rules, view.variant)}, round {view.round_number}, scores {scores}"
