"""Held ListRevokedSessions reads (services/accounts/revocation_waits.py): answered when the
newest cursor moves, one check of it per process however many reads wait, and a bound on
how many may wait."""

from __future__ import annotations

import asyncio

from services.accounts.revocation_waits import RevocationWaits


class Newest:
    def __init__(self) -> None:
        self.cursor = 5
        self.reads = 0

    async def __call__(self) -> int:
        self.reads += 1
        return self.cursor


def test_held_reads_are_answered_when_the_newest_cursor_moves_with_one_check_for_all_of_them():
    async def scenario():
        newest = Newest()
        waits = RevocationWaits(newest, check_seconds=0.02)
        held = [asyncio.create_task(waits.past(5, 5)) for _ in range(50)]
        await asyncio.sleep(0.1)
        checks_while_held = newest.reads
        newest.cursor = 6
        return await asyncio.gather(*held), checks_while_held

    answers, checks = asyncio.run(scenario())
    assert all(answers) and checks <= 7  # about one per check_seconds, not one per held read


def test_a_held_read_ends_unanswered_when_its_wait_ends():
    assert asyncio.run(RevocationWaits(Newest(), check_seconds=0.02).past(5, 0.1)) is False


def test_past_the_bound_a_read_is_answered_at_once():
    async def scenario():
        waits = RevocationWaits(Newest(), check_seconds=0.02, most=1)
        first = asyncio.create_task(waits.past(5, 0.3))
        await asyncio.sleep(0)
        began = asyncio.get_running_loop().time()
        second = await waits.past(5, 5)
        return second, asyncio.get_running_loop().time() - began, await first

    second, took, first = asyncio.run(scenario())
    assert second is False and took < 0.05 and first is False
