"""The bot player answers turns through the public gRPC API, and never sends a move the
server refuses (issue: strong bots sent refused moves at a round's start)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.bots.player import BotPlayer, refusal
from services.common import grpc_status
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as service:
        yield service


def start(svc, request_id: str, strength: str) -> pb.MatchView:
    players = (f"bot:{strength}:0", f"bot:{strength}:1")
    return svc.create(rules="all-fives", variant="", players=players, target=100, request_id=request_id).view


async def twice(svc, match_id: str, player_id: str, seeds=(1, 2)) -> list:
    """Two turn messages for one seat answered at once: by one bot process, or by two replicas."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        one, other = BotPlayer(stub, KEYS, seed=seeds[0]), BotPlayer(stub, KEYS, seed=seeds[1])
        same = one if seeds[0] == seeds[1] else other
        return await asyncio.gather(one.play_turn(match_id, player_id), same.play_turn(match_id, player_id),
                                    return_exceptions=True)


@pytest.mark.parametrize("strength", ["random", "strong"])
@pytest.mark.parametrize("seeds", [(1, 1), (1, 2)], ids=["one-process", "two-replicas"])
def test_a_turn_answered_twice_at_once_lands_one_move_and_neither_bot_fails(svc, strength, seeds):
    for n in range(6):  # a chance leader opens with any of 7 tiles: different choices would clash
        view = start(svc, f"{strength}-{seeds}-{n}", strength)
        leader = view.seats[view.turn].player_id
        results = asyncio.run(twice(svc, view.match_id, leader, seeds))
        refused = [r for r in results if isinstance(r, Exception)]
        assert not refused, refused
        after = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ops", "service")).view
        assert after.round_actions[0].seat == view.turn and after.round_actions[0].kind == pb.MOVE_KIND_PLAY


def test_a_replica_that_chose_differently_for_an_answered_turn_carries_on_without_an_error(svc, monkeypatch):
    from services.bots import player as player_module

    calls = []

    def contrary(view, rng):  # the first call takes the first legal move, the second the last
        calls.append(view)
        return view.legal_moves[0 if len(calls) == 1 else -1]

    monkeypatch.setitem(player_module.STRATEGIES, "random", contrary)
    view = start(svc, "contrary", "random")
    elsewhere = []
    leader = view.seats[view.turn].player_id

    async def both():
        async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            one = BotPlayer(stub, KEYS, on_answered_elsewhere=lambda: elsewhere.append(1))
            other = BotPlayer(stub, KEYS, on_answered_elsewhere=lambda: elsewhere.append(2))
            return await asyncio.gather(one.play_turn(view.match_id, leader), other.play_turn(view.match_id, leader),
                                        return_exceptions=True)

    results = asyncio.run(both())
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(results) == [0, 1] and len(elsewhere) == 1
    after = svc.stub.GetMatch(pb.GetMatchRequest(match_id=view.match_id), metadata=auth("ops", "service")).view
    assert len(after.round_actions) == 1


def test_a_refusal_while_the_match_stands_still_is_an_error(svc, monkeypatch):
    from services.bots import player as player_module
    from services.rules.moves import Move

    monkeypatch.setitem(player_module.STRATEGIES, "random", lambda view, rng: Move("draw"))
    view = start(svc, "refused", "random")

    async def once():
        async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
            return await BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS).play_turn(
                view.match_id, view.seats[view.turn].player_id)

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        asyncio.run(once())
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    told = refusal(refused.value)  # the rules refused it, by name: redelivery would send it again
    assert told is not None and told.reason in ("MUST_PLAY", "CANNOT_DRAW") and told.settled and not told.transient


def refused_with(code: grpc.StatusCode, reason: str = "", message: str = "refused") -> grpc.aio.AioRpcError:
    """An error status as the match service sends it, with the ErrorInfo ``reason`` in its trailers."""
    trailers = grpc.aio.Metadata()
    if reason:
        status = grpc_status.status_of(code, message, reason, "domino.match")
        trailers = grpc.aio.Metadata((grpc_status.DETAILS_KEY, status.SerializeToString()))
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailers, message)


