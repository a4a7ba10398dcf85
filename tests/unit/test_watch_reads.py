"""One store read for the streams of a match woken by the same change, never an answer older
than what a stream has been told of (services/match/watch_reads.py)."""

from __future__ import annotations

import asyncio
import uuid

from services.common.changes import ChangeFeed
from services.match.watch_reads import SharedReads

MATCH = uuid.uuid4()


class Store:
    """Answers each read with how many reads came before it, once released."""

    def __init__(self) -> None:
        self.reads = 0
        self.release = asyncio.Event()

    async def fetch(self) -> int:
        self.reads += 1
        answer = self.reads
        await self.release.wait()
        return answer


def run(scenario):
    return asyncio.run(scenario())


def ask(shared: SharedReads, store: Store, waiter) -> asyncio.Future:
    """A stream registered as ``waiter`` asking for the match's new events."""
    return asyncio.ensure_future(shared.read(waiter, "events", store.fetch))


def test_streams_waiting_since_the_same_change_share_one_read():
    async def scenario():
        changes, store = ChangeFeed(), Store()
        shared = SharedReads(changes)
        first, second = changes.waiter(MATCH), changes.waiter(MATCH)
        asks = [ask(shared, store, w) for w in (first, second)]
        await asyncio.sleep(0)
        store.release.set()
        return await asyncio.gather(*asks), store.reads

    answers, reads = run(scenario)
    assert answers == [1, 1] and reads == 1


def test_a_stream_told_of_a_later_change_does_not_take_an_earlier_read():
    async def scenario():
        changes, store = ChangeFeed(), Store()
        shared = SharedReads(changes)
        first = ask(shared, store, changes.waiter(MATCH))
        await asyncio.sleep(0)
        changes.publish(MATCH)  # a change stored while the first read runs
        second = ask(shared, store, changes.waiter(MATCH))
        await asyncio.sleep(0)
        store.release.set()
        return await first, await second, store.reads

    first, second, reads = run(scenario)
    assert (first, second, reads) == (1, 2, 2)


def test_a_stream_that_goes_away_leaves_the_others_their_answer():
    async def scenario():
        changes, store = ChangeFeed(), Store()
        shared = SharedReads(changes)
        waiter = changes.waiter(MATCH)
        leaving, staying = ask(shared, store, waiter), ask(shared, store, waiter)
        await asyncio.sleep(0)
        leaving.cancel()
        store.release.set()
        return await staying, shared.in_flight

    answer, in_flight = run(scenario)
    assert answer == 1 and in_flight == 0


def test_a_finished_read_is_not_shared_with_later_asks():
    async def scenario():
        changes, store = ChangeFeed(), Store()
        store.release.set()
        shared = SharedReads(changes)
        waiter = changes.waiter(MATCH)
        first = await shared.read(waiter, "events", store.fetch)
        second = await shared.read(waiter, "events", store.fetch)
        return first, second

    assert run(scenario) == (1, 2)


def test_a_stream_that_leaves_while_it_reads_leaves_nothing_registered():
    async def scenario():
        changes = ChangeFeed()
        with changes.waiter(MATCH):
            pass  # an ended, failed or cancelled stream leaves its block here
        left = changes.waiting
        with changes.waiter(MATCH) as waiter:
            await waiter.wait(0.01)
        return left, changes.waiting, MATCH in changes._waiting

    assert run(scenario) == (0, 0, False)


def test_a_match_watched_anew_does_not_take_a_read_begun_before_its_streams_left():
    async def scenario():
        changes, store = ChangeFeed(), Store()
        shared = SharedReads(changes)
        with changes.waiter(MATCH) as gone:
            first = ask(shared, store, gone)
            await asyncio.sleep(0)
        changes.publish(MATCH)  # nobody registered: nothing to wake
        second = ask(shared, store, changes.waiter(MATCH))
        await asyncio.sleep(0)
        store.release.set()
        return await first, await second

    assert run(scenario) == (1, 2)
