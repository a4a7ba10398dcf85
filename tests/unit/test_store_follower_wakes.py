"""When the loops that follow the store look at it: the turn timer after something was
stored (at most every poll), at the next deadline, and otherwise once a safety period; the
history projection after the relay published something. Tables where nobody moves cost
them nothing (docs/operations.md, "Capacity")."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from services.match.history_projection import HistoryProjection
from services.match.timers import TurnTimer


class CountingTimer(TurnTimer):
    def __init__(self) -> None:
        super().__init__(SimpleNamespace(clock=lambda: 0.0))
        self.follows = 0

    def follow_store(self, batch: int = 500) -> int:
        self.follows += 1
        return 0


async def follows_after(seconds: float, store_at: float | None = None) -> int:
    timer, stopping, stored = CountingTimer(), asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(timer.run(stopping, poll_seconds=0.02, stored=stored, safety_seconds=60))
    if store_at is not None:
        await asyncio.sleep(store_at)
        stored.set()
    await asyncio.sleep(seconds)
    stopping.set()
    await task
    return timer.follows


def test_with_nothing_stored_and_no_deadline_the_timer_follows_the_store_once():
    assert asyncio.run(follows_after(0.3)) == 1


def test_something_stored_makes_the_timer_follow_the_store_again():
    assert asyncio.run(follows_after(0.2, store_at=0.1)) == 2


def test_without_the_tails_flag_the_timer_looks_every_poll():
    async def scenario() -> int:
        timer, stopping = CountingTimer(), asyncio.Event()
        task = asyncio.create_task(timer.run(stopping, poll_seconds=0.02))
        await asyncio.sleep(0.2)
        stopping.set()
        await task
        return timer.follows

    assert asyncio.run(scenario()) >= 4


class CountingProjection(HistoryProjection):
    def __init__(self) -> None:
        super().__init__(SimpleNamespace(), SimpleNamespace())
        self.pumps = 0

    def pump(self) -> int:
        self.pumps += 1
        return 0


async def pumps_after(seconds: float, publish_at: float | None = None) -> int:
    projection, stopping, moved = CountingProjection(), asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(projection.run(stopping, idle_seconds=0.02, moved=moved, safety_seconds=60))
    if publish_at is not None:
        await asyncio.sleep(publish_at)
        moved.set()
    await asyncio.sleep(seconds)
    stopping.set()
    await task
    return projection.pumps


def test_with_nothing_published_the_history_projection_reads_the_store_once():
    assert asyncio.run(pumps_after(0.3)) == 1


def test_the_relay_publishing_makes_the_history_projection_read_again():
    assert asyncio.run(pumps_after(0.2, publish_at=0.1)) == 2