@pytest.mark.parametrize("code, reason, settled, transient", [
    (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", True, False),  # answered elsewhere
    (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_ENDED", True, False),
    (grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED", True, False),
    (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE", False, True),  # the store is away: the turn waits
    (grpc.StatusCode.UNAVAILABLE, "", False, True),  # no server answered at all
    (grpc.StatusCode.ABORTED, "CONFLICT", False, False),  # a lost race: redelivered
    (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED", False, False),  # redelivered with a fresh token
    (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", True, False),
])
def test_a_refused_turn_is_told_apart_by_its_reason(code, reason, settled, transient):
    told = refusal(refused_with(code, reason, "words that say nothing to a bot"))
    assert told is not None and (told.reason, told.settled, told.transient) == (reason, settled, transient)


class ForcedPassStub:
    """GetMatch answering the bot's seat as the one to act with nothing to play or draw (only a
    pass, as a server before issue 35 sent a moment before its own pass)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def GetMatch(self, request, metadata=None, timeout=None):
        self.calls.append("get")
        view = pb.MatchView(match_id=request.match_id, version=5, status=pb.MATCH_STATUS_IN_PROGRESS, turn=1,
                            your_seat=1, seats=[pb.SeatView(player_id="ann"), pb.SeatView(player_id="bot:greedy:1")])
        view.legal_moves.add(kind=pb.MOVE_KIND_PASS)
        return pb.GetMatchResponse(view=view)

    async def PlayTile(self, request, metadata=None, timeout=None):
        self.calls.append("play")
        raise AssertionError("nothing to play")

    DrawTile = PlayTile


def test_a_bot_never_acts_on_a_turn_with_nothing_to_play_or_draw():
    """The server passes for such a seat (issue 35, point 4): the bot neither sends a move nor
    waits for the pass; its turn message is answered with nothing sent."""
    stub = ForcedPassStub()
    assert asyncio.run(BotPlayer(stub, KEYS).play_turn("m1", "bot:greedy:1", 5)) == 0
    assert stub.calls == ["get"]


def seats_of(*players: str) -> pb.MatchView:
    return pb.MatchView(seats=[pb.SeatView(player_id=p) for p in players])


def test_a_bot_at_a_table_with_people_takes_a_human_pace():
    import random

    bot = BotPlayer(None, KEYS, think_seconds=(0.6, 1.5))
    paces = [bot.pace(seats_of("ann", "bot:greedy:1"), random.Random(n)) for n in range(50)]
    assert all(0.6 <= p <= 1.5 for p in paces) and len(set(paces)) > 1


def test_a_bot_only_match_never_waits():
    import random

    bot = BotPlayer(None, KEYS, think_seconds=(0.6, 1.5))
    assert bot.pace(seats_of("bot:greedy:0", "bot:strong:1"), random.Random(1)) == 0.0


def test_a_strong_bots_thinking_is_reported_as_its_strategys_cpu_once_per_move(svc):
    view = start(svc, "thinking", "strong")
    leader = view.seats[view.turn].player_id
    decisions: list = []
    thinking: list = []

    async def play() -> int:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{svc.port}") as channel:
            bot = BotPlayer(pb_grpc.MatchServiceStub(channel), KEYS,
                            on_decision=lambda strength, seconds: decisions.append((strength, seconds)),
                            on_thinking=lambda strength, seconds: thinking.append((strength, seconds)))
            return await bot.play_turn(view.match_id, leader)

    sent = asyncio.run(play())
    assert sent >= 1 and len(thinking) == len(decisions) == sent
    assert {strength for strength, _ in thinking} == {"strong"}
    assert all(seconds > 0 for _, seconds in thinking)  # its search takes CPU of its own
