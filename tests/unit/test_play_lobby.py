"""The menu and the room lobby of `domino play` with fake services: typed lines in, calls out.

The menu first asks matchmaking where the player is (FakeMatchmaking.place, a
GetPresenceResponse) and offers to go back there; the fakes stand at the client's API seam."""

from __future__ import annotations

import io

import pytest
import grpc
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.client.api import ApiError
from services.client import families
from services.client.app import App, Choices
from services.client.families import Setup
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from services.common.rule_options import settings_pb
from tests.support.rules_description import described
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


class FakeMatchmaking:
    address = "fake:2"

    def __init__(self) -> None:
        self.calls: list = []
        self.room_view = mm.RoomView(room_id="r-1", code="K7M2PQ4X", host_player_id="ann", status=mm.ROOM_STATUS_OPEN,
                                     version=1, options=mm.MatchOptions(rules="egyptian", variant="block-3",
                                                                        target=51, turn_timer_seconds=45))
        for seat, player in enumerate(["ann", "", ""]):
            self.room_view.seats.add(seat=seat, player_id=player)  # no team: solo
        self.place = mm.GetPresenceResponse()  # where GetPresence says the player is: nowhere
        self.unreachable = False

    def presence(self):
        if self.unreachable:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, "connection refused", self.address)
        return self.place

    def get_ticket(self, ticket_id):
        return mm.TicketView(ticket_id=ticket_id, status=mm.TICKET_STATUS_SEATED, match_id="m-3",
                             player_ids=["ann", "bob"])

    def _changed(self) -> mm.RoomView:
        self.room_view.version += 1
        out = mm.RoomView()
        out.CopyFrom(self.room_view)
        return out

    def create_room(self, setup, turn_timer, seat, spectators=None):
        self.calls.append(("create", setup, turn_timer, seat) + ((spectators,) if spectators is not None else ()))
        return self._changed()

    def start_practice(self, setup, strength, turn_timer):
        self.calls.append(("practice", setup, strength, turn_timer))
        return mm.StartPracticeResponse(match_id="m-2")

    def request_table(self, setup):
        self.calls.append(("table", setup))
        return mm.TicketView(ticket_id="t-1", status=mm.TICKET_STATUS_SEATED, match_id="m-3")

    def watch_ticket(self, ticket_id, from_version=0):
        return self.watch_room(ticket_id, from_version)

    def update_room_options(self, room_id, **changes):
        self.calls.append(("options", changes))
        options = self.room_view.options
        for name, value in changes.items():
            if name == "host_options":
                chosen = {**families.options_of(options), **value}
                del options.rule_options[:]
                options.rule_options.extend(settings_pb(chosen))
            else:
                setattr(options, {"turn_timer": "turn_timer_seconds", "seats": "seat_count"}.get(name, name), value)
        return self._changed()

    def watch_room(self, room_id, from_version):
        class Idle:
            def __iter__(self):
                return iter(())

            def cancel(self):
                pass
        return Idle()

    def room(self, room_id):
        return self._changed()

    def add_bot(self, room_id, strength, seat=None):
        self.calls.append(("bot", strength, seat))
        free = [s for s in self.room_view.seats if not s.player_id]
        target = next(s for s in free if seat is None or s.seat == seat)
        name = strength or "greedy"  # the server's default here (SeatShape.default_bot_strength)
        target.player_id = f"bot:{name}:{target.seat}"
        target.bot_strength = families.current().strength_value(name)
        return self._changed()

    def remove_bot(self, room_id, seat):
        self.calls.append(("kick", seat))
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"seat {seat} has no bot")

    def start_room(self, room_id):
        self.calls.append(("start",))
        if not all(s.player_id for s in self.room_view.seats):
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, "every seat must be filled to start")
        self.room_view.status, self.room_view.match_id = mm.ROOM_STATUS_PLAYING, "m-1"
        return self._changed()

    def leave_room(self, room_id):
        self.calls.append(("leave",))
        self.room_view.status, self.room_view.closed_reason = mm.ROOM_STATUS_CLOSED, mm.ROOM_CLOSED_REASON_HOST_LEFT
        self.place = mm.GetPresenceResponse()
        return self._changed()


