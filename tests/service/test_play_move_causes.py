"""`domino play` over real gRPC tells a move the server made for the player from their own
(issue 34, finding 14: "you played 6|5" for a move the timer made): the screen says
"Time ran out: 6|5 was played for you." and the last moves say so."""

from __future__ import annotations

import io
import threading
import time
import uuid

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import MatchApi
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.keys import auth, token

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as service:
        yield service


class Screen:
    """ann's `domino play` on a match, in a thread, printing into a string."""

    def __init__(self, svc, match_id: str) -> None:
        self.api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
        self.file = io.StringIO()
        self.inbox = Inbox()
        out = Output(Console(file=self.file, width=120, color_system=None), redraw=False)
        self.game = Game(self.api, self.inbox, out, GameOptions(tick=0), clock=svc.app.clock)
        self.thread = threading.Thread(target=self.game.run, args=(match_id,), daemon=True)
        self.thread.start()

    def shows(self, text: str, within: float = 10.0) -> str:
        deadline = time.monotonic() + within
        while text not in self.file.getvalue():
            assert time.monotonic() < deadline, f"{text!r} not shown:\n{self.file.getvalue()[-3000:]}"
            time.sleep(0.01)
        return self.file.getvalue()

    def close(self) -> None:
        self.inbox.put("line", "q")
        self.thread.join(10)
        self.api.close()


def test_a_move_the_server_made_when_time_ran_out_is_said_to_be_played_for_the_player(svc):
    created = svc.create(variant="block-4", players=("ann", "bob", "cat", "dan"), request_id="for-you",
                         turn_timer_seconds=30).view
    match_id = created.match_id
    n = 0
    while svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view.turn != 0:
        public = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view
        player = public.seats[public.turn].player_id
        move = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view.legal_moves[0]
        svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"o{n}", tile=move.tile, end=move.end),
                          metadata=auth(player))
        n += 1
    screen = Screen(svc, match_id)
    try:
        screen.shows("Your turn")
        match = svc.run(svc.app.read(svc.app.get_match, uuid.UUID(match_id)))
        svc.app.clock.advance(30)
        svc.run(svc.app.expire_turn(match.id, match.round_number, match.turn_no))
        screen.inbox.put("line", "")  # Enter: the timer ran outside this service's streams, so refresh
        mine = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view
        played = [a for a in mine.round_actions if a.seat == 0][-1]
        tile = f"{max(played.tile.low, played.tile.high)}|{min(played.tile.low, played.tile.high)}"
        said = screen.shows(f"Time ran out: {tile} was played for you.")
        assert "(time ran out: played for you)" in said[said.rfind("Last moves"):]
        assert "you played" not in said.lower()
    finally:
        screen.close()
