"""Watching a match, the use case behind WatchMatch, without gRPC: the in-memory store, the
change feed a command publishes to, and an injected clock; nothing sleeps. A stream is read
one update at a time, and a move made meanwhile is told to it as the adapter tells it
(``changes.publish``), so each test says exactly which wake brings what."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from dataclasses import dataclass
from typing import Any, AsyncGenerator
from uuid import UUID

import pytest

from services.common.auth import AuthError, Identity
from services.common.changes import ChangeFeed
from services.common.limits import StreamLimits
from services.match.application import MatchApplication, SeatSpec
from services.match.domainmodel import Match
from services.match.errors import InvalidRequest, NotWatchable
from services.match.watching import Happened, Said, Shown, Update, Watching
from services.rules.moves import legal_moves
from services.rules.view import PlayerView, player_view
from tests.support.clock import Clock

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
PLAYERS = ["ann", "bob"]
SEATED, WATCHER = Identity("ann"), Identity("zed")
NEXT = 1.0  # seconds a test waits for an update it is owed: only a broken stream takes it


class Table:
    """A draw-2 match of ``PLAYERS`` on the in-memory store, a change feed, and the use case."""

    def __init__(self, spectators: bool = False, clock: Clock | None = None) -> None:
        self.app = MatchApplication(env=POPO, clock=Clock(), seed_source=lambda: b"\x07" * 32)
        self.changes = ChangeFeed()
        self.streams = StreamLimits()
        self.sent: Counter[UUID] = Counter()  # phrases sent through this replica, as talk_rpcs.py counts them
        self.watching = Watching(self.app, self.changes, streams=self.streams, talk_sent=self.sent.__getitem__,
                                 clock=clock or Clock())
        self.spectators = spectators
        self.moves = 0
        self.opened: UUID | None = None

    @property
    def match_id(self) -> UUID:
        assert self.opened is not None, "open the table first"
        return self.opened

    async def open(self) -> UUID:
        match = await self.app.create_match("m", "egyptian", "draw-2", None, None, 0,
                                            [SeatSpec(p, f"seed-{p}") for p in PLAYERS], spectators=self.spectators)
        self.opened = match.id
        return match.id

    async def move(self) -> Match:
        """The seat to act makes its first legal move; the streams are told, as a command tells them."""
        match = self.app.get_match(self.match_id)
        rnd = match.state.round
        assert rnd is not None
        move, player = legal_moves(rnd)[0], match.seats[rnd.turn]
        self.moves += 1
        if move.kind == "draw":
            outcome = await self.app.draw_tile(match.id, player, f"r{self.moves}")
        else:
            outcome = await self.app.play_tile(match.id, player, move.tile, move.end, f"r{self.moves}")
        self.changes.publish(match.id)
        return outcome.match

    async def say(self, match_id: UUID, player_id: str, phrase: str) -> None:
        """A phrase sent, counted and told to the streams, as SendChat does."""
        await self.app.send_chat(match_id, player_id, phrase)
        self.sent[match_id] += 1
        self.changes.publish(match_id)

    async def turn(self) -> Match:
        """Moves until the seat that acted first has made its play (or the round moved on)."""
        seat = self.to_act()
        while True:
            match = await self.move()
            rnd = match.state.round
            if rnd is None or rnd.turn != seat or match.finished:
                return match

    def to_act(self) -> int:
        rnd = self.app.get_match(self.match_id).state.round
        assert rnd is not None
        return rnd.turn

    def close(self) -> None:
        self.app.close()


def scenario(body) -> Any:
    return asyncio.run(body())


@dataclass(frozen=True)
class Seen:
    """An update as it was when taken: the match it carries is folded on by the next one."""

    update: Update
    version: int = 0  # the match's, then
    view: PlayerView | None = None  # what the update's seat saw of it, then (None: the public view)

    @classmethod
    def of(cls, update: Update) -> "Seen":
        if isinstance(update, Said):
            return cls(update)
        seat = update.seat
        return cls(update, update.match.version, player_view(update.match.state, seat) if seat >= 0 else None)


class Reader:
    """Reads a stream one update at a time; ``quiet`` asks whether it has gone to sleep with
    nothing to tell (the embedded store reads on the event loop, so a few turns of the loop
    take a stream to its wait, and no time passes)."""

    def __init__(self, updates: AsyncGenerator[Update, None]) -> None:
        self.updates = updates
        self.pending: asyncio.Future | None = None

    async def take(self, count: int) -> list[Seen]:
        taken = []
        for _ in range(count):
            if self.pending is None:
                self.pending = asyncio.ensure_future(anext(self.updates))
            taken.append(Seen.of(await asyncio.wait_for(asyncio.shield(self.pending), NEXT)))
            self.pending = None
        return taken

    async def quiet(self) -> bool:
        if self.pending is None:
            self.pending = asyncio.ensure_future(anext(self.updates))
        for _ in range(20):
            await asyncio.sleep(0)
        return not self.pending.done()

    async def close(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pending
        await self.updates.aclose()


def versions(seen: list[Seen]) -> list[int]:
    return [s.update.event.originator_version for s in seen if isinstance(s.update, Happened)]


def test_a_seat_gets_every_event_after_its_version_in_order_each_with_the_match_it_left_as_its_seat_sees_it():
    table = Table()

    async def body():
        match_id = await table.open()
        for _ in range(3):
            await table.move()
        start = table.app.get_match(match_id).version
        for _ in range(4):
            await table.move()
        now = table.app.get_match(match_id).version
        stream = Reader(table.watching.watch(match_id, SEATED, start))
        got = await stream.take(now - start)
        assert await stream.quiet()
        later = await table.move()  # told while the stream sleeps: it wakes with it
        got += await stream.take(later.version - now)
        await stream.close()
        return start, got, later

    try:
        start, got, later = scenario(body)
        assert all(isinstance(s.update, Happened) for s in got)
        assert versions(got) == list(range(start + 1, later.version + 1))
        for seen in got:
            stored = table.app.match_at(table.match_id, seen.update.event.originator_version)
            assert seen.version == stored.version  # the match that event left
            assert seen.update.seat == 0  # ann's seat: what the adapter builds her view and event for
            assert seen.view == player_view(stored.state, 0)  # her hand, nobody else's
    finally:
        table.close()


def test_a_stream_resumed_where_the_match_stands_replays_nothing_and_gets_the_next_move():
    table = Table()

    async def body(replays: list):
        match_id = await table.open()
        for _ in range(3):
            await table.move()
        now = table.app.get_match(match_id).version
        stream = Reader(table.watching.watch(match_id, SEATED, now))
        assert await stream.quiet()
        later = await table.move()
        got = await stream.take(later.version - now)
        await stream.close()
        return now, got, later

    replays: list = []
    match_at = table.app.match_at
    table.app.match_at = lambda *args: replays.append(args) or match_at(*args)
    try:
        now, got, later = scenario(lambda: body(replays))
        assert replays == []  # a phone back at the version it had costs no replay of the match
        assert versions(got) == list(range(now + 1, later.version + 1))
        assert got[-1].view == player_view(table.app.get_match(table.match_id).state, 0)
    finally:
        table.close()


def test_a_stream_from_version_zero_begins_with_the_match_as_it_stands():
    table = Table()

    async def body():
        match_id = await table.open()
        await table.move()
        stream = Reader(table.watching.watch(match_id, SEATED, 0))
        first = await stream.take(1)
        quiet = await stream.quiet()
        await stream.close()
        return first[0], quiet, table.app.get_match(match_id)

    try:
        first, quiet, stored = scenario(body)
        assert isinstance(first.update, Shown) and first.update.seat == 0 and first.version == stored.version
        assert quiet
    finally:
        table.close()


def test_a_spectator_stays_one_turn_behind_the_table():
    table = Table(spectators=True)

    async def body():
        match_id = await table.open()
        first_seat = table.to_act()
        before = (await table.turn()).version  # the first seat draws and plays; the next is to act
        stream = Reader(table.watching.watch(match_id, WATCHER, 0))
        shown = (await stream.take(1))[0]
        held = await stream.quiet()  # the first seat's turn is held back
        await table.turn()  # the second seat acts: the first seat's turn is shown, the second's held
        caught_up = await stream.take(before - shown.version)
        held_again = await stream.quiet()
        await stream.close()
        return first_seat, before, shown, held, caught_up, held_again

    try:
        first_seat, before, shown, held, caught_up, held_again = scenario(body)
        assert isinstance(shown.update, Shown) and shown.update.seat == -1  # the public view
        assert shown.version < before and held
        assert versions(caught_up) == list(range(shown.version + 1, before + 1))
        assert all(s.update.seat == -1 and s.update.event.seat == first_seat for s in caught_up)
        assert held_again
    finally:
        table.close()


def test_table_talk_reaches_the_stream_between_moves_and_the_phrases_of_a_blocked_seat_do_not():
    table = Table()

    class AnnBlocksBob:
        async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
            return frozenset({"bob"}) if player_id == "ann" else frozenset({"ann"}) if player_id == "bob" else \
                frozenset()

    async def body():
        match_id = await table.open()
        version = table.app.get_match(match_id).version
        ann = Reader(table.watching.watch(match_id, SEATED, version))
        service = Reader(table.watching.watch(match_id, Identity("mm", role="service"), version))
        assert await ann.quiet() and await service.quiet()
        await table.say(match_id, "bob", "hello")
        heard = await service.take(1)
        quiet = await ann.quiet()
        await ann.close()
        await service.close()
        return heard, quiet

    table.watching.blocks = AnnBlocksBob()
    try:
        heard, quiet = scenario(body)
        said = heard[0].update
        assert isinstance(said, Said) and said.phrase.phrase == "hello" and said.phrase.seat == 1
        assert quiet
    finally:
        table.close()


def test_a_stream_ends_when_its_token_expires_by_the_injected_clock():
    clock = Clock()
    table = Table(clock=clock)

    async def body():
        match_id = await table.open()
        version = table.app.get_match(match_id).version
        stream = Reader(table.watching.watch(match_id, Identity("ann", expires_at=clock.now + 60), version))
        assert await stream.quiet()
        clock.advance(61)
        await table.move()  # it wakes, tells the move, and finds its token expired
        with pytest.raises(AuthError) as refused:
            await stream.take(2)
        return refused.value

    try:
        error = scenario(body)
        assert error.error_reason == "TOKEN_EXPIRED"
        assert table.streams.total == 0  # its place is given back
    finally:
        table.close()


def test_who_may_not_watch_is_refused_before_a_stream_is_counted():
    table = Table()

    async def body():
        match_id = await table.open()
        version = table.app.get_match(match_id).version
        with pytest.raises(NotWatchable):
            await anext(table.watching.watch(match_id, WATCHER, 0))  # no seat, and no spectators allowed
        with pytest.raises(InvalidRequest):
            await anext(table.watching.watch(match_id, SEATED, version + 1))

    try:
        scenario(body)
        assert table.streams.total == 0
    finally:
        table.close()