class FakeMatch:
    address = "fake:1"
    rules = staticmethod(described)  # DescribeRules

    def __init__(self, **views: pb.MatchView) -> None:
        self.views = views

    def get(self, match_id, retry=True):
        if match_id not in self.views:
            raise ApiError(grpc.StatusCode.NOT_FOUND, f"no match {match_id}")
        return self.views[match_id]


def live(match_id: str, status=pb.MATCH_STATUS_IN_PROGRESS) -> pb.MatchView:
    return pb.MatchView(match_id=match_id, rules="egyptian", variant="draw-2", status=status, your_seat=0,
                        round_number=2, scores=[10, 5])


def app_for(lines: list[str], tmp_path, **choices) -> tuple[App, FakeMatchmaking, io.StringIO, list]:
    inbox = Inbox()
    for line in lines:
        inbox.put("line", line)
    inbox.put("eof")
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    fake = FakeMatchmaking()
    played: list = []
    app = App("ann", match=None, matchmaking=fake, inbox=inbox, out=out, store=LastMatch(tmp_path, "ann"),
              game_options=GameOptions(tick=0), choices=Choices(**choices))
    app.play_match = played.append
    return app, fake, file, played


def test_the_host_fills_the_room_from_the_lobby_and_starts_it(tmp_path):
    app, fake, screen, played = app_for(["s", "b 1 random", "k 1", "hmm", "b", "s"], tmp_path, variant="block-3")
    app.create_room()
    assert played == ["m-1"]
    assert fake.calls == [("create", Setup("egyptian", "block-3"), None, None), ("start",), ("bot", "random", 1),
                          ("kick", 1), ("bot", "", None), ("start",)]  # "": the server's default strength
    text = screen.getvalue()
    assert "Invite code   K7M2PQ4X" in text
    assert "Refused: every seat must be filled to start" in text
    assert "Refused: seat 1 has no bot" in text
    assert "'hmm'? b adds a bot" in text


def test_fill_bots_and_start_when_full_need_no_typing(tmp_path):
    app, fake, _, played = app_for([], tmp_path, variant="block-3", strength="strong", fill_bots=True,
                                   start_when_full=True)
    app.create_room()
    assert played == ["m-1"]
    assert fake.calls[1:] == [("bot", "strong", 1), ("bot", "strong", 2), ("start",)]


def test_leaving_the_lobby_closes_the_hosts_room(tmp_path):
    app, fake, screen, played = app_for(["q"], tmp_path, variant="block-3")
    assert app.create_room() is None and played == []
    assert fake.calls[-1] == ("leave",)
    assert "The room is closed: the host left." in screen.getvalue()


def test_the_menu_asks_for_what_the_command_line_left_open(tmp_path):
    app, fake, screen, _ = app_for(["3", "", "block-4", "solo", "101", "", "q", "", "q"], tmp_path)
    app.main_menu._resumable = lambda: None
    app.match = type("M", (), {"address": "fake:1", "rules": staticmethod(described)})()
    assert app.menu() == 0
    assert fake.calls == [("create", Setup("egyptian", "block-4", teams=False, target=101), 45, None), ("leave",)]
    text = screen.getvalue()
    assert "Family  1) egyptian  2) all-fives  3) goat  4) classic  5) sports  [egyptian]:" in text
    assert "Variant  1) draw-2  2) block-3  3) block-4  [draw-2]:" in text
    assert "Play  1) teams  2) solo  [teams]:" in text
    assert "3) Create a private room" in text and "Press Enter for the menu." in text


def menu_calls(lines: list[str], tmp_path) -> tuple[list, str]:
    """The menu, answered with ``lines`` then q: the calls it made and what it showed."""
    app, fake, screen, _ = app_for(lines + ["", "q"], tmp_path)
    app.main_menu._resumable = lambda: None
    app.match = type("M", (), {"address": "fake:1", "rules": staticmethod(described)})()
    assert app.menu() == 0
    return fake.calls, screen.getvalue()


