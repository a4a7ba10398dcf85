"""The game loop with a fake match service: typed lines in, calls and screens out."""

from __future__ import annotations

import io
import queue

import grpc
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import ApiError
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.client.tiles import LEFT, RIGHT

from .test_play_core import NOW, view


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

    def __init__(self, current: pb.MatchView, after=None, refuse: str | None = None) -> None:
        self.current = current
        self.after = after or {}  # what each command turns the view into
        self.refuse = refuse
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
    end = view(status=pb.MATCH_STATUS_ENDED, turn=-1, winner=0, scores=[53, 20], version=9)
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
    from services.client.tiles import DOWN

    from .test_play_families import all_fives

    after = all_fives(turn=1, version=8, legal=())
    api = FakeMatch(all_fives(), after={"play": after})
    final, screen, *_ = run(api, ["1", "u", "d", "q"])
    assert sent(api) == [("play", (6, 4), DOWN)]
    assert "6|4 fits several ends: l (left 4), d (down 6)?" in screen
    assert "6|4 does not fit the up end" in screen


def test_enter_cancels_an_all_fives_end_question_and_sends_nothing():
    from .test_play_families import all_fives

    api = FakeMatch(all_fives())
    _, screen, *_ = run(api, ["3", "", "q"])
    assert sent(api) == [] and "Cancelled." in screen
