"""The change tail and the feed it publishes to, without a database: what wakes a stream and
why, and that whatever notifications are lost, the tail publishes every stored change (and
reads the store only when one was)."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

from eventsourcing.persistence import StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from hypothesis import given, settings
from hypothesis import strategies as st

from services.common.change_tail import ListeningTail, OwnWrites, PollingTail, parse_payload
from services.common.changes import LOCAL, PUSH, ChangeFeed

MATCH, TALK, OTHER = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_waiter_woken_only_by_this_replicas_changes_is_local_only_and_a_push_is_not():
    async def scenario():
        feed = ChangeFeed()
        with feed.waiter(MATCH) as local:
            feed.publish(MATCH)
            assert await local.wait(1)
        with feed.waiter(MATCH) as pushed:
            feed.publish(MATCH)
            feed.publish(MATCH, PUSH)
            assert await pushed.wait(1)
        return local, pushed

    local, pushed = run(scenario())
    assert local.local_only and local.causes == {LOCAL}
    assert not pushed.local_only and pushed.causes == {LOCAL, PUSH}


def test_a_change_published_under_an_alias_wakes_the_streams_of_its_key_while_they_wait():
    async def scenario():
        feed = ChangeFeed()
        feed.watch_aliases(lambda key: (TALK,) if key == MATCH else ())
        with feed.waiter(MATCH) as waiter:
            assert feed.publish(TALK, PUSH)
            assert await waiter.wait(1)
        return feed.publish(TALK, PUSH)  # nobody waits any more: nothing to wake

    assert run(scenario()) is False


def test_a_waiter_knows_whether_a_change_came_under_an_alias_so_a_move_alone_skips_the_talk():
    async def scenario():
        feed = ChangeFeed()
        feed.watch_aliases(lambda key: (TALK,) if key == MATCH else ())
        with feed.waiter(MATCH) as moved:
            feed.publish(MATCH, PUSH)
            await moved.wait(1)
        with feed.waiter(MATCH) as talked:
            feed.publish(TALK, PUSH)
            await talked.wait(1)
        return moved.through_alias, talked.through_alias

    assert run(scenario()) == (False, True)


def test_a_waiter_waits_without_a_timeout_until_a_change():
    async def scenario():
        feed = ChangeFeed()
        with feed.waiter(MATCH) as waiter:
            asyncio.get_running_loop().call_later(0.05, feed.publish, MATCH, PUSH)
            return await waiter.wait()

    assert run(scenario()) is True


def stored(recorder, originator: uuid.UUID, version: int) -> list[int]:
    return recorder.insert_events([StoredEvent(originator, version, "topic", b"{}")])


def test_the_polling_tail_publishes_what_another_process_stored_and_skips_its_own():
    async def scenario():
        recorder, feed, own = POPOApplicationRecorder(), ChangeFeed(), OwnWrites()
        tail = PollingTail(recorder, feed, own)
        tail.position = 0
        with feed.waiter(MATCH) as mine, feed.waiter(OTHER) as theirs:
            own.note(stored(recorder, MATCH, 1))  # stored here: its command published it
            stored(recorder, OTHER, 1)  # stored by another worker
            woke = tail.poll()
            await asyncio.sleep(0)
            return woke, mine.causes, theirs.causes, tail.position, tail.poll()

    woke, mine, theirs, position, again = run(scenario())
    assert (woke, mine, theirs, position, again) == (1, set(), {PUSH}, 2, 0)


def test_anything_stored_raises_the_tails_stored_flag_its_own_process_appends_included():
    async def scenario():
        recorder, own = POPOApplicationRecorder(), OwnWrites()
        tail = PollingTail(recorder, ChangeFeed(), own)
        tail.position = 0
        nothing_yet = tail.poll() == 0 and not tail.stored.is_set()
        own.note(stored(recorder, MATCH, 1))
        tail.poll()
        return nothing_yet, tail.stored.is_set()

    assert run(scenario()) == (True, True)


def test_a_payload_names_the_groups_ids_and_aggregates():
    assert parse_payload(f"7 9 {MATCH},{OTHER}") == (7, 9, [MATCH, OTHER])
    assert parse_payload("7 9") is None  # too many aggregates to carry: read the store
    assert parse_payload("") is None


class Listening(ListeningTail):
    """The listening tail's bookkeeping over a list standing for the events table."""

    def __init__(self, table: list[tuple[int, uuid.UUID]]) -> None:
        recorder = SimpleNamespace(channel_name="events", events_table_name="events", append_backend_pid=1,
                                   datastore=SimpleNamespace(schema="public"))
        self.published: set[uuid.UUID] = set()
        super().__init__(recorder, ChangeFeed())
        self.table = table
        self.position = 0

    def _publish(self, changed, cause=PUSH) -> int:
        self.published.update(changed)
        return len(changed)

    async def catch_up(self, why: str) -> int:
        self._read(why)
        assert self.position is not None
        changed = {originator for notification_id, originator in self.table if notification_id > self.position}
        self.position = max([self.position] + [n for n, _ in self.table])
        return self._publish(changed)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(0, 4), st.booleans(), st.booleans()), min_size=1,
                max_size=12))
def test_whatever_notifications_are_lost_every_stored_change_is_published(groups):
    """Groups of (events, aggregate, notification delivered, sent by this process itself)."""
    aggregates = [uuid.UUID(int=n + 1) for n in range(5)]
    table: list[tuple[int, uuid.UUID]] = []
    notes, expected, lost = [], set(), False
    for size, aggregate, delivered, own in groups:
        first = len(table) + 1
        table += [(first + k, aggregates[aggregate]) for k in range(size)]
        if not own or not delivered:
            expected.add(aggregates[aggregate])
        if delivered:
            notes.append(SimpleNamespace(payload=f"{first} {len(table)} {aggregates[aggregate]}", pid=1 if own else 2))
        else:
            lost = True
    tail = Listening(table)
    asyncio.run(tail.take(notes))
    asyncio.run(tail.catch_up("safety"))  # the safety net's read, after silence
    assert expected <= tail.published
    assert tail.position == len(table)
    if not lost:
        assert tail.reads == 1  # the safety net's alone: the notifications said everything
