"""The game loop with a fake match service: typed lines in, calls and screens out."""

from __future__ import annotations

import io
import queue
import re
from types import SimpleNamespace

import pytest
import grpc
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import ApiError
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.client.view_reading import LEFT, RIGHT

from .test_play_core import NOW, view
from tests.support.rules_description import described
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


class FakeCall:
    """A WatchMatch call fed by the test."""

    def __init__(self) -> None:
        self.items: queue.Queue = queue.Queue()
        self.cancelled = False

    def __iter__(self):
        while True:
            item = self.items.get()
            if item is None:
                return
            if isinstance(item, grpc.RpcError):
                raise item
            yield item

    def cancel(self) -> None:
        self.cancelled = True
        self.items.put(None)


class Lost(grpc.RpcError):
    def code(self):
        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        return "connection reset"


class FakeMatch:
    address = "fake:1"
    rules = staticmethod(described)  # DescribeRules

    def __init__(self, current: pb.MatchView, after=None, refuse: str | None = None,
                 record: dict | None = None) -> None:
        self.current = current
        self.after = after or {}  # what each command turns the view into
        self.refuse = refuse
        self.record = record  # what ExportMatch gives this player (None: refused)
        self.calls: list = []
        self.watches: list[tuple[int, FakeCall]] = []

    def get(self, match_id, retry=True):
        self.calls.append(("get",))
        return self.current

    def play(self, match_id, tile, end, rid):
        self.calls.append(("play", tile, end, rid))
        if self.refuse:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, self.refuse)
        self.current = self.after["play"]
        return pb.PlayTileResponse(version=self.current.version, view=self.current)

    def draw(self, match_id, rid):
        self.calls.append(("draw", rid))
        self.current = self.after["draw"]
        return pb.DrawTileResponse(version=self.current.version, tile=pb.Tile(low=2, high=5), view=self.current)

    def resume(self, match_id):
        self.calls.append(("resume",))
        self.current.seats[self.current.your_seat].away = False
        return self.current

    def submit_seed(self, match_id, seed):
        self.calls.append(("seed", seed))
        self.current = self.after.get("seed", self.current)
        return self.current

    def leave(self, match_id):
        self.calls.append(("leave",))
        self.current.seats[self.current.your_seat].left = True
        self.current.seats[self.current.your_seat].away = True
        return self.current

    def export(self, match_id):
        self.calls.append(("export",))
        if self.record is None:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, "no export here")
        import json

        return json.dumps(self.record)

    def watch(self, match_id, from_version):
        call = FakeCall()
        self.watches.append((from_version, call))
        return call


def my_turn(**kw):
    return view(line=((6, 4),), hand=((6, 6), (4, 2), (6, 4), (3, 1)),
                legal=[("play", (6, 6), LEFT), ("play", (6, 4), LEFT), ("play", (6, 4), RIGHT),
                       ("play", (4, 2), RIGHT)], **kw)


def run(api: FakeMatch, lines: list[str], **options):
    inbox = Inbox()
    for line in lines:
        inbox.put("line", line)
    inbox.put("eof")
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    joined, ended = [], []
    game = Game(api, inbox, out, GameOptions(tick=0, **options), clock=lambda: NOW, on_join=joined.append,
                on_end=ended.append)
    final = game.run("0f0e0d0c-0000-4000-8000-000000000001")
    return final, file.getvalue(), joined, ended


def sent(api):
    return [c[:3] if c[0] == "play" else c[:1] for c in api.calls if c[0] in ("play", "draw")]


def test_illegal_lines_are_answered_on_screen_and_never_sent():
    api = FakeMatch(my_turn())
    final, screen, joined, ended = run(api, ["4", "9", "d", "hello", "q"])
    assert final is None and sent(api) == []
    assert "3|1 does not fit the line" in screen
    assert "Pick a tile number from 1 to 4" in screen
    assert "You cannot draw while a tile of yours fits" in screen
    assert "'hello' is not a move" in screen
    assert joined == ["0f0e0d0c-0000-4000-8000-000000000001"] and ended == []