def test_the_menu_asks_all_fives_for_seats_teams_and_its_own_targets(tmp_path):
    calls, text = menu_calls(["1", "all-fives", "", "teams", "150", "", "random"], tmp_path)
    assert calls == [("practice", Setup("all-fives", "", 4, True, 150), "random", 45)]
    assert "Seats  2, 3 or 4  [4]:" in text
    assert "Play  1) teams  2) solo  [solo]:" in text
    assert "Play to  100, 150, 200 or 250  [250]:" in text


def test_the_menu_asks_no_teams_below_four_seats(tmp_path):
    calls, text = menu_calls(["1", "2", "2", "", "", ""], tmp_path)
    assert calls == [("practice", Setup("all-fives", "", 2, None, 250), "greedy", 45)]
    assert "Play  1) teams" not in text


def test_the_menu_keeps_the_goat_preset_and_never_asks_a_target(tmp_path):
    calls, text = menu_calls(["1", "goat", "", "3", "", "", ""], tmp_path)
    assert calls == [("practice", Setup("goat", "koza", 3), "greedy", 45)]
    assert "The koza preset: 0-0 alone counts 10 · redeal on · remembered on · fish all." in text
    assert "Play to" not in text


def test_the_menu_lets_the_host_choose_each_goat_option(tmp_path):
    calls, text = menu_calls(["3", "goat", "gamezz", "2", "choose", "25", "", "on", "one", "", "q"], tmp_path)
    options = {"zero_zero": 25, "redeal": False, "remembered": True, "fish": "one"}
    assert calls[0] == ("create", Setup("goat", "gamezz", 2, host_options=options), 45, None)
    assert "  zero_zero  0, 10 or 25  [0]:" in text and "  fish  1) all  2) one  [all]:" in text


def test_the_menu_asks_sports_only_its_target(tmp_path):
    calls, text = menu_calls(["1", "sports", "100", ""], tmp_path)
    assert calls == [("practice", Setup("sports", target=100), "greedy", None)]
    assert "Seats" not in text and "Play  1) teams" not in text


def test_a_public_table_is_asked_the_family_and_seats_but_no_target(tmp_path):
    app, fake, _, played = app_for(["classic", "3"], tmp_path)
    app.interactive = True
    app.table()
    assert fake.calls == [("table", Setup("classic", "", 3))] and played == ["m-3"]


def test_a_practice_from_the_command_line_takes_the_defaults_it_left_open(tmp_path):
    app, fake, _, played = app_for([], tmp_path, rules="all-fives", seats=2, target=100, strength="random")
    app.practice()
    assert fake.calls == [("practice", Setup("all-fives", "", 2, None, 100), "random", None)]


def test_the_host_changes_options_from_the_lobby(tmp_path):
    app, fake, screen, _ = app_for(["o target=150 fish=one timer=60", "q"], tmp_path, rules="goat")
    fake.room_view.options.CopyFrom(mm.MatchOptions(rules="goat", variant="koza", seat_count=3, target=101,
                                                    turn_timer_seconds=45, rule_options=settings_pb({"fish": "all"})))
    app.create_room()
    assert fake.calls[1] == ("options", {"target": 150, "turn_timer": 60, "host_options": {"fish": "one"}})
    assert "target 101 → 150; turn timer 45 s → 60 s; fish all → one." in screen.getvalue()


# ---- filling the room with bots ----------------------------------------------------------------


def test_the_host_fills_every_empty_seat_with_bots_from_the_room_prompt(tmp_path):
    app, fake, screen, played = app_for(["f strong", "f", "s"], tmp_path, variant="block-3")
    app.create_room()
    assert played == ["m-1"]
    assert fake.calls[1:] == [("bot", "strong", 1), ("bot", "strong", 2), ("start",)]
    text = screen.getvalue()
    assert "2 bots sat down." in text and "Every seat is taken already." in text
    offered = families.current().strength_names  # what DescribeRules offers
    either = ", ".join(offered[:-1]) + " or " + offered[-1]
    assert f"f [STRENGTH] fills every empty seat with bots (strength {either})" in text


def test_the_fill_command_reads_an_optional_strength():
    from services.client import menu

    assert menu.parse_room_command("f") == menu.RoomCommand("fill")
    assert menu.parse_room_command("fill r") == menu.RoomCommand("fill", strength="random")
    offered = families.current().strength_names  # what DescribeRules offers
    assert ", ".join(offered) in menu.parse_room_command("f wizard").message
    assert f"f [{'|'.join(offered)}] fills every empty seat with bots" in menu.room_help()


