"""The life a table has had before bench/idle_streams.py's idle window: its bots, some moves
under the turn clock, a phrase or two of table talk. (The reconnects are the bench's own, as
they are its streams.)

An idle stream of a match nobody ever moved in is the cheapest there is: no deadline was
armed, nothing to skip, no talk to read, no bot waiting on the bus. A table at human pace
waits between moves it has made, so before the window every match plays some moves (people
through their replica, bots through the bot service) and says a phrase or two, and stops
where a person is to act: the window then measures what waiting costs after a real life.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc

from domino.match.v1 import match_service_pb2 as pb
from services.common.bot_ids import bot_id
from services.match.messages import PHRASE_PB
from services.match.table_talk import PHRASES

SEATS = 4
IN_PROGRESS = pb.MATCH_STATUS_IN_PROGRESS
BOT_POLL_SECONDS = 0.25  # how often a table whose bot is to act asks whether it moved
IN_FLIGHT = 32  # calls the tables make at once: phones at human pace, not a burst of every table


@dataclass
class Table:
    match_id: str
    players: list[str]
    turn: int  # the seat to act, as last seen
    index: int = 0
    bots: frozenset[int] = frozenset()
    moved: int = 0  # the people's moves made in it
    deadline: float | None = None  # the turn's deadline (epoch seconds) when it came to rest

    @property
    def people(self) -> list[int]:
        return [s for s in range(SEATS) if s not in self.bots]


@dataclass
class LifeCounts:
    moves: int = 0
    chats: int = 0
    waits_for_bots: int = 0
    unfinished: int = 0  # tables that did not come to rest at a person's turn in time
    errors: Counter = field(default_factory=Counter)
    said: dict[str, str] = field(default_factory=dict)  # the first error's details, by kind
    in_flight: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(IN_FLIGHT))

    def failed(self, call: str, error: grpc.aio.AioRpcError) -> None:
        kind = f"{call}:{error.code().name}"
        self.errors[kind] += 1
        self.said.setdefault(kind, str(error.details()))

    def as_dict(self) -> dict[str, Any]:
        return {"life_moves": self.moves, "life_chats": self.chats, "life_waits_for_bots": self.waits_for_bots,
                "life_unfinished": self.unfinished, "life_errors": dict(self.errors), "life_error_details": self.said}


def bot_seats(match_index: int, bots: int) -> frozenset[int]:
    """The seats of a match that are bots: ``bots`` of them, moving round the table every
    second match, so that every seat (first to act or not) is a bot somewhere and, with two
    replicas ((match + seat) mod 2), each replica holds half the people's streams."""
    if not 0 <= bots < SEATS:
        raise ValueError(f"a table of {SEATS} has 0 to {SEATS - 1} bots, not {bots}")
    return frozenset((match_index // 2 + k) % SEATS for k in range(bots))


def seat_specs(players: list[str], bots: frozenset[int]) -> list[pb.SeatSpec]:
    return [pb.SeatSpec(player_id=bot_id("greedy", s) if s in bots else p, client_seed=f"seed-{p}")
            for s, p in enumerate(players)]


def deadline_of(view: pb.MatchView) -> float | None:
    """The turn's deadline in epoch seconds; None when the turn is not timed."""
    seconds = view.turn_deadline.seconds + view.turn_deadline.nanos / 1e9
    return seconds if seconds > 0 else None


def _turn(view: pb.MatchView) -> int:
    return view.turn if view.HasField("turn") else -1


async def play_until(client: Any, table: Table, moves: int, counts: LifeCounts, rng: random.Random,
                     pause: float, timeout: float) -> None:
    """The people of ``table`` move (a random legal play or draw, ``pause`` seconds apart)
    until they made ``moves`` in all, the bots answering in between; then wait for the
    table to rest at a person's turn (or end). ``client.unary_for(table, seat)`` is the
    stub of that seat's replica, ``client.md(player)`` its token."""
    give_up = time.monotonic() + timeout
    seat = table.turn
    view: pb.MatchView | None = None
    while time.monotonic() < give_up:
        asker = seat if seat in table.people else table.people[0]
        try:
            async with counts.in_flight:
                view = (await client.unary_for(table, asker).GetMatch(
                    pb.GetMatchRequest(match_id=table.match_id), metadata=client.md(table.players[asker]),
                    timeout=30)).view
        except grpc.aio.AioRpcError as e:
            counts.failed("GetMatch", e)
            await asyncio.sleep(BOT_POLL_SECONDS)
            continue
        if view.status != IN_PROGRESS:
            break
        seat = _turn(view)
        if seat not in table.people:  # a bot's turn (or between rounds)
            counts.waits_for_bots += 1
            await asyncio.sleep(BOT_POLL_SECONDS)
            continue
        if table.moved >= moves:
            table.turn, table.deadline = seat, deadline_of(view)
            return
        if seat != asker:
            continue  # ask again, as the person to act (their legal moves)
        options = [m for m in view.legal_moves if m.kind in (pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW)]
        if not options:
            await asyncio.sleep(BOT_POLL_SECONDS)
            continue
        move = rng.choice(options)
        await asyncio.sleep(pause * rng.random())
        stub, md = client.unary_for(table, seat), client.md(table.players[seat])
        request_id = f"{table.match_id}:{seat}:{view.version}"
        try:
            async with counts.in_flight:
                if move.kind == pb.MOVE_KIND_DRAW:
                    reply = await stub.DrawTile(pb.DrawTileRequest(match_id=table.match_id, request_id=request_id),
                                                metadata=md, timeout=30)
                else:
                    reply = await stub.PlayTile(pb.PlayTileRequest(match_id=table.match_id, request_id=request_id,
                                                                   tile=move.tile, end=move.end), metadata=md,
                                                timeout=30)
        except grpc.aio.AioRpcError as e:
            counts.failed("move", e)
            continue
        table.moved += 1
        counts.moves += 1
        seat = _turn(reply.view)
    if view is None or view.status == IN_PROGRESS:
        counts.unfinished += 1
    table.turn = _turn(view) if view is not None else -1
    table.deadline = deadline_of(view) if view is not None else None


async def play_all(client: Any, tables: list[Table], moves: int, counts: LifeCounts, seed: int,
                   pause: float = 1.0, timeout: float = 120.0) -> None:
    """Every table to ``moves`` people's moves, all at once (each at its own pace)."""
    await asyncio.gather(*(play_until(client, t, moves, counts, random.Random(f"{seed}:{t.index}:{moves}"), pause,
                                      timeout) for t in tables))


async def talk(client: Any, tables: list[Table], phrases: int, counts: LifeCounts, seed: int) -> None:
    """``phrases`` quick-chat phrases at every table, each from one of its people."""
    async def table_talk(table: Table) -> None:
        rng = random.Random(f"{seed}:{table.index}:talk")
        for _ in range(phrases):
            seat = rng.choice(table.people)
            try:
                async with counts.in_flight:
                    await client.unary_for(table, seat).SendChat(
                        pb.SendChatRequest(match_id=table.match_id, chat_phrase=PHRASE_PB[rng.choice(PHRASES)]),
                        metadata=client.md(table.players[seat]), timeout=30)
                counts.chats += 1
            except grpc.aio.AioRpcError as e:
                counts.failed("SendChat", e)
            await asyncio.sleep(rng.random())

    await asyncio.gather(*(table_talk(t) for t in tables))


def reconnecting(keys: list[tuple[str, int]], share: float, seed: int) -> list[tuple[str, int]]:
    """The streams that lose their connection: ``share`` of them, chosen by ``seed``."""
    count = round(len(keys) * min(1.0, max(0.0, share)))
    return random.Random(f"{seed}:reconnect").sample(sorted(keys), count)