def test_a_tile_that_fits_both_ends_asks_which_one_then_plays_there():
    after = view(turn=1, line=((6, 6), (6, 4)), hand=((4, 2), (6, 4), (3, 1)), version=8)
    api = FakeMatch(my_turn(), after={"play": after})
    final, screen, *_ = run(api, ["2", "l", "q"])
    assert sent(api) == [("play", (6, 4), LEFT)]
    assert "6|4 fits both ends: l (left, 6) or r (right, 4)?" in screen
    assert "Waiting for bot greedy 1" in screen


def test_each_command_has_its_own_request_id():
    after = view(turn=0, line=((6, 4), (4, 2)), hand=((6, 6), (6, 4), (3, 1)), version=8,
                 legal=[("play", (6, 6), LEFT)])
    api = FakeMatch(my_turn(), after={"play": after})
    run(api, ["3", "1", "q"])
    rids = [c[3] for c in api.calls if c[0] == "play"]
    assert len(rids) == 2 and len(set(rids)) == 2


def test_a_refusal_shows_the_servers_message_and_the_fresh_view():
    api = FakeMatch(my_turn(), refuse="it is seat 1's turn, not seat 0's")
    _, screen, *_ = run(api, ["1", "q"])
    assert "The server refused: it is seat 1's turn, not seat 0's" in screen
    assert ("get",) in api.calls[1:]


def test_drawing_tells_the_player_what_they_drew():
    stuck = view(hand=((3, 1),), line=((6, 4),), legal=[("draw",)])
    after = view(hand=((3, 1), (5, 2)), line=((6, 4),), legal=[("draw",)], version=8)
    api = FakeMatch(stuck, after={"draw": after})
    _, screen, *_ = run(api, ["d", "q"])
    assert sent(api) == [("draw",)]
    assert "You drew [5|2]." in screen


def test_auto_plays_every_turn_until_the_end_and_closed_input_does_not_stop_it():
    end = view(status=pb.MATCH_STATUS_ENDED, turn=None, winner=0, scores=[53, 20], version=9)
    api = FakeMatch(my_turn(), after={"play": end})
    final, screen, joined, ended = run(api, [], auto=True)
    assert sent(api) == [("play", (6, 6), LEFT)]
    assert final == end and "Match over — you won!" in screen
    assert ended == [final.match_id]


def test_closed_input_leaves_a_match_that_is_not_auto_played():
    api = FakeMatch(view(turn=1))
    final, screen, *_ = run(api, [])
    assert final is None and sent(api) == []


def test_an_away_seat_is_resumed_on_connect():
    api = FakeMatch(view(turn=1, away=(0,)))
    run(api, ["q"])
    assert ("resume",) in api.calls


def waiting_for_seeds(awaiting=(0,)):
    v = view(turn=None, hand=(), line=(), status=pb.MATCH_STATUS_WAITING_FOR_SEEDS)
    for seat in awaiting:
        v.seats[seat].awaiting_seed = True
    return v


def test_a_seat_the_first_deal_waits_for_sends_its_own_random_seed_on_joining():
    api = FakeMatch(waiting_for_seeds())
    run(api, ["q"])
    seeds = [c[1] for c in api.calls if c[0] == "seed"]
    assert len(seeds) == 1 and re.fullmatch(r"[0-9a-f]{32}", seeds[0])
    other = FakeMatch(waiting_for_seeds())
    run(other, ["q"])
    assert [c[1] for c in other.calls if c[0] == "seed"] != seeds


def test_a_seat_whose_seed_is_in_or_not_awaited_sends_none():
    for current in (waiting_for_seeds(awaiting=(1,)), my_turn()):
        api = FakeMatch(current)
        run(api, ["q"])
        assert not [c for c in api.calls if c[0] == "seed"]


def test_leave_match_hands_the_seat_to_the_server_and_ends_the_session():
    api = FakeMatch(my_turn())
    final, screen, joined, ended = run(api, ["leave match", "leave match"])
    assert ("leave",) in api.calls and sent(api) == []
    assert final is None and ended == [joined[0]]