# ---- no system running ------------------------------------------------------------------------


def closed_address() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"  # nobody listens there once it is closed


def test_play_without_a_running_system_says_how_to_start_it_before_asking_anything(tmp_path):
    import time

    from click.testing import CliRunner

    from services.cli.play import play

    address = closed_address()
    started = time.monotonic()
    result = CliRunner().invoke(play, ["--player", "ann", "--match-address", address, "--matchmaking-address",
                                       address, "--var", str(tmp_path)], input="1\n\n\n")
    assert time.monotonic() - started < 5
    assert result.exit_code == 1
    assert f"cannot reach the match service at {address} or matchmaking at {address}" in result.output
    from services.cli.command_path import command_path

    assert f"Start it with: {command_path()} up" in result.output  # the domino that works from here
    assert "What would you like to do?" not in result.output and "Family" not in result.output


# ---- where the player is: the menu offers the way back -----------------------------------------


def flat(text: str) -> str:
    """The screen with its lines joined, as a long menu line reads when it wraps."""
    return " ".join(text.split())


def menu_app(lines: list[str], tmp_path, place: mm.GetPresenceResponse | None = None, **views):
    app, fake, screen, played = app_for(lines, tmp_path)
    app.match = FakeMatch(**views)
    if place is not None:
        fake.place = place
    return app, fake, screen, played


def seated_in_room(fake: FakeMatchmaking, match_id: str = "") -> mm.GetPresenceResponse:
    room = mm.RoomView()
    room.CopyFrom(fake.room_view)
    if match_id:
        room.status, room.match_id = mm.ROOM_STATUS_PLAYING, match_id
    return mm.GetPresenceResponse(room=room, match_id=match_id)


def at_table(match_id: str, kind=mm.TABLE_KIND_PRACTICE) -> mm.GetPresenceResponse:
    options = mm.MatchOptions(rules="egyptian", variant="draw-2", seat_count=2, target=71, turn_timer_seconds=45)
    table = mm.TableView(table_id="tb-1", kind=kind, options=options, your_seat=0, player_ids=["ann", "bot:greedy:1"],
                         match_id=match_id)
    return mm.GetPresenceResponse(table=table, match_id=match_id)


def test_the_menu_offers_to_go_back_to_the_players_room_and_takes_them_to_its_lobby(tmp_path):
    app, fake, screen, played = menu_app(["r", "q", "", "q"], tmp_path)
    fake.place = seated_in_room(fake)
    assert app.menu() == 0
    text = flat(screen.getvalue())
    assert "r) Back to your room K7M2PQ4X (Egyptian block-3 · 3 seats · solo; open, 1 of 3 seats taken)" in text
    assert "Choose [r/1/2/3/4/5/6/7/q] (r):" in text  # going back is the default
    assert "Invite code K7M2PQ4X" in text and ("leave",) in fake.calls and played == []
    assert text.count("r) Back to your room") == 1  # once left, the menu offers it no more


def test_a_room_whose_match_is_being_played_is_rejoined_in_the_match(tmp_path):
    app, fake, screen, played = menu_app(["", "q"], tmp_path, **{"m-1": live("m-1")})
    fake.place = seated_in_room(fake, "m-1")
    app.interactive = True
    back = app.way_back()
    assert back.label == "Resume your match (Egyptian draw-2, round 2, scores 10 – 5; room K7M2PQ4X)"
    app.go_back(back)
    assert played == ["m-1"]


def test_a_ticket_still_waiting_is_waited_on_again_until_its_table_is_seated(tmp_path):
    ticket = mm.TicketView(ticket_id="t-7", status=mm.TICKET_STATUS_WAITING, rules="egyptian", variant="block-3",
                           seat_count=3)
    ticket.requested_at.FromSeconds(1000)
    app, fake, _, played = menu_app([], tmp_path, place=mm.GetPresenceResponse(ticket=ticket))
    app.clock = lambda: 1042.0
    back = app.way_back()
    assert back.label == "Keep waiting for your public table (Egyptian block-3 · 3 seats · solo; 42 s so far)"
    assert back.ticket.ticket_id == "t-7"
    app.go_back(back)  # the wait goes on where it was: the ticket's table is seated with its match
    assert played == ["m-3"]


