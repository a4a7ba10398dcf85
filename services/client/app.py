"""`domino play` put together: the menu, the waits before a match (practice, public
table, private room) and the match itself, all reading the same inbox.

The menu first asks matchmaking where the player is (GetPresence) and offers to go back
there: the room, the ticket still waiting for a table, or the match being played. The
server is the truth; the match this machine remembers (store.LastMatch) is offered only
when matchmaking does not answer."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

import grpc
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import families, history_screens, lobby_screens, menu, names, room_options, rounds, tiles
from .account_screen import AccountScreen
from .api import ApiError, MatchApi, MatchmakingApi
from .families import Setup
from .game import ClientError, Game, GameOptions
from .inbox import Inbox, InputClosed, Pump
from .spectate import Spectator
from .store import Exports, KeptHeads, LastMatch
from .terminal import Output


@dataclass
class Choices:
    """What the command line already decided (None: ask when it matters)."""
    rules: str | None = None
    variant: str | None = None
    seats: int | None = None
    teams: bool | None = None
    target: int | None = None
    host_options: dict | None = None
    turn_timer: int | None = None
    strength: str | None = None
    seat: int | None = None
    fill_bots: bool = False
    start_when_full: bool = False
    spectators: bool | None = None  # a room created here: may players without a seat watch?


@dataclass(frozen=True)
class WayBack:
    """Where the menu offers to take the player back: what it says, and the place (a room's
    lobby, a ticket's wait, or a match by id)."""
    label: str
    room: mm.RoomView | None = None
    ticket: mm.TicketView | None = None
    match_id: str = ""


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

    # ---- entry points ---------------------------------------------------------------

    def rules(self) -> families.Rules:
        """What the server plays, asked once per session (DescribeRules): every question and
        screen reads it. Without a match service to ask, the built-in rules."""
        return self.match.rules() if self.match is not None else families.current()

    def menu(self) -> int:
        """The interactive menu, until the player quits."""
        self.interactive = True
        self.rules()
        while True:
            self.out.fresh()
            self.out.say(lobby_screens.banner(self.me(), self.match.address, self.matchmaking.address))
            items = list(menu.MAIN)
            if self.account is not None:
                items.insert(-1, menu.ACCOUNT)
            back = self.way_back()
            if back is not None:
                items.insert(0, ("r", back.label))
            self.out.say(lobby_screens.menu(items))
            keys = [k for k, _ in items]
            answer = self.ask("Choose", keys, "r" if back is not None else "1")
            try:
                if answer == "q":
                    return 0
                if answer == "r" and back is not None:
                    self.go_back(back)
                elif answer == "1":
                    self.practice()
                elif answer == "2":
                    self.table()
                elif answer == "3":
                    self.create_room()
                elif answer == "4":
                    self.join_room()
                elif answer == "5":
                    if self.my_matches():
                        continue  # the player's own Enter left it: straight back to the menu
                elif answer == "6":
                    self.ratings()
                elif answer == "7":
                    self.watch()
                elif answer == menu.ACCOUNT[0] and self.account is not None:
                    if self.account.run(self.out, self.inbox):
                        return 0  # signed out or deleted: nothing more to do here
                    continue  # its own "b" was the way back: no pause
            except ApiError as e:
                self.out.say(Text(explain(e), style="bold red"))
                if e.code == grpc.StatusCode.UNAVAILABLE:
                    return 1
            except ClientError as e:
                self.out.say(Text(str(e), style="bold red"))
            self.pause()

    def me(self) -> str:
        """The name the player goes by: their display name when signed in to an account."""
        return (self.account.display_name if self.account is not None else "") or self.player

    def way_back(self) -> WayBack | None:
        """Where matchmaking says the player is, as a menu offer (None: nowhere). When it
        does not answer, the unfinished match this machine remembers, if any."""
        try:
            presence = self.matchmaking.presence()
        except ApiError:
            remembered = self._resumable()
            if remembered is None:
                return None
            return WayBack(f"Resume your match ({_describe(remembered)}; remembered here, matchmaking did not "
                           "answer)", match_id=remembered.match_id)
        place = presence.WhichOneof("place")
        if place == "ticket":
            return WayBack(lobby_screens.ticket_label(presence.ticket, self.clock()), ticket=presence.ticket)
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
        if tiles.is_ended(view) or view.your_seat < 0:
            return None  # just ended: matchmaking frees the player in a moment
        return WayBack(f"Resume your match ({_describe(view)}; {where})", match_id=presence.match_id)

    def go_back(self, back: WayBack) -> pb.MatchView | None:
        """Back to the room's lobby, the ticket's wait or the match the menu offered."""
        match_id: str | None = back.match_id
        if back.room is not None:
            match_id = self._room(back.room)
        elif back.ticket is not None:
            match_id = self._wait_for_table(back.ticket)
        elif not match_id:
            self.out.say("The match is still being created; try again in a moment.")
        return self.play_match(match_id) if match_id else None

    def last_match_id(self) -> str | None:
        """The match to resume with `--resume last`: the one matchmaking says the player is
        seated in, or the one this machine remembers when matchmaking says nothing."""
        try:
            match_id = self.matchmaking.presence().match_id
        except ApiError:
            match_id = ""
        return match_id or self.store.load()

    def practice(self) -> pb.MatchView | None:
        self.rules()
        setup = self.setup()
        timer = self._turn_timer(setup)
        strength = self._strength()
        self.out.say(f"Starting practice: {_setup_name(setup)}, against {strength} bots…", style="dim")
        started = self.matchmaking.start_practice(setup, strength, timer)
        return self.play_match(started.match_id)

    def table(self) -> pb.MatchView | None:
        ticket = self.matchmaking.request_table(self.setup(public=True))
        match_id = self._wait_for_table(ticket)
        return self.play_match(match_id) if match_id else None

    def create_room(self) -> pb.MatchView | None:
        setup = self.setup()
        room = self.matchmaking.create_room(setup, self._turn_timer(setup), self.choices.seat,
                                            self.choices.spectators)
        match_id = self._room(room)
        return self.play_match(match_id) if match_id else None

    def join_room(self, code: str | None = None) -> pb.MatchView | None:
        self.rules()
        typed = not code
        while not code:
            self.out.ask("Invite code:")
            code = menu.clean_code(self._line())
        room = self.matchmaking.room_by_code(code)
        seat = self.choices.seat
        free = [s.seat for s in room.seats if not s.player_id]
        if seat is None and typed and len(free) > 1:
            names.learn(s.player_id for s in room.seats)
            self.out.say(lobby_screens.room_screen(room, self.player))
            answer = self.ask("Which seat?", [str(s) for s in free], str(free[0]))
            seat = int(answer)
        room = self.matchmaking.join_room(code, seat)
        match_id = self._room(room)
        return self.play_match(match_id) if match_id else None

    def play_match(self, match_id: str) -> pb.MatchView | None:
        self.rules()
        game = Game(self.match, self.inbox, self.out, self.game_options, clock=self.clock,
                    on_join=self.store.save, on_end=self.store.clear,
                    on_view=self.heads.keep if self.heads is not None else lambda view: None)
        final = game.run(match_id)
        self.out.fresh()
        if final is None and game.has_left():
            self.out.say(f"You left match {match_id} for good: the server plays your seat to the end and will not "
                         "give it back; you are free to play elsewhere.", style="bold", soft_wrap=True)
        elif final is None:
            self.out.say(f"You left the table; your seat stays. Come back with: domino play --resume {match_id}",
                         style="bold", soft_wrap=True)
        else:
            self.out.say(rounds.result_line(final), soft_wrap=True)
            if self.heads is not None and final.HasField("head"):
                self.out.say(f"The signed heads of this match are kept in {self.heads.path(match_id)} "
                             "(for `domino audit verify --heads`).", soft_wrap=True)
        return final

    # ---- history, ratings, watching -------------------------------------------------

    def my_matches(self) -> bool:
        """"Your matches": pages of ListMyMatches, newest first; a number exports that match
        (ExportMatch with the player's own token: what their seat saw) to a file under var/.
        True when the player left it with Enter (nothing more to read); False when it ended
        by itself (no history here, or none yet) and its message waits for a pause."""
        tokens = [""]  # the page token of each page seen so far; the last is on screen
        page: pb.ListMyMatchesResponse | None = None
        while True:
            if page is None:
                try:
                    page = self.match.my_matches(history_screens.PAGE, tokens[-1])
                except ApiError as e:
                    self.out.say(Text(f"Your matches are not available: {_plain(e)}", style="bold red"))
                    return False
                names.learn(p for m in page.matches for p in m.seats)
                self.out.say(history_screens.history_screen(page.matches, len(tokens) - 1,
                                                            bool(page.next_page_token)))
                if not page.matches and len(tokens) == 1:
                    return False
            first = (len(tokens) - 1) * history_screens.PAGE + 1
            self.out.ask("Your matches>")
            command = history_screens.parse_history(self._line(), first, len(page.matches),
                                                    bool(page.next_page_token), len(tokens) - 1)
            if command.action == "back":
                return True
            if command.action == "next":
                tokens.append(page.next_page_token)
                page = None
            elif command.action == "previous":
                tokens.pop()
                page = None
            elif command.action == "export":
                self._export(page.matches[command.number - first])
            else:
                self.out.say(command.message, style="yellow")

    def _export(self, summary: pb.MatchSummary) -> None:
        try:
            record = self.match.export(summary.match_id)
        except ApiError as e:
            self.out.say(Text(f"Could not export match {summary.match_id}: {_plain(e)}", style="bold red"))
            return
        exports = self.exports or Exports("var", self.player)
        try:
            path = exports.save(summary.match_id, record)
        except OSError as e:
            self.out.say(Text(f"Could not write the record: {e}", style="bold red"))
            return
        self.out.say(Text.assemble("Exported match ", (summary.match_id, "bold"), " (as your seat saw it) to ",
                                   (str(path), "bold green")), soft_wrap=True)

    def ratings(self) -> None:
        """"Ratings": the player's rating in a family and team setting (asked; by default
        those of the match they last played) and that leaderboard's top with their rank."""
        described = self.rules()
        last = self._last_played()
        rules = self.ask_choice("Family", described.names,
                                last.rules if last is not None and last.rules in described.names else described.default)
        family = families.family(rules)
        if family.teams_choice:
            default = "teams" if last is not None and last.rules == rules and last.teams else "solo"
            teams = self.ask_choice("Ratings for", ("solo", "teams"), default) == "teams"
        else:
            teams = family.always_teams
        try:
            mine = self.match.rating(rules, teams)
            board = self.match.leaderboard(rules, teams, history_screens.TOP)
        except ApiError as e:
            self.out.say(Text(f"Ratings are not available: {_plain(e)}", style="bold red"))
            return
        names.learn([self.player, *(r.player_id for r in board.top)])
        self.out.say(history_screens.ratings_screen(rules, teams, mine, board, self.player))

    def _last_played(self) -> pb.MatchSummary | None:
        """The player's newest match (None: none, or no history on this server)."""
        try:
            page = self.match.my_matches(1)
        except ApiError:
            return None
        return page.matches[0] if page.matches else None

    def watch(self, match_id: str | None = None) -> pb.MatchView | None:
        """WatchMatch as a spectator: the public view one turn behind, and the table talk.
        ClientError with the server's message when the match may not be watched. A match the
        player has a seat at is opened to play instead."""
        self.rules()
        while not match_id:
            self.out.ask("Match id to watch:")
            match_id = self._line().strip()
        spectator = Spectator(self.match, self.inbox, self.out, stop_on_eof=self.interactive,
                              round_pause=self.game_options.round_pause, clock=self.clock)
        final = spectator.run(match_id)
        if spectator.seated:
            self.out.say("You have a seat at this match: opening it to play.", style="bold")
            return self.play_match(match_id)
        self.out.fresh()
        if final is None:
            self.out.say(f"You stopped watching match {match_id}.", style="bold")
        else:
            self.out.say(rounds.result_line(final), soft_wrap=True)
        return final

    # ---- waiting for a table --------------------------------------------------------

    def _wait_for_table(self, ticket: mm.TicketView) -> str | None:
        pump = Pump(self.inbox, "ticket", lambda last: self.matchmaking.watch_ticket(ticket.ticket_id)).start()
        shown = None
        typed = True  # a line typed since the last screen: the next one is drawn whole
        try:
            while True:
                if ticket.match_id and ticket.status == mm.TICKET_STATUS_SEATED:
                    return ticket.match_id
                if ticket.status in (mm.TICKET_STATUS_CANCELLED, mm.TICKET_STATUS_ENDED):
                    self.out.say(f"The ticket was {lobby_screens.TICKET_STATUS[ticket.status]}.")
                    return None
                names.learn(ticket.seats)
                if self.out.redraw or ticket != shown:  # redrawn, the seconds waited count up
                    self.out.screen(lobby_screens.ticket_screen(ticket, self.clock()), with_prompt=True,
                                    in_place=not typed)  # a half-typed q survives the count
                    shown, typed = ticket, False
                event = self.inbox.get(timeout=1.0)
                if event is None:
                    continue
                typed = typed or event.kind in ("line", "eof")
                if event.kind == "ticket" and event.source is pump:
                    ticket = event.value.ticket
                elif event.kind == "line" and event.value.strip().lower() in ("q", "quit", "cancel"):
                    ticket = self._cancel(ticket)
                elif event.kind == "eof" and not self._scripted():
                    ticket = self._cancel(ticket)
                elif event.kind == "stream-error" and event.source is pump:
                    ticket = self.matchmaking.get_ticket(ticket.ticket_id)
                elif event.kind == "ticket-end" and event.source is pump:
                    ticket = self.matchmaking.get_ticket(ticket.ticket_id)
        except KeyboardInterrupt:
            self._cancel(ticket)
            raise
        finally:
            pump.stop()

    def _cancel(self, ticket: mm.TicketView) -> mm.TicketView:
        try:
            return self.matchmaking.cancel_ticket(ticket.ticket_id)
        except ApiError as e:
            self.out.say(Text(str(e), style="bold red"))
            return self.matchmaking.get_ticket(ticket.ticket_id)

    # ---- private rooms --------------------------------------------------------------

    def _room(self, room: mm.RoomView) -> str | None:
        room_id = room.room_id
        pump = Pump(self.inbox, "room",
                    lambda last: self.matchmaking.watch_room(room_id, last.room.version if last else 0)).start()
        message = ""
        host = room.host_id == self.player
        filled = False
        try:
            while True:
                if room.status == mm.ROOM_STATUS_PLAYING and room.match_id:
                    return room.match_id
                if room.status == mm.ROOM_STATUS_CLOSED:
                    self.out.say(lobby_screens.room_screen(room, self.player))
                    return None
                if host and self.choices.fill_bots and not filled and room.status == mm.ROOM_STATUS_OPEN:
                    filled = True
                    room = self._fill(room, self.choices.strength)
                if (host and self.choices.start_when_full and room.status == mm.ROOM_STATUS_OPEN
                        and all(s.player_id for s in room.seats)):
                    room = self._newer(room, self.matchmaking.start_room(room_id))
                    continue
                names.learn(s.player_id for s in room.seats)
                self.out.screen(lobby_screens.room_screen(room, self.player, message), with_prompt=True)
                event = self.inbox.get()
                message = ""
                if event.kind == "room" and event.source is pump:
                    room = self._newer(room, event.value.room)
                elif event.kind in ("room-end", "stream-error") and event.source is pump:
                    try:
                        room = self._newer(room, self.matchmaking.room(room_id))
                    except ApiError as e:  # no longer a member: the room is over for this player
                        room = _closed(room, str(e))
                elif event.kind == "eof" and not self._scripted():
                    self._leave(room)
                    raise InputClosed()
                elif event.kind == "line":
                    room, message = self._room_command(room, event.value)
        except KeyboardInterrupt:
            self._leave(room)
            raise
        finally:
            pump.stop()

    def _room_command(self, room: mm.RoomView, line: str) -> tuple[mm.RoomView, str]:
        command = menu.parse_room_command(line)
        try:
            if command.action == "quit":
                return self._leave(room), "You left the room."
            if command.action == "start":
                return self._newer(room, self.matchmaking.start_room(room.room_id)), "Starting…"
            if command.action == "bot":
                return self._newer(room, self.matchmaking.add_bot(room.room_id, command.strength or "greedy",
                                                                  command.seat)), ""
            if command.action == "fill":
                free = sum(1 for s in room.seats if not s.player_id)
                if not free:
                    return room, "Every seat is taken already."
                room = self._fill(room, command.strength or self.choices.strength)
                return room, f"{free} bot{'s' if free != 1 else ''} sat down."
            if command.action == "kick" and command.seat is not None:
                return self._newer(room, self.matchmaking.remove_bot(room.room_id, command.seat)), ""
            if command.action == "move" and command.seat is not None:
                return self._newer(room, self.matchmaking.change_seat(room.room_id, command.seat)), ""
            if command.action == "options":
                return self._change_options(room, command.options)
            if command.action == "refresh":
                return self._newer(room, self.matchmaking.room(room.room_id)), ""
            return room, command.message
        except ApiError as e:
            return room, f"Refused: {e}"

    def _fill(self, room: mm.RoomView, strength: str | None) -> mm.RoomView:
        """A bot of ``strength`` (default greedy) in every empty seat."""
        for seat in [s.seat for s in room.seats if not s.player_id]:
            room = self._newer(room, self.matchmaking.add_bot(room.room_id, strength or "greedy", seat))
        return room

    def _change_options(self, room: mm.RoomView, changes) -> tuple[mm.RoomView, str]:
        """The host's ``o …``: sent as room_options plans it, and said in one line."""
        try:
            change = room_options.plan(room.options, changes)
        except room_options.Refused as e:
            return room, str(e)
        after = self._newer(room, self.matchmaking.update_room_options(room.room_id, **change.request))
        return after, room_options.changed_text(room.options, after.options, change)

    def _leave(self, room: mm.RoomView) -> mm.RoomView:
        try:
            left = self.matchmaking.leave_room(room.room_id)
        except ApiError:
            return room
        if left.status != mm.ROOM_STATUS_CLOSED:
            return _closed(room, "you left")  # still open for the others, over for this player
        return left

    @staticmethod
    def _newer(room: mm.RoomView, other: mm.RoomView) -> mm.RoomView:
        return other if other.version >= room.version or other.status == mm.ROOM_STATUS_CLOSED else room

    # ---- questions ------------------------------------------------------------------

    def _scripted(self) -> bool:
        """Started with a mode on the command line: closed input does not end a wait."""
        return not self.interactive

    def _line(self) -> str:
        while True:
            event = self.inbox.get()
            if event.kind == "line":
                return event.value
            if event.kind == "eof":
                raise InputClosed()

    def ask(self, label: str, choices, default: str | None) -> str:
        while True:
            self.out.ask(f"{label} [{'/'.join(str(c) for c in choices)}]" + (f" ({default})" if default else "") + ":")
            answer = menu.pick(self._line(), choices, default)
            if answer is not None:
                return answer
            self.out.say(f"Please answer one of: {', '.join(str(c) for c in choices)}.", style="red")

    def ask_choice(self, label: str, choices, default: str, note: str = "") -> str:
        while True:
            self.out.ask(menu.question(label, choices, default, note) + ":")
            answer = menu.pick(self._line(), choices, default)
            if answer is not None:
                return answer
            self.out.say(menu.unclear(choices), style="red")

    def pause(self) -> None:
        self.out.ask(Text("Press Enter for the menu.", style="dim"))
        self._line()

    # Started with a mode on the command line, what it left open takes the server's default;
    # from the menu it is asked, unless the command line named the family or the variant
    # (then the rest is decided too).

    def setup(self, public: bool = False) -> Setup:
        """The family and its options for a match (``public``: a table, which plays the
        family's default target and host options). ClientError when they do not go together."""
        described = self.rules()
        c = self.choices
        asking = self.interactive and c.rules is None and c.variant is None
        rules = c.rules or families.rules_of(c.variant) or (self._family() if asking else described.default)
        family = families.family(rules)
        variant = c.variant or ""
        if not variant and family.variants and asking and family.variant_for_seats(c.seats) is None:
            variant = self.ask_choice("Variant", family.variants, family.default_variant)
        setup = families.settled(Setup(rules, variant, c.seats, c.teams, c.target, c.host_options))
        chosen = family.variant(setup.variant)
        if setup.seats is None and len(chosen.seat_counts) > 1 and asking:
            answer = self.ask_choice("Seats", [str(n) for n in chosen.seat_counts], str(chosen.default_shape.seats))
            setup = replace(setup, seats=int(answer))
        if setup.teams is None and asking and families.teams_question(rules, setup.variant, setup.seat_count):
            default = "teams" if families.default_teams(rules, setup.variant, setup.seat_count) else "solo"
            setup = replace(setup, teams=self.ask_choice("Play", ("teams", "solo"), default) == "teams")
        if not public and setup.target is None and asking and len(family.targets) > 1:
            answer = self.ask_choice("Play to", [str(t) for t in family.targets],
                                     str(families.default_target(rules, setup.variant)))
            setup = replace(setup, target=int(answer))
        if not public and family.options and setup.host_options is None and asking:
            setup = replace(setup, host_options=self._host_options(family, setup.variant))
        problem = families.problem(setup)
        if problem:
            raise ClientError(problem)
        return setup

    def _family(self) -> str:
        described = self.rules()
        return self.ask_choice("Family", described.names, described.default)

    def _host_options(self, family: families.Family, variant: str) -> dict | None:
        """The family's own options (Goat's four): its variant's preset, or each chosen."""
        preset = family.variant(variant).presets
        self.out.say(f"The {variant or family.title} preset: {families.options_text(dict(preset), family.rules)}.")
        if self.ask_choice(f"{family.title} options", ("preset", "choose"), "preset") == "preset":
            return None
        chosen = {}
        for option in family.options:
            shown = [families.option_value_text(v) for v in option.values]
            default = preset.get(option.name, option.values[0] if option.values else None)
            answer = self.ask_choice(f"  {option.name}", shown, families.option_value_text(default))
            chosen[option.name] = option.values[shown.index(answer)]
        return chosen

    def _turn_timer(self, setup: Setup) -> int | None:
        """The host's turn timer, among the values the server allows (None: its default).
        Asked from the menu as the family is; a family with a per-move timer (Sports) times
        each move itself, so never there."""
        c = self.choices
        if c.turn_timer is not None or not self.interactive or c.rules is not None or c.variant is not None:
            return c.turn_timer
        if families.family(setup.rules).per_move_timer:
            return None
        described = self.rules()
        answer = self.ask_choice("Turn timer", [str(t) for t in described.turn_timers],
                                 str(described.default_turn_timer), note="seconds (0: no limit)")
        return int(answer)

    def _strength(self) -> str:
        if self.choices.strength or not self.interactive:
            return self.choices.strength or "greedy"
        return self.ask_choice("Bots' strength", self.rules().strength_names, "greedy")

    def _view(self, match_id: str) -> pb.MatchView | None:
        """The match as the player's seat sees it, to describe it (None: not now)."""
        try:
            return self.match.get(match_id, retry=False)
        except ApiError:
            return None

    def _resumable(self) -> pb.MatchView | None:
        """The unfinished match this machine remembers (the fallback when matchmaking does
        not answer); a file naming a finished or foreign match is forgotten."""
        match_id = self.store.load()
        if not match_id:
            return None
        try:
            view = self.match.get(match_id)
        except ApiError as e:
            if e.code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
                          grpc.StatusCode.INVALID_ARGUMENT):
                self.store.clear(match_id)
            return None
        if tiles.is_ended(view) or view.your_seat < 0:
            self.store.clear(match_id)
            return None
        return view