def test_leave_match_asks_first_saying_that_leaving_is_a_loss_and_anything_else_stays():
    api = FakeMatch(my_turn())
    final, screen, _, ended = run(api, ["leave match", "?", "q"])
    assert ("leave",) not in api.calls and ended == []
    assert "counts as your loss" in screen and "whatever the server's play for your seat scores" in screen


def test_q_keeps_the_seat_and_never_calls_leave():
    api = FakeMatch(my_turn())
    _, _, _, ended = run(api, ["q"])
    assert ("leave",) not in api.calls and ended == []


def test_the_stream_refreshes_the_screen_and_resumes_from_the_last_version_after_a_loss():
    api = FakeMatch(view(turn=1, version=7))
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    game = Game(api, inbox, out, GameOptions(tick=0), clock=lambda: NOW)

    import threading
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("final", game.run("m")), daemon=True)
    thread.start()
    wait_for(lambda: len(api.watches) == 1)
    assert api.watches[0][0] == 7
    moved = my_turn(version=8, actions=[{"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=4, high=6),
                                         "end": RIGHT}])
    api.watches[0][1].items.put(pb.WatchMatchResponse(view=moved))
    wait_for(lambda: "Your turn" in file.getvalue())
    api.watches[0][1].items.put(Lost())
    wait_for(lambda: len(api.watches) == 2)
    assert api.watches[1][0] == 8  # resumed after the last version seen
    api.watches[1][1].items.put(pb.WatchMatchResponse(view=moved))
    wait_for(lambda: "Reconnected." in file.getvalue())
    assert "Connection to the match service lost" in file.getvalue()
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive() and result["final"] is None
    assert all(call.cancelled for _, call in api.watches[1:])


