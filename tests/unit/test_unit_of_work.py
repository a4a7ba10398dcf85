"""The unit of work: a lost race runs the act again, a retried request is answered once, a
stale copy's refusal is asked again of the stored aggregate, one command at a time per
aggregate. A store in memory stands in; nothing sleeps."""

from __future__ import annotations

import asyncio
import copy
from typing import Callable
from uuid import UUID, uuid4

import pytest
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import RecordConflictError

from services.common.unit_of_work import ThreadedUnits, Units


class Refused(Exception):
    pass


class Missing(Exception):
    pass


class Conflict(Exception):
    pass


class Tally(Aggregate):
    """Counts what it is given, once per request id."""

    def __init__(self) -> None:
        self.total = 0
        self.requests: dict[str, int] = {}

    def add(self, amount: int, request_id: str = "") -> None:
        if amount < 0:
            raise Refused("no negative amounts")
        if self.total + amount > 10:
            raise Refused("a tally stops at 10")
        self._added(amount=amount, request_id=request_id)

    def clear(self) -> None:
        self._cleared()

    @event("Cleared")
    def _cleared(self) -> None:
        self.total = 0

    @event("Added")
    def _added(self, amount: int, request_id: str) -> None:
        self.total += amount
        if request_id:
            self.requests[request_id] = self.version + 1


class MemoryStore:
    """The stored tally, a kept copy that may be behind it, and writers that beat us."""

    def __init__(self) -> None:
        self.stored: dict[UUID, Tally] = {}
        self.kept: dict[UUID, Tally] = {}
        self.appends = 0
        self.loads = 0
        self.races_to_lose = 0

    def cached(self, aggregate_id: UUID) -> Tally | None:
        kept = self.kept.get(aggregate_id)
        return None if kept is None else copy.deepcopy(kept)

    async def load(self, aggregate_id: UUID) -> Tally:
        self.loads += 1
        if aggregate_id not in self.stored:
            raise Missing(str(aggregate_id))
        return copy.deepcopy(self.stored[aggregate_id])

    async def append(self, tally: Tally) -> None:
        await asyncio.sleep(0)  # another command may run meanwhile, as over a network
        events = tally.collect_events()
        stored = self.stored.get(tally.id)
        if self.races_to_lose or (stored is not None and stored.version != events[0].originator_version - 1):
            self.races_to_lose = max(0, self.races_to_lose - 1)
            raise RecordConflictError("another writer stored these versions first")
        self.appends += 1
        self.stored[tally.id] = copy.deepcopy(tally)
        self.kept[tally.id] = copy.deepcopy(tally)

    def another_writer(self, tally_id: UUID, act: Callable[[Tally], None]) -> None:
        tally = copy.deepcopy(self.stored[tally_id])
        act(tally)
        tally.collect_events()
        self.stored[tally_id] = tally  # this replica's kept copy is now behind


def units(store: MemoryStore, tries: int = 5) -> Units[Tally]:
    return Units[Tally](store, lambda: Conflict("try again"), (Refused,), Missing, tries)


def started(store: MemoryStore) -> UUID:
    tally = Tally()
    asyncio.run(units(store).run(tally.id, lambda t: None, start=lambda: tally))
    store.appends = 0
    return tally.id


def test_an_act_on_a_new_aggregate_stores_it_once():
    store = MemoryStore()
    tally = Tally()
    stored = asyncio.run(units(store).run(tally.id, lambda t: t.add(3), start=lambda: tally))
    assert stored.total == 3 and store.stored[tally.id].total == 3 and store.appends == 1


def test_an_unknown_aggregate_without_a_start_is_the_stores_error():
    with pytest.raises(Missing):
        asyncio.run(units(MemoryStore()).run(uuid4(), lambda t: t.add(1)))


def test_a_lost_race_runs_the_act_again_on_what_is_stored_now():
    store = MemoryStore()
    tally_id = started(store)
    store.another_writer(tally_id, lambda t: t.add(4))
    acted: list[int] = []

    def add(tally: Tally) -> None:
        acted.append(tally.total)
        tally.add(2)

    stored = asyncio.run(units(store).run(tally_id, add))
    assert acted == [0, 4]  # first on the kept copy, then on the stored one
    assert stored.total == 6 and store.stored[tally_id].total == 6 and store.appends == 1


