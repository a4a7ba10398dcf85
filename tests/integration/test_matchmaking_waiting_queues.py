"""A player who waits through one matchmaking replica is filled with bots by another's
timer, though that timer looks only at the queues it knows someone may wait in: it learns
of the queue from the store's notification log (real SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.options import Options
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches

pytestmark = pytest.mark.integration

BLOCK_4 = Options.chosen("egyptian", "block-4")


def test_a_player_waiting_through_another_replica_is_seated_by_this_replicas_timer(either_store_env):
    clock = Clock()
    timer_side = MatchmakingApplication(env=either_store_env, matches=FakeMatches(), clock=clock)
    asking_side = MatchmakingApplication(env=either_store_env, matches=FakeMatches(), clock=clock)
    try:
        timer_side.pending_starts.follow_store()
        assert timer_side.tables.fill_waiting_tables() == []  # every queue looked at once: nobody waits
        assert timer_side.waiting_queues.to_look_at() == []
        ticket = asking_side.tables.request_table("ann", "r1", BLOCK_4)
        clock.now += 20
        timer_side.pending_starts.follow_store()  # as the timer does before each fill
        (table_id,) = timer_side.tables.fill_waiting_tables()
        seated = asking_side.tables.ticket("ann", ticket.ticket_id)
        assert seated.table_id == table_id
        assert seated.seats == ("ann", "bot:greedy:1", "bot:greedy:2", "bot:greedy:3")
    finally:
        asking_side.close()
        timer_side.close()