def wait_for(condition, timeout: float = 5.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_typed_lines_arrive_in_order_from_a_terminal_descriptor_or_a_stream():
    import os

    for make in ("pipe", "stream"):
        inbox = Inbox()
        if make == "pipe":
            read, write = os.pipe()
            os.write(write, "3 l\r\nq\npartial é".encode())
            os.close(write)
            source = os.fdopen(read, "rb", buffering=0)  # kept: dropping it would close the descriptor
            reader = inbox.read_lines(source)
        else:
            reader = inbox.read_lines(io.StringIO("3 l\r\nq\npartial é"))
        reader.join(5)
        events = [(e.kind, e.value) for e in iter(lambda: inbox.get(timeout=0.1), None)]
        assert events == [("line", "3 l"), ("line", "q"), ("line", "partial é"), ("eof", None)], make


def test_a_move_typed_against_a_hand_that_has_since_changed_is_not_sent():
    api = FakeMatch(my_turn(version=7))
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    game = Game(api, inbox, out, GameOptions(tick=0), clock=lambda: NOW)
    game.view = api.current
    game.shown = api.current  # on screen: the hand of version 7
    game.pump = object()
    changed = view(version=9, line=((6, 4),), hand=((6, 6), (4, 2), (3, 1)),
                   legal=[("play", (6, 6), LEFT), ("play", (4, 2), RIGHT)])
    from services.client.inbox import Event
    game._handle(Event("view", pb.WatchMatchResponse(view=changed), game.pump))
    game._handle(Event("line", "2"))
    assert sent(api) == [] and "The table changed while you typed" in str(game.message)
    assert game._handle(Event("line", "q")) is not None  # leaving still works


def test_an_all_fives_end_the_tile_does_not_fit_is_asked_again_then_the_answer_is_played():
    from services.client.view_reading import DOWN

    from .test_play_families import all_fives

    after = all_fives(turn=1, version=8, legal=())
    api = FakeMatch(all_fives(), after={"play": after})
    final, screen, *_ = run(api, ["1", "u", "d", "q"])
    assert sent(api) == [("play", (6, 4), DOWN)]
    assert "Play 6|4 on left (l, scores 0) or down (d, scores 0)?" in screen
    assert "6|4 does not fit the up end" in screen


def test_enter_cancels_an_all_fives_end_question_and_sends_nothing():
    from .test_play_families import all_fives

    api = FakeMatch(all_fives())
    _, screen, *_ = run(api, ["3", "", "q"])
    assert sent(api) == [] and "Cancelled." in screen


# ---- the countdown on your own turn -------------------------------------------------------------


class Terminal:
    """Just enough of a terminal to read a screen back: cursor moves, clears, saved cursor,
    colours ignored, a newline going to the start of the next row (scrolling at the bottom)."""

    CSI = __import__("re").compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b([78])|(\n)|(\r)|([^\x1b\n\r])")

    def __init__(self, rows: int = 40, columns: int = 100) -> None:
        self.rows, self.columns = rows, columns
        self.grid = [[" "] * columns for _ in range(rows)]
        self.row = self.column = 0
        self.saved = (0, 0)
        self.lock = __import__("threading").Lock()  # the game's thread writes; the test reads and types

    def write(self, data: str) -> None:
        with self.lock:
            self._write(data)

    def _write(self, data: str) -> None:
        for csi, final, save, newline, cr, char in self.CSI.findall(data):
            if final:
                numbers = [int(n) for n in csi.split(";") if n.isdigit()]
                if final == "H":
                    self.row, self.column = (numbers[0] - 1, numbers[1] - 1) if numbers else (0, 0)
                elif final == "K":
                    self.grid[self.row][self.column:] = [" "] * (self.columns - self.column)
                elif final == "J":
                    if numbers == [2]:
                        self.grid = [[" "] * self.columns for _ in range(self.rows)]
                    else:
                        self.grid[self.row][self.column:] = [" "] * (self.columns - self.column)
                        for r in range(self.row + 1, self.rows):
                            self.grid[r] = [" "] * self.columns
            elif save:
                if save == "7":
                    self.saved = (self.row, self.column)
                else:
                    self.row, self.column = self.saved
            elif newline:
                self.column = 0
                if self.row == self.rows - 1:
                    self.grid = self.grid[1:] + [[" "] * self.columns]
                else:
                    self.row += 1
            elif cr:
                self.column = 0
            elif char and self.column < self.columns:
                self.grid[self.row][self.column] = char
                self.column += 1

    def flush(self) -> None:
        pass

    def lines(self) -> list[str]:
        with self.lock:
            return ["".join(row).rstrip() for row in self.grid]

    def text(self) -> str:
        return "\n".join(self.lines())


def test_your_own_turns_countdown_ticks_every_second_and_leaves_a_half_typed_line_alone():
    """Reported: on your own turn the countdown kept the value of the last redraw. It ticks
    now, and a tick rewrites only what changed: what the player has typed so far (echoed by
    the terminal, waiting in its line buffer) stays on the prompt line, the cursor after it."""
    import threading

    terminal = Terminal()
    out = Output(Console(file=terminal, width=100, height=40, force_terminal=True, color_system="standard",
                         highlight=False), redraw=True)
    now = [NOW]
    api = FakeMatch(my_turn(deadline_in=30))
    inbox = Inbox()
    game = Game(api, inbox, out, GameOptions(tick=0.01), clock=lambda: now[0])
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("final", game.run("m")), daemon=True)
    thread.start()
    def drawn() -> bool:  # the whole first screen, the cursor after its prompt
        lines = terminal.lines()
        return "Your turn — 30 s left." in "\n".join(lines) and lines[terminal.row] == ">"

    wait_for(drawn, timeout=2)
    with terminal.lock:
        terminal._write("2 ")  # the terminal echoes what the player types; Enter not pressed yet
        typed_at = (terminal.row, terminal.column)
    now[0] += 1
    wait_for(lambda: "Your turn — 29 s left." in terminal.text(), timeout=2)
    now[0] += 1
    wait_for(lambda: "Your turn — 28 s left." in terminal.text(), timeout=2)
    assert "to play, 28 s left" in terminal.text()
    assert terminal.lines()[typed_at[0]] == "> 2"
    assert (terminal.row, terminal.column) == typed_at
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive() and result["final"] is None