def test_a_player_seated_at_a_table_is_offered_its_live_match(tmp_path):
    app, fake, screen, played = menu_app(["r", "", "q"], tmp_path, place=at_table("m-4"), **{"m-4": live("m-4")})
    assert app.menu() == 0
    assert played == ["m-4"]
    assert "r) Resume your match (Egyptian draw-2, round 2, scores 10 – 5; practice table)" in flat(screen.getvalue())


def test_a_match_the_match_service_does_not_describe_now_is_offered_as_matchmaking_knows_it(tmp_path):
    app, _, _, _ = menu_app([], tmp_path, place=at_table("m-4", mm.TABLE_KIND_PUBLIC))
    back = app.way_back()
    assert (back.label, back.match_id) == ("Resume your match (public table, Egyptian draw-2 · 2 seats · solo)", "m-4")


def test_a_match_that_just_ended_is_not_offered(tmp_path):
    app, _, _, _ = menu_app([], tmp_path, place=at_table("m-4", mm.TABLE_KIND_PUBLIC),
                            **{"m-4": live("m-4", pb.MATCH_STATUS_ENDED)})
    assert app.way_back() is None


def test_a_table_whose_match_is_being_created_says_so(tmp_path):
    app, _, screen, played = menu_app([], tmp_path, place=at_table("", mm.TABLE_KIND_PUBLIC))
    back = app.way_back()
    assert back.label == "Your match is starting (public table, Egyptian draw-2 · 2 seats · solo): check again"
    assert app.go_back(back) is None and played == []
    assert "still being created" in screen.getvalue()


def test_the_server_is_the_truth_a_remembered_match_is_not_offered_when_it_says_nowhere(tmp_path):
    app, _, screen, _ = menu_app(["q"], tmp_path, **{"m-9": live("m-9")})
    app.store.save("m-9")
    assert app.menu() == 0
    assert "r) " not in screen.getvalue()


def test_when_matchmaking_does_not_answer_the_match_remembered_here_is_offered(tmp_path):
    app, fake, screen, played = menu_app(["", "", "q"], tmp_path, **{"m-9": live("m-9")})
    fake.unreachable = True
    app.store.save("m-9")
    assert app.menu() == 0
    assert played == ["m-9"]
    assert ("r) Resume your match (Egyptian draw-2, round 2, scores 10 – 5; remembered here, matchmaking did not "
            "answer)") in flat(screen.getvalue())


def test_resume_last_asks_matchmaking_first_then_this_machine(tmp_path):
    app, fake, _, _ = menu_app([], tmp_path, place=at_table("m-4"))
    app.store.save("m-9")
    assert app.last_match_id() == "m-4"
    fake.place = mm.GetPresenceResponse()
    assert app.last_match_id() == "m-9"
    fake.unreachable = True
    assert app.last_match_id() == "m-9"


# ---- spectators ---------------------------------------------------------------------------------


def test_the_host_lets_spectators_in_from_the_lobby(tmp_path):
    app, fake, screen, _ = app_for(["o spectators=on", "q"], tmp_path, variant="block-3")
    app.create_room()
    assert fake.calls[1][0] == "options" and fake.calls[1][1]["spectators"] is True
    text = screen.getvalue()
    assert "no spectators" in text and "spectators=on" in text


def test_a_room_created_from_the_command_line_may_allow_spectators(tmp_path):
    app, fake, _, _ = app_for(["q"], tmp_path, variant="block-3", spectators=True)
    app.create_room()
    assert fake.calls[0] == ("create", Setup("egyptian", "block-3"), None, None, True)


def test_the_room_screen_says_whether_spectators_may_watch():
    from services.client import lobby_screens

    room = FakeMatchmaking().room_view
    assert "spectators may watch" not in str(lobby_screens.room_screen(room, "ann").renderables[0])
    room.options.spectators = True
    assert "spectators may watch" in str(lobby_screens.room_screen(room, "ann").renderables[0])
