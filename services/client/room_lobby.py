"""A private room's lobby: creating or joining one, its screen until the match starts or the
room closes, and the commands typed there (a host's bots, seats, options and start).

When the room's options change, every seat is told what changed and why in one line that
stays under the room until the next change (room_options.py): the host's from what they
typed, a guest's from the two room views WatchRoom brought. The host's line used to be gone
the moment the stream echoed the change, and guests were told nothing."""

from __future__ import annotations

from dataclasses import dataclass, field

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import lobby_screens, menu, names, presence_words, questions, room_options
from .api import ApiError
from .inbox import InputClosed, Pump
from .screen_host import Host


@dataclass
class RoomLobby:
    app: Host
    # The options the host's last change left, and the change as typed (what the line says why for)
    typed: tuple[mm.MatchOptions, room_options.Change] | None = field(default=None, repr=False)
    closed_why: str = ""  # why the room is over for this player, when the server's reason does not say it

    def create(self) -> str | None:
        """A room of the match the player sets up; the match it starts."""
        app = self.app
        setup = app.setup()
        room = app.matchmaking.create_room(setup, app.setup_questions.turn_timer(setup), app.choices.seat,
                                           app.choices.spectators)
        return self.run(room)

    def join(self, code: str | None = None) -> str | None:
        """The room of an invite code (asked when not given), at the seat chosen; the match it starts."""
        app = self.app
        app.rules()
        typed = not code
        while not code:
            app.out.ask("Invite code:")
            code = menu.clean_code(questions.line(app.inbox))
        room = app.matchmaking.room_by_code(code)
        seat = app.choices.seat
        free = [s.seat for s in room.seats if not s.player_id]
        if seat is None and typed and len(free) > 1:
            names.learn(s.player_id for s in room.seats)
            app.out.say(lobby_screens.room_screen(room, app.player))
            answer = questions.ask(app.out, app.inbox, "Which seat?", [str(s) for s in free], str(free[0]))
            seat = int(answer)
        return self.run(app.matchmaking.join_room(code, seat))

    def run(self, room: mm.RoomView) -> str | None:
        app = self.app
        room_id = room.room_id
        pump = Pump(app.inbox, "room",
                    lambda last: app.matchmaking.watch_room(room_id, last.room.version if last else 0)).start()
        message = ""
        news = ""  # what the last change of the options was, and why: on screen until the next one
        seen = room.options  # the options the lobby last said anything about
        host = room.host_player_id == app.player
        self.closed_why = ""
        filled = False
        try:
            while True:
                if room.status == mm.ROOM_STATUS_PLAYING and room.match_id:
                    return room.match_id
                if room.status == mm.ROOM_STATUS_CLOSED:
                    app.out.say(lobby_screens.room_screen(room, app.player, closed_why=self.closed_why))
                    return None
                if host and app.choices.fill_bots and not filled and room.status == mm.ROOM_STATUS_OPEN:
                    filled = True
                    room = self._fill(room, app.choices.strength)
                if (host and app.choices.start_when_full and room.status == mm.ROOM_STATUS_OPEN
                        and all(s.player_id for s in room.seats)):
                    room = _newer(room, app.matchmaking.start_room(room_id))
                    continue
                if room.options != seen:
                    news = self._news(seen, room.options, host)
                    seen = room.options
                names.learn([s.player_id for s in room.seats] + [i.player_id for i in room.invites])
                said = "\n".join(line for line in (news, message) if line)
                app.out.screen(lobby_screens.room_screen(room, app.player, said, can_invite=app.social is not None),
                               with_prompt=True)
                event = app.inbox.get()
                message = ""
                if event.kind == "room" and event.source is pump:
                    room = _newer(room, event.value.room)
                elif event.kind in ("room-end", "stream-error") and event.source is pump:
                    try:
                        room = _newer(room, app.matchmaking.room(room_id))
                    except ApiError as e:  # no longer a member: the room is over for this player
                        room = self._closed(room, str(e))
                elif event.kind == "eof" and app.interactive:
                    self._leave(room)
                    raise InputClosed()
                elif event.kind == "line":
                    room, message = self._command(room, event.value)
        except KeyboardInterrupt:
            self._leave(room)
            raise
        finally:
            pump.stop()

    def _command(self, room: mm.RoomView, line: str) -> tuple[mm.RoomView, str]:
        matchmaking = self.app.matchmaking
        command = menu.parse_room_command(line)
        try:
            if command.action == "quit":
                return self._leave(room), "You left the room."
            if command.action == "start":
                return _newer(room, matchmaking.start_room(room.room_id)), "Starting…"
            if command.action == "bot":
                return _newer(room, matchmaking.add_bot(room.room_id, command.strength or "",
                                                        command.seat)), ""
            if command.action == "fill":
                free = sum(1 for s in room.seats if not s.player_id)
                if not free:
                    return room, "Every seat is taken already."
                room = self._fill(room, command.strength or self.app.choices.strength)
                return room, f"{free} bot{'s' if free != 1 else ''} sat down."
            if command.action == "kick" and command.seat is not None:
                return _newer(room, matchmaking.remove_bot(room.room_id, command.seat)), ""
            if command.action == "move" and command.seat is not None:
                return _newer(room, matchmaking.change_seat(room.room_id, command.seat)), ""
            if command.action == "options":
                return self._change_options(room, command.options)
            if command.action == "invite":
                return self._invite(room)
            if command.action == "refresh":
                return _newer(room, matchmaking.room(room.room_id)), ""
            return room, command.message
        except ApiError as e:
            return room, f"Refused: {e}"

    def _invite(self, room: mm.RoomView) -> tuple[mm.RoomView, str]:
        """``i``: friends not in the room are listed, and those chosen invited (the room is
        read again after: the question let its stream's news go by)."""
        app = self.app
        if app.social is None:
            return room, "Invites need your account's friends: start domino play signed in."
        members = {s.player_id for s in room.seats} | {i.player_id for i in room.invites
                                                       if i.status == mm.INVITE_STATUS_PENDING}
        friends = [f for f in app.social.friends() if f.player_id not in members]
        if not friends:
            return room, "No friend to invite: add some under Friends in the menu."
        names.learn(f.player_id for f in friends)
        app.out.say(lobby_screens.menu([(str(n), f"{names.name(f.player_id)}  "
                                         f"{presence_words.presence_text(f.presence, app.clock())}".rstrip())
                                        for n, f in enumerate(friends, 1)], "Invite which friends?"))
        app.out.ask("Numbers, with spaces between (Enter: nobody):")
        typed = questions.line(app.inbox).split()
        chosen = [friends[int(t) - 1].player_id for t in typed if t.isdigit() and 1 <= int(t) <= len(friends)]
        if not chosen:
            return room, "Nobody invited." if not typed else f"{' '.join(typed)!r}? Type the friends' numbers."
        message = app.friends.invite(room.room_id, chosen)
        return _newer(room, app.matchmaking.room(room.room_id)), message

    def _fill(self, room: mm.RoomView, strength: str | None) -> mm.RoomView:
        """A bot of ``strength`` (None: the server's default for the room's shape) in every empty seat."""
        for seat in [s.seat for s in room.seats if not s.player_id]:
            room = _newer(room, self.app.matchmaking.add_bot(room.room_id, strength or "", seat))
        return room

    def _change_options(self, room: mm.RoomView, changes) -> tuple[mm.RoomView, str]:
        """The host's ``o …``: sent as room_options plans it; the line that says it comes with
        the room's new options (``_news``), or says nothing changed."""
        try:
            change = room_options.plan(room.options, changes)
        except room_options.Refused as e:
            return room, str(e)
        after = _newer(room, self.app.matchmaking.update_room_options(room.room_id, **change.request))
        self.typed = (after.options, change)
        if after.options == room.options:
            return after, room_options.changed_text(room.options, after.options, change)
        return after, ""

    def _news(self, before: mm.MatchOptions, after: mm.MatchOptions, host: bool) -> str:
        """The line for a change of the room's options: why, as typed when this host typed it."""
        typed = self.typed
        if host and typed is not None and typed[0] == after:
            return room_options.changed_text(before, after, typed[1])
        line = room_options.changed_text(before, after, room_options.explained(before, after))
        return line if host else f"The host changed the options: {line}"

    def _leave(self, room: mm.RoomView) -> mm.RoomView:
        try:
            left = self.app.matchmaking.leave_room(room.room_id)
        except ApiError:
            return room
        if left.status != mm.ROOM_STATUS_CLOSED:
            return self._closed(room, "you left")  # still open for the others, over for this player
        return left

    def _closed(self, room: mm.RoomView, why: str) -> mm.RoomView:
        """The room as over for this player, and why in words (no RoomClosedReason says it)."""
        closed = mm.RoomView()
        closed.CopyFrom(room)
        closed.status = mm.ROOM_STATUS_CLOSED
        self.closed_why = why
        return closed


def _newer(room: mm.RoomView, other: mm.RoomView) -> mm.RoomView:
    return other if other.version >= room.version or other.status == mm.ROOM_STATUS_CLOSED else room