def test_a_tick_on_a_screen_taller_than_the_terminal_rewrites_the_rows_still_in_view():
    terminal = Terminal(rows=10)
    out = Output(Console(file=terminal, width=100, height=10, color_system=None, highlight=False), redraw=True)
    from services.client import render

    out.screen(render.game_screen(my_turn(deadline_in=30), NOW), with_prompt=True)
    terminal.write("1")
    out.screen(render.game_screen(my_turn(deadline_in=30), NOW + 5), with_prompt=True, in_place=True)
    lines = terminal.lines()
    assert "Your turn — 25 s left." in lines[-3] and lines[-1] == "> 1"


# ---- a seat marked away ------------------------------------------------------------------------


def away_game(current: pb.MatchView | None = None):
    """A game at the table whose seat the server has since marked away."""
    from services.client.inbox import Event

    api = FakeMatch(current or view(turn=1, away=(0,), version=9))
    file = io.StringIO()
    out = Output(Console(file=file, width=120, color_system=None, highlight=False), redraw=False)
    game = Game(api, Inbox(), out, GameOptions(tick=0), clock=lambda: NOW)
    game.view = api.current
    game.shown = api.current
    game.pump = SimpleNamespace(thread=SimpleNamespace(is_alive=lambda: True))  # the stream, still open
    return game, api, lambda line: game._handle(Event("line", line))


def test_q_while_away_leaves_without_taking_the_seat_back():
    game, api, typed = away_game()
    assert typed("q") is not None
    assert ("resume",) not in api.calls


def test_enter_while_away_only_refreshes_and_the_seat_stays_away():
    game, api, typed = away_game()
    typed("")
    typed("?")
    assert ("resume",) not in api.calls and game.view.seats[0].away


def test_back_or_a_move_while_away_takes_the_seat_back():
    game, api, typed = away_game()
    typed("back")
    assert api.calls.count(("resume",)) == 1 and "Welcome back" in str(game.message)
    game, api, typed = away_game()
    typed("1")
    assert api.calls.count(("resume",)) == 1
    assert "Welcome back" in str(game.message) and "It is not your turn" in str(game.message)


def test_a_reconnect_leaves_a_seat_the_server_marked_away_while_the_client_was_cut_off():
    game, api, _ = away_game()
    game.view = view(turn=1, version=7)
    game.lost = True
    game._check_link()
    assert ("resume",) not in api.calls and game.view.seats[0].away
    assert "Reconnected." in str(game.message) and "type back" in str(game.message)


# ---- the end question --------------------------------------------------------------------------


def test_a_typo_at_the_end_question_keeps_the_tile_and_asks_again():
    after = view(turn=1, line=((6, 6), (6, 4)), hand=((4, 2), (6, 4), (3, 1)), version=8)
    api = FakeMatch(my_turn(), after={"play": after})
    _, screen, *_ = run(api, ["2", "x", "3", "l", "q"])
    assert sent(api) == [("play", (6, 4), LEFT)]
    assert "'x' is not an end: for 6|4 type l (left) or r (right) (Enter cancels)." in screen
    assert "'3' is not an end" in screen


# ---- the end of a round ------------------------------------------------------------------------


def blocked_round():
    """Seat 0 plays 4|2 and blocks round 1; bot greedy 1 had fewer pips. The reply is round 2,
    already dealt, with bot greedy 1 to lead; the export holds round 1 as seat 0 may see it."""
    before = view(hand=((5, 5), (4, 2)), line=((6, 4),), legal=[("play", (4, 2), RIGHT)], version=9,
                  actions=[{"seat": 0, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=4, high=6)},
                           {"seat": 1, "kind": pb.MOVE_KIND_PASS}])
    after = view(hand=((6, 6), (3, 1)), line=(), turn=1, scores=[0, 10], version=12,
                 rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 1, "points": 10, "scores": [0, 10]}])
    record = {"format": "domino-record/1", "viewer_seat": 0,
              "rounds": [{"hands": [["6-4", "2-4", "5-5"], 2], "boneyard": 0,
                          "actions": [{"seat": 0, "play": "6-4"}, {"seat": 1, "pass": True},
                                      {"seat": 0, "play": "4-2", "end": "right"}]},
                         {"hands": [["6-6", "1-3"], 2], "boneyard": 0, "actions": []}]}
    return FakeMatch(before, after={"play": after}, record=record)