def _closed(room: mm.RoomView, reason: str) -> mm.RoomView:
    closed = mm.RoomView()
    closed.CopyFrom(room)
    closed.status = mm.ROOM_STATUS_CLOSED
    closed.closed_reason = reason
    return closed


def explain(error: ApiError) -> str:
    """The server's message, with what to do about the usual refusals."""
    text = str(error)
    if error.code == grpc.StatusCode.FAILED_PRECONDITION and "already" in error.message:
        text += (". Go back there with r in the menu (your room, your ticket or your match), or "
                 "domino play --resume last for a match.")
    elif error.code == grpc.StatusCode.NOT_FOUND and "code" in error.message.lower():
        text += ". Check the invite code."
    return text


def _plain(error: ApiError) -> str:
    """The server's own message when it sent one (a refusal, or "not available on this
    server"); the usual words when the service could not be reached at all."""
    message = error.message or ""
    if not message or error.code == grpc.StatusCode.DEADLINE_EXCEEDED or "failed to connect" in message.lower():
        return str(error)
    return message


def _describe(view: pb.MatchView) -> str:
    scores = " – ".join(str(s) for s in view.scores)
    return f"{families.title(view.rules, view.variant)}, round {view.round_number}, scores {scores}"


def _setup_name(setup: Setup) -> str:
    return f"{families.title(setup.rules, setup.variant)}, {setup.seat_count} seats"


__all__ = ["App", "Choices", "ClientError", "InputClosed", "WayBack", "explain"]
