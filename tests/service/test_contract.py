"""Contract: one scenario, run against the application in-process and over gRPC.

With the same server seed both must produce the same match, event for event, so the
gRPC adapter cannot drift from the domain.
"""

from __future__ import annotations

import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.bots.views import move_from_pb
from services.match.application import MatchApplication, SeatSpec
from services.rules.errors import RulesError
from services.rules.moves import LEFT, RIGHT, legal_moves
from services.rules.tiles import HIGH, LOW
from tests.support.clock import Clock
from tests.support.matches import Matches
from tests.support.keys import auth

from .harness import running_service

PLAYERS = ["ann", "bob"]
SEED = bytes(range(32))


class AppDriver:
    def __init__(self, app: Matches) -> None:
        self.app = app

    def create(self) -> str:
        match = self.app.create_match("contract", "egyptian", "draw-2", None, 51, 0, [SeatSpec(p, p) for p in PLAYERS])
        return str(match.id)

    def turn(self, match_id: str):
        match = self.app.get_match(uuid.UUID(match_id))
        if match.finished:
            return None
        rnd = match.state.round
        return match.seats[rnd.turn], legal_moves(rnd)

    def act(self, match_id: str, player: str, move, request_id: str) -> None:
        if move.kind == "draw":
            self.app.draw_tile(uuid.UUID(match_id), player, request_id)
        else:
            self.app.play_tile(uuid.UUID(match_id), player, move.tile, move.end, request_id)

    def out_of_turn(self, match_id: str, player: str) -> None:
        try:
            self.app.draw_tile(uuid.UUID(match_id), player, "wrong")
        except RulesError as e:
            raise Refused(str(e)) from None

    def result(self, match_id: str):
        match = self.app.get_match(uuid.UUID(match_id))
        return list(match.state.scores), match.state.winner, match.version


class GrpcDriver:
    def __init__(self, stub) -> None:
        self.stub = stub

    def create(self) -> str:
        seats = [pb.SeatSpec(player_id=p, client_seed=p) for p in PLAYERS]
        return self.stub.CreateMatch(pb.CreateMatchRequest(request_id="contract", rules="egyptian", variant="draw-2",
                                                           target=51, turn_timer_seconds=0, seats=seats),
                                     metadata=auth("mm", "service")).match_id

    def turn(self, match_id: str):
        view = self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view
        if view.status == pb.MATCH_STATUS_ENDED:
            return None
        player = view.seats[view.turn].player_id
        mine = self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
        return player, tuple(move_from_pb(m) for m in mine.legal_moves)

    def act(self, match_id: str, player: str, move, request_id: str) -> None:
        if move.kind == "draw":
            self.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=request_id), metadata=auth(player))
        else:
            end = {None: pb.END_UNSPECIFIED, LEFT: pb.END_LEFT, RIGHT: pb.END_RIGHT}[move.end]
            self.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=request_id, end=end,
                                                  tile=pb.Tile(low=LOW[move.tile], high=HIGH[move.tile])),
                               metadata=auth(player))

    def out_of_turn(self, match_id: str, player: str) -> None:
        try:
            self.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="wrong"), metadata=auth(player))
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.FAILED_PRECONDITION
            raise Refused(e.details()) from None

    def result(self, match_id: str):
        view = self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view
        return list(view.scores), (None if view.winner < 0 else view.winner), view.version


class Refused(Exception):
    pass


def scenario(driver) -> tuple:
    match_id = driver.create()
    player, _ = driver.turn(match_id)
    idle = next(p for p in PLAYERS if p != player)
    with pytest.raises(Refused) as refused:
        driver.out_of_turn(match_id, idle)
    n = 0
    while (turn := driver.turn(match_id)) is not None:
        player, moves = turn
        driver.act(match_id, player, moves[-1], f"r{n}")
        n += 1
    return driver.result(match_id), str(refused.value), n


@pytest.fixture
def app():
    app = Matches(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(),
                                   seed_source=lambda: SEED))
    yield app
    app.close()


def test_the_application_and_the_grpc_api_play_the_same_match(app):
    in_process = scenario(AppDriver(app))
    other = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(), seed_source=lambda: SEED)
    with running_service(other) as svc:
        over_grpc = scenario(GrpcDriver(svc.stub))
    assert over_grpc == in_process