def test_races_lost_past_the_bound_are_the_callers_conflict_and_store_nothing():
    store = MemoryStore()
    tally_id = started(store)
    store.races_to_lose = 3
    with pytest.raises(Conflict):
        asyncio.run(units(store, tries=3).run(tally_id, lambda t: t.add(1)))
    assert store.stored[tally_id].total == 0 and store.appends == 0
    store.races_to_lose = 2
    assert asyncio.run(units(store, tries=3).run(tally_id, lambda t: t.add(1))).total == 1


def test_a_retried_request_is_answered_by_the_first_outcome_and_applied_once():
    store = MemoryStore()
    tally_id = started(store)
    unit = units(store)
    acts = 0

    def add(tally: Tally) -> None:
        nonlocal acts
        acts += 1
        tally.add(5, request_id="r1")

    first = asyncio.run(unit.run(tally_id, add, done=lambda t: "r1" in t.requests))
    again = asyncio.run(unit.run(tally_id, add, done=lambda t: "r1" in t.requests))
    assert acts == 1 and store.appends == 1
    assert first.requests["r1"] == again.requests["r1"] == first.version and again.total == 5


def test_a_request_the_kept_copy_has_not_seen_is_answered_from_the_stored_aggregate():
    store = MemoryStore()
    tally_id = started(store)
    behind = copy.deepcopy(store.kept[tally_id])
    asyncio.run(units(store).run(tally_id, lambda t: t.add(5, request_id="r1"), done=lambda t: "r1" in t.requests))
    store.kept[tally_id] = behind  # a replica that missed it
    again = asyncio.run(units(store).run(tally_id, lambda t: t.add(5, request_id="r1"),
                                         done=lambda t: "r1" in t.requests))
    assert again.total == 5 and store.stored[tally_id].total == 5 and store.appends == 1


def test_a_stale_copys_refusal_is_asked_again_of_the_stored_aggregate():
    store = MemoryStore()
    tally_id = started(store)
    asyncio.run(units(store).run(tally_id, lambda t: t.add(9)))
    store.another_writer(tally_id, Tally.clear)
    stored = asyncio.run(units(store).run(tally_id, lambda t: t.add(5)))
    assert stored.total == 5  # the kept copy said "stops at 10"; the stored one took it


def test_a_refusal_of_the_stored_aggregate_is_believed_after_one_reading():
    store = MemoryStore()
    tally_id = started(store)
    tried: list[int] = []

    def add(tally: Tally) -> None:
        tried.append(tally.total)
        tally.add(-1)

    with pytest.raises(Refused):
        asyncio.run(units(store).run(tally_id, add))
    assert tried == [0, 0] and store.appends == 0


def test_a_refusal_of_a_loaded_copy_is_believed_at_once():
    store = MemoryStore()
    tally_id = started(store)
    store.kept.clear()  # a replica that has no copy of its own: the first copy is read from the store
    store.loads = 0
    with pytest.raises(Refused):
        asyncio.run(units(store).run(tally_id, lambda t: t.add(-1)))
    assert store.loads == 1


def test_commands_on_one_aggregate_in_this_process_take_turns_and_lose_no_race():
    store = MemoryStore()
    tally_id = started(store)
    unit = units(store, tries=1)  # one lost race would be a Conflict

    async def four_at_once() -> list[Tally]:
        return await asyncio.gather(*(unit.run(tally_id, lambda t: t.add(1)) for _ in range(4)))

    assert sorted(t.total for t in asyncio.run(four_at_once())) == [1, 2, 3, 4]
    assert store.appends == 4


def test_a_threaded_unit_runs_a_lost_race_again_after_a_growing_random_pause():
    pauses: list[float] = []
    lost: list[None] = []
    races = iter([True, True, False])

    def attempt() -> str:
        if next(races):
            raise RecordConflictError("lost")
        return "stored"

    unit = ThreadedUnits(lambda: Conflict("try again"), tries=5, lost=lambda: lost.append(None),
                         sleep=pauses.append, jitter=lambda low, high: high)
    assert unit.run(attempt, lock=uuid4()) == "stored"
    assert pauses == [0.001, 0.002] and len(lost) == 2


def test_a_threaded_unit_gives_up_after_its_tries():
    def attempt() -> None:
        raise RecordConflictError("lost")

    pauses: list[float] = []
    with pytest.raises(Conflict):
        ThreadedUnits(lambda: Conflict("try again"), tries=8, sleep=pauses.append,
                      jitter=lambda low, high: high).run(attempt)
    assert len(pauses) == 8 and max(pauses) == 0.05  # the pause stops growing at max_pause
