"""The revocation list a process keeps (services/common/revocations.py): each step reads what
was revoked since its cursor; entries go when their tokens expire, and beyond the cap the
soonest to expire go first, counted; while the account service cannot be asked, what is
known stays refused and the rest is accepted (fail open), counted. Steps are called
directly with an injected clock."""

from __future__ import annotations

import asyncio

import pytest

from services.common.auth import AuthError, Identity
from services.common.revocations import REVOKED, CursorAhead, Page, Revocations, Unreachable
from tests.support.clock import Clock

NOW = 1_800_000_000.0


class ListedSessions:
    """The account service's side, in memory: a list with a cursor, and an off switch."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, str, float]] = []  # (cursor, session, expires at)
        self.away = False
        self.replaced = False
        self.reads = 0

    def revoke(self, session: str, expires_at: float) -> None:
        self.rows.append((len(self.rows) + 1, session, expires_at))

    async def page(self, after_cursor: int, page_size: int, wait_seconds: float = 0) -> Page:
        self.reads += 1
        if self.away:
            raise Unreachable("UNAVAILABLE: connection refused")
        newest = self.rows[-1][0] if self.rows else 0
        if after_cursor > newest:
            raise CursorAhead("past the newest")
        rows = [r for r in self.rows if r[0] > after_cursor]
        page = rows[:page_size]
        return Page(tuple((s, e) for _, s, e in page), page[-1][0] if page else after_cursor, len(rows) > page_size)


class Feed:
    """Stands in for a ChangeFeed: records what a step woke."""

    def __init__(self) -> None:
        self.woken: list[tuple[object, str]] = []

    def publish(self, key, cause="local") -> bool:
        self.woken.append((key, cause))
        return True


def player(session: str) -> Identity:
    return Identity("acct", "player", NOW + 900, session)


def step(revocations: Revocations) -> bool:
    return asyncio.run(revocations.step())


@pytest.fixture
def listed():
    return ListedSessions()


@pytest.fixture
def clock():
    return Clock(NOW)


def test_a_session_revoked_since_the_last_step_is_refused_after_the_next(listed, clock):
    revocations = Revocations(listed, clock)
    step(revocations)
    revocations.check(player("s1"))
    listed.revoke("s1", NOW + 900)
    step(revocations)
    with pytest.raises(AuthError, match="this session has ended: sign in again"):
        revocations.check(player("s1"))
    revocations.check(player("s2"))
    revocations.check(Identity("bot:greedy:1", "bot"))  # no session: nothing to revoke


def test_each_step_reads_only_what_was_revoked_since_its_cursor(listed, clock):
    revocations = Revocations(listed, clock)
    listed.revoke("s1", NOW + 900)
    step(revocations)
    listed.revoke("s2", NOW + 900)
    step(revocations)
    assert revocations.cursor == 2 and revocations.known == 2


def test_a_long_list_is_read_a_page_at_a_time_and_at_most_so_many_pages_a_step(listed, clock):
    for i in range(25):
        listed.revoke(f"s{i}", NOW + 900)
    revocations = Revocations(listed, clock, page_size=4, pages_per_step=3)
    step(revocations)
    assert (revocations.known, listed.reads) == (12, 3)
    step(revocations)
    step(revocations)
    assert revocations.known == 25 and revocations.cursor == 25


def test_an_entry_is_forgotten_once_its_tokens_have_expired(listed, clock):
    revocations = Revocations(listed, clock)
    listed.revoke("soon", NOW + 60)
    listed.revoke("later", NOW + 900)
    step(revocations)
    clock.advance(61)
    step(revocations)
    assert not revocations.revoked("soon") and revocations.revoked("later") and revocations.known == 1


def test_an_entry_already_expired_when_read_is_not_kept(listed, clock):
    revocations = Revocations(listed, clock)
    listed.revoke("old", NOW - 1)
    step(revocations)
    assert revocations.known == 0 and revocations.cursor == 1


def test_beyond_the_cap_the_entries_expiring_soonest_are_forgotten_and_counted(listed, clock):
    dropped = []
    revocations = Revocations(listed, clock, cap=3, on_dropped=dropped.append)
    for i, ttl in enumerate((500, 100, 900, 300, 700)):
        listed.revoke(f"s{i}-{ttl}", NOW + ttl)
    step(revocations)
    assert revocations.known == 3 and revocations.dropped == 2 and dropped == [2]
    assert {s for s in ("s0-500", "s1-100", "s2-900", "s3-300", "s4-700") if revocations.revoked(s)} == \
        {"s0-500", "s2-900", "s4-700"}


def test_while_the_account_service_is_away_what_is_known_stays_refused_and_the_rest_is_accepted(listed, clock):
    errors = []
    revocations = Revocations(listed, clock, on_error=lambda: errors.append(1))
    listed.revoke("known", NOW + 900)
    step(revocations)
    listed.away = True
    listed.revoke("revoked meanwhile", NOW + 900)
    clock.advance(31)
    assert step(revocations) is False
    assert revocations.revoked("known") and not revocations.revoked("revoked meanwhile")
    assert revocations.poll_errors == len(errors) == 1
    assert revocations.seconds_since_success() == 31


def test_once_the_account_service_is_back_the_next_step_catches_up(listed, clock):
    revocations = Revocations(listed, clock)
    step(revocations)
    listed.away = True
    listed.revoke("revoked meanwhile", NOW + 900)
    step(revocations)
    listed.away = False
    clock.advance(5)
    assert step(revocations) is True
    assert revocations.revoked("revoked meanwhile") and revocations.seconds_since_success() == 0


def test_entries_still_expire_while_the_account_service_is_away(listed, clock):
    revocations = Revocations(listed, clock)
    listed.revoke("soon", NOW + 60)
    step(revocations)
    listed.away = True
    clock.advance(61)
    step(revocations)
    assert revocations.known == 0


def test_a_process_that_never_read_the_list_counts_its_staleness_from_its_start(listed, clock):
    listed.away = True
    revocations = Revocations(listed, clock)
    clock.advance(12)
    step(revocations)
    assert revocations.seconds_since_success() == 12


def test_a_cursor_past_a_replaced_stores_newest_is_read_again_from_the_start(listed, clock):
    revocations = Revocations(listed, clock)
    for i in range(3):
        listed.revoke(f"old{i}", NOW + 900)
    step(revocations)
    listed.rows = [(1, "new", NOW + 900)]  # another store, its cursors from 1 again
    assert step(revocations) is True
    assert revocations.revoked("new") and revocations.cursor == 1


def test_a_step_wakes_the_open_streams_of_a_session_it_finds_revoked_and_no_other(listed, clock):
    revocations = Revocations(listed, clock)
    feed = Feed()
    with revocations.ending(player("s1"), feed, "match-1"), revocations.ending(player("s2"), feed, "match-2"):
        listed.revoke("s1", NOW + 900)
        step(revocations)
    assert feed.woken == [("match-1", REVOKED)]


def test_a_stream_that_ended_is_woken_no_more(listed, clock):
    revocations = Revocations(listed, clock)
    feed = Feed()
    with revocations.ending(player("s1"), feed, "match-1"):
        pass
    listed.revoke("s1", NOW + 900)
    step(revocations)
    assert feed.woken == []


def test_without_an_account_service_nothing_is_revoked(clock):
    revocations = Revocations(clock=clock)
    assert step(revocations) is True
    revocations.check(player("s1"))


class HeldSessions(ListedSessions):
    """An account service that holds a read with nothing new until its wait ends."""

    async def page(self, after_cursor: int, page_size: int, wait_seconds: float = 0) -> Page:
        self.waits = getattr(self, "waits", []) + [wait_seconds]
        await asyncio.sleep(wait_seconds)
        return await super().page(after_cursor, page_size)


def run_for(revocations: Revocations, seconds: float, every: float, wait_seconds: float) -> float:
    """Runs ``run`` for ``seconds``, then stops it; how long the stop took."""
    async def scenario() -> float:
        stopping = asyncio.Event()
        task = asyncio.create_task(revocations.run(stopping, every, wait_seconds))
        await asyncio.sleep(seconds)
        stopping.set()
        began = asyncio.get_running_loop().time()
        await task
        return asyncio.get_running_loop().time() - began

    return asyncio.run(scenario())


def test_a_process_holds_one_read_at_a_time_that_the_account_service_answers_when_something_is_revoked(clock):
    held = HeldSessions()
    stopped_in = run_for(Revocations(held, clock=clock), 0.3, every=0.05, wait_seconds=20)
    assert held.waits == [20]  # one read, held the whole time
    assert stopped_in < 0.1  # a held read is not waited for when the process stops


def test_an_account_service_that_answers_at_once_is_read_no_more_often_than_every_poll(listed, clock):
    run_for(Revocations(listed, clock=clock), 0.35, every=0.1, wait_seconds=20)
    assert 3 <= listed.reads <= 5