def test_a_rounds_end_stays_on_screen_with_the_hands_until_enter_is_pressed():
    api = blocked_round()
    final, screen, *_ = run(api, ["2", "", "q"], round_pause=8)
    assert sent(api) == [("play", (4, 2), RIGHT)]
    summary = screen[screen.index("round 1 is over"):]
    assert "Blocked: nobody could play; bot greedy 1 had the fewest pips: +10 for bot greedy 1." in summary
    assert re.search(r"you\s+\[5\|5\]\s+10 pips", summary)
    assert re.search(r"bot greedy 1\s+2 tiles, not shown", summary)
    assert "Scores: you 0 · bot greedy 1 10  (to 51)" in summary
    assert "Round 2 is dealt: bot greedy 1 leads (won round 1).\nPress Enter for the next round (8 s)." in summary
    after_enter = summary[summary.index("Press Enter for the next round"):]
    assert "Waiting for bot greedy 1" in after_enter  # Enter went on to round 2


def test_a_rounds_end_goes_on_by_itself_after_the_pause():
    import threading

    api = blocked_round()
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    now = [NOW]
    game = Game(api, inbox, out, GameOptions(tick=0.01, round_pause=8), clock=lambda: now[0])
    thread = threading.Thread(target=lambda: game.run("m"), daemon=True)
    thread.start()
    inbox.put("line", "2")
    wait_for(lambda: "round 1 is over" in file.getvalue(), timeout=2)
    now[0] += 7
    import time

    time.sleep(0.05)
    assert "Waiting for bot greedy 1" not in file.getvalue()
    now[0] += 1.5
    wait_for(lambda: "Waiting for bot greedy 1" in file.getvalue(), timeout=2)
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()


def test_without_a_round_pause_the_next_round_follows_at_once():
    api = blocked_round()
    _, screen, *_ = run(api, ["2", "q"])
    assert "round 1 is over" not in screen and ("export",) not in api.calls


def test_a_rounds_end_the_export_cannot_give_is_shown_without_hands():
    api = blocked_round()
    api.record = None
    _, screen, *_ = run(api, ["2", "", "q"], round_pause=8)
    assert "round 1 is over" in screen and "(the hands could not be fetched)" in screen


def test_the_end_of_a_round_gives_way_early_to_a_turn_of_yours():
    from services.client.round_end import leave_at

    assert leave_at(my_turn(deadline_in=30, timer=45), NOW, 8) == NOW + 7.5  # half the 45 s the turn was given
    assert leave_at(my_turn(deadline_in=45, timer=45), NOW, 8) == NOW + 8
    assert leave_at(my_turn(deadline_in=None, timer=0), NOW, 8) == NOW + 8  # no turn timer
    assert leave_at(view(turn=1, deadline_in=10), NOW, 8) == NOW + 8  # someone else leads


def test_the_final_screen_shows_the_last_rounds_hands():
    api = blocked_round()
    api.after["play"] = view(status=pb.MATCH_STATUS_ENDED, turn=None, winner=1, scores=[0, 60], version=12,
                             rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 1, "points": 60, "scores": [0, 60]}])
    final, screen, *_ = run(api, ["2"])
    assert final.status == pb.MATCH_STATUS_ENDED
    assert screen.index("round 1 is over") < screen.index("Match over — bot greedy 1 won")
    assert re.search(r"you\s+\[5\|5\]\s+10 pips", screen)
