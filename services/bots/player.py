"""Answers a turn message for a bot seat, through the same gRPC API a person uses.

Idempotent by construction: the request id of every command is derived from the match
version the bot decided on, and so is the randomness of its choice, so a redelivered turn,
or the same turn handled twice at once (by two tasks of one process, which also wait for
each other, or by two replicas), is the same command with the same request id: one stored
action and the first outcome for everyone else.

Only a wall-clock limit on a search can make two replicas choose differently for one
version: the strong bot's safety net (a search cut short on a loaded machine) and the
expert's time budget. The server keeps the first answer and
refuses the second; the bot that sent it sees the match past the version it answered, knows
the turn was answered elsewhere, and carries on without an error (a refusal while the match
still stands at that version stays an error).

Thinking at a table with people. A bot there waits a drawn think time (``pace``) before it
moves, counted from when its turn began (the turn's deadline less its seconds), not from
when the turn message reached it: the relay's lag and the view's fetch are part of the
think, which never takes more than half the time the turn has left (``think_left``). It
thinks once a turn: the draws that follow, and the play after them, take no pause (a bot
drawing twelve tiles took one think time per tile). A strategy that is *anytime* (``anytime = True``: the expert, services/bots/expert.py)
spends that time searching instead: it is handed the deadline ``started + pace`` on the
player's ``timer`` (the moment the turn's view arrived, plus the drawn time) and answers
before it, so the move is never later than a strong bot's would be; the pause after it only
covers what is left (and the round's start). At a bot-only table the pace is 0 and it
decides with its own small budget, in strong's speed class.

Choosing takes a core, so only choosing is bounded (``deciding`` at once per process).
A long search counts against that bound like any choice, and also needs one of
``searching`` slots (1 by default), a separate, smaller bound: an expert that finds none
free, or reaches the front of the choosing queue with its think time nearly gone, decides
with its small default budget like any bot and then waits out the rest. So at most
``searching`` of the ``deciding`` slots are ever held for a whole think time, the others
turn over at strong's pace, and a crowd of expert tables cannot starve other bots' moves.
(The choosing threads share one interpreter lock: a long search slows a short one running
beside it, never blocks it, and strong's own 90 ms safety net bounds the short one.)
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token
from services.common.bot_ids import bot_strength
from services.common.error_details import details_of
from services.match.ends import TO_PB as END_TO_PB
from services.rules.tiles import HIGH, LOW

from .strategies import STRATEGIES
from .views import turn, view_from_pb, your_seat


CALL_SECONDS = 10.0  # deadline of each call to the match service: a turn never hangs on it
# Less think time than this left once a choosing slot is free: decide as a bot-only table does.
MIN_SEARCH_SECONDS = 0.1
# The match's rules or state refused the move: the turn may have moved on (another replica
# answered it), which a fresh view tells (ErrorInfo reasons, docs/api.md "Errors").
MOVED_ON = frozenset({"NOT_YOUR_TURN", "ROUND_OVER", "MATCH_ENDED", "REQUEST_ID_REUSED", "TILE_NOT_HELD",
                      "TILE_DOES_NOT_FIT", "END_REQUIRED", "WRONG_LEAD", "MUST_PLAY", "MUST_DRAW", "CANNOT_DRAW",
                      "NOT_ALLOWED_BY_RULES", "ROUND_NOT_DEALT", "INVALID_REQUEST"})
# Refusals that mean the turn is gone or was never ours: redelivery would not help.
SETTLED = MOVED_ON | {"MATCH_NOT_FOUND", "NOT_SEATED", "SEAT_LEFT", "MATCH_FROZEN", "WRONG_CALLER", "TOKEN_MISSING",
                      "TOKEN_INVALID", "SESSION_ENDED"}
# The match service is away for now (a restart, its store down): the turn waits for it. A
# call no server answered carries no reason; its status code says so.
TRANSIENT = frozenset({"UNAVAILABLE"})
UNANSWERED = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True)
class Refusal:
    """The match service's answer to a turn that failed, as whoever delivered the turn needs
    it (the NATS consumer), without knowing gRPC."""

    code: str  # the status's name
    details: str
    settled: bool  # the turn is gone or was never ours: redelivery would not help
    transient: bool = False  # the match service is away for now (a restart, its store down): try again soon
    reason: str = ""  # the ErrorInfo reason ("" when no server answered)


def refusal(error: BaseException) -> Refusal | None:
    """What ``play_turn``'s error means when the match service answered with an error
    status (told by its ErrorInfo reason); None for any other error."""
    if not isinstance(error, grpc.aio.AioRpcError):
        return None
    code, reason = error.code(), details_of(error).reason
    transient = reason in TRANSIENT or (not reason and code in UNANSWERED)
    return Refusal(code.name, error.details() or "", reason in SETTLED, transient, reason)


def _my_turn(view: pb.MatchView) -> bool:
    """The bot has a move to make: its seat is to act, with a play or a draw (the server
    passes for a seat that can only pass, so a turn never waits on the bot for that)."""
    seat = your_seat(view)
    return (view.status == pb.MATCH_STATUS_IN_PROGRESS and seat is not None and turn(view) == seat
            and any(m.kind in (pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW) for m in view.legal_moves))


class BotPlayer:
    def __init__(self, stub: pb_grpc.MatchServiceStub, keys: KeyRing, seed: int | None = None,
                 on_decision: Callable[[str, float], None] = lambda strength, seconds: None,
                 on_thinking: Callable[[str, float], None] = lambda strength, cpu_seconds: None,
                 think_seconds: tuple[float, float] = (0.0, 0.0),
                 on_answered_elsewhere: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, deciding: int = 8,
                 searching: int = 1, timer: Callable[[], float] = time.perf_counter) -> None:
        self.stub = stub
        # Choosing takes a core; waiting (the think pause, the round's pause) takes nothing, so
        # only the choosing is bounded: a turn that waits never holds up another's choice.
        self._deciding = asyncio.Semaphore(deciding)
        # ... and a search that lasts a whole think time holds one of these too (module docstring)
        self._searching = asyncio.Semaphore(max(0, min(searching, deciding - 1)))
        self.timer = timer  # measures a turn: its think time's deadline, the choice's duration
        self.clock = clock  # compared with the server's round_starts_at
        self.sleep = sleep
        self.think_seconds = think_seconds  # (least, most) a move takes at a table with people
        self.keys = keys  # holds the key that issues bot tokens
        self.seed = seed  # kept for callers that pass one; choices are seeded by the position
        self.on_decision = on_decision  # wall-clock seconds a choice took
        self.on_thinking = on_thinking  # CPU seconds the strategy spent on it (a strong bot's search)
        self.on_answered_elsewhere = on_answered_elsewhere
        self._tokens: dict[str, tuple[float, str]] = {}
        self._seats: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}  # (match, bot) -> (lock, users)

    def _metadata(self, player_id: str) -> tuple:
        expires, token = self._tokens.get(player_id, (0.0, ""))
        if expires - time.time() < 60:
            token = mint_token(player_id, self.keys, "bot", ttl_seconds=3600)
            self._tokens[player_id] = (time.time() + 3600, token)
        return (("authorization", f"Bearer {token}"),)

    async def play_turn(self, match_id: str, player_id: str, version: int = 0) -> int:
        """Act while it is this bot's turn; returns how many commands were sent. ``version``:
        the match's version the turn was announced at (a view that new will do)."""
        strength = bot_strength(player_id)
        if strength is None:
            return 0
        key = (match_id, player_id)
        lock, users = self._seats.get(key, (asyncio.Lock(), 0))
        self._seats[key] = (lock, users + 1)
        try:
            async with lock:  # one seat's turns one at a time: the second finds the turn taken
                return await self._play_turn(match_id, player_id, strength, version)
        finally:
            lock, users = self._seats[key]
            if users == 1:
                del self._seats[key]
            else:
                self._seats[key] = (lock, users - 1)

    def pace(self, view: pb.MatchView, rng: random.Random) -> float:
        """Seconds a move should take: a human pace when people sit at the table (so they can
        follow it), none in a bot-only match."""
        least, most = self.think_seconds
        if most <= 0 or all(bot_strength(seat.player_id) is not None for seat in view.seats):
            return 0.0
        return least + (most - least) * rng.random()

    def think_left(self, view: pb.MatchView, pace: float) -> float:
        """What is left of a think time of ``pace`` seconds now: it began with the turn, and
        it never takes more than half the time the turn still has (an untimed turn: all of it)."""
        if pace <= 0 or not view.HasField("turn_deadline") or view.turn_seconds <= 0:
            return pace
        deadline = view.turn_deadline.ToNanoseconds() / 1e9
        now = self.clock()
        began = deadline - view.turn_seconds
        return max(0.0, min(pace - max(0.0, now - began), (deadline - now) / 2))

    def wait_for_round(self, view: pb.MatchView) -> float:
        """Seconds until the round's clocks start (0 when they have): at a table with people a
        bot does not move while they read how the last round ended. A bot-only match has no
        pause between rounds, so its bots never wait here."""
        if not view.HasField("round_starts_at") or all(bot_strength(s.player_id) is not None for s in view.seats):
            return 0.0
        return max(0.0, view.round_starts_at.ToNanoseconds() / 1e9 - self.clock())

    async def _play_turn(self, match_id: str, player_id: str, strength: str, version: int) -> int:
        metadata = self._metadata(player_id)
        view = (await self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id, min_version=version),
                                         metadata=metadata, timeout=CALL_SECONDS)).view
        sent = 0
        drew = False  # the last command was a draw: the turn goes on without another think
        while _my_turn(view):
            started = self.timer()
            rng = random.Random(f"{match_id}:{view.version}:{player_id}")  # the same view, the same choice
            pace = 0.0 if drew else self.think_left(
                view, self.pace(view, random.Random(f"{match_id}:{view.version}:{player_id}:pace")))
            strategy = STRATEGIES[strength]
            async with self._deciding:
                until = started + pace
                if (pace > 0 and getattr(strategy, "anytime", False) and not self._searching.locked()
                        and until - self.timer() > MIN_SEARCH_SECONDS):
                    async with self._searching:  # free: taken at once
                        move, thinking = await asyncio.to_thread(_searched, strategy, view_from_pb(view), rng,
                                                                 until, self.timer)
                else:
                    move, thinking = await asyncio.to_thread(_decided, strategy, view_from_pb(view), rng)
            took = self.timer() - started
            self.on_decision(strength, took)
            self.on_thinking(strength, thinking)
            pause = max(pace - took, self.wait_for_round(view))
            if pause > 0:
                await self.sleep(pause)
            try:
                view = await self._send(match_id, view.version, move, metadata)
            except grpc.aio.AioRpcError as error:
                if details_of(error).reason not in MOVED_ON:
                    raise
                now = (await self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=metadata,
                                                timeout=CALL_SECONDS)).view
                if now.version == view.version:
                    raise  # refused for what it is: a real error, counted as one
                self.on_answered_elsewhere()
                view, drew = now, False
                continue
            drew = move.kind == "draw"
            sent += 1
        return sent

    async def _send(self, match_id: str, version: int, move, metadata: tuple) -> pb.MatchView:
        request_id = f"bot:{match_id}:{version}"
        if move.kind == "draw":
            reply = await self.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=request_id),
                                             metadata=metadata, timeout=CALL_SECONDS)
        else:
            reply = await self.stub.PlayTile(
                pb.PlayTileRequest(match_id=match_id, request_id=request_id,
                                   tile=pb.Tile(low=LOW[move.tile], high=HIGH[move.tile]), end=END_TO_PB[move.end]),
                metadata=metadata, timeout=CALL_SECONDS)
        return reply.view


def _searched(strategy, view, rng: random.Random, until: float, timer: Callable[[], float]) -> tuple:
    """``_decided`` for an anytime strategy, answering before ``until`` on ``timer``."""
    started = time.thread_time()
    move = strategy.search(view, rng, until, timer)
    return move, time.thread_time() - started


def _decided(strategy: Callable, view, rng: random.Random) -> tuple:
    """(the strategy's move, the CPU its thread spent choosing it): thinking, told apart from
    the rest of a turn's work, which the wall clock on a busy machine cannot do."""
    started = time.thread_time()
    move = strategy(view, rng)
    return move, time.thread_time() - started
